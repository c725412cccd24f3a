package dev.idem.store.s3.internal.client;

import java.util.List;

/**
 * One page of ListMultipartUploads.
 *
 * @param uploads the uploads
 * @param truncated whether another page follows
 * @param nextKeyMarker where the next page starts (set when truncated)
 * @param nextUploadIdMarker with {@code nextKeyMarker}
 */
public record UploadsPage(
    List<MultipartUpload> uploads, boolean truncated, String nextKeyMarker, String nextUploadIdMarker) {
  public UploadsPage {
    uploads = List.copyOf(uploads);
  }
}
