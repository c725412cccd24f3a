package dev.idem.store.s3.internal.client;

import java.time.Instant;
import java.util.Objects;

/**
 * One incomplete multipart upload, as ListMultipartUploads reports it.
 *
 * @param key the full object key (decoded)
 * @param uploadId the upload id
 * @param initiated when it was started
 */
public record MultipartUpload(String key, String uploadId, Instant initiated) {
  public MultipartUpload {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(uploadId, "uploadId");
    Objects.requireNonNull(initiated, "initiated");
  }
}
