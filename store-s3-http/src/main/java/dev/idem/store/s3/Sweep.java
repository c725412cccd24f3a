package dev.idem.store.s3;

import dev.idem.core.OutputKey;
import dev.idem.store.s3.internal.client.MultipartUpload;
import dev.idem.store.s3.internal.client.ObjectSummary;
import dev.idem.store.s3.internal.client.ObjectsPage;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.internal.client.UploadsPage;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/**
 * Removes what killed writers and old advances leave behind, never what a live writer may still use:
 *
 * <ul>
 *   <li>incomplete multipart uploads under the prefix started before the cutoff (a publish killed
 *       mid-upload, or one whose abort failed) at keys idem writes: keys in the layout of an output key
 *       ({@link OutputKey#looksLikeKey}) and keys under {@code _idem/} (evidence): AbortMultipartUpload.
 *       Other uploads are another application's, even under the prefix (a store at {@code s3://bucket}
 *       shares the whole bucket), and are left alone;
 *   <li>pointer-log entries ({@link PointerMode#LOG}) older than the cutoff, except the newest {@code
 *       keep} of each pipeline: DeleteObject. Entries are listed in sequence order and held in a ring of
 *       {@code keep}, so memory stays bounded however long the log grew.
 * </ul>
 *
 * Evidence is never swept (P4), nor are published objects (that is retention's job, through {@code
 * delete}). In a versioned bucket a delete leaves a noncurrent version; a lifecycle rule that expires
 * noncurrent versions under {@code _idem/pointers/} reclaims the space.
 *
 * <p>Every removal is independent: a failure stops the sweep with an {@link IOException} and leaves
 * the rest for the next run; nothing is ever half-removed.
 */
final class Sweep {
  private final S3Client client;
  private final String bucket;
  private final KeyLayout layout;
  private final int pageSize;
  private final int keep;

  Sweep(S3Client client, String bucket, KeyLayout layout, int pageSize, int keep) {
    this.client = client;
    this.bucket = bucket;
    this.layout = layout;
    this.pageSize = pageSize;
    this.keep = keep;
  }

  List<String> run(Instant cutoff, boolean dryRun) throws IOException {
    List<String> lines = new ArrayList<>();
    abortUploads(cutoff, dryRun, lines);
    deleteLogEntries(cutoff, dryRun, lines);
    return lines;
  }

  private void abortUploads(Instant cutoff, boolean dryRun, List<String> lines) throws IOException {
    String keyMarker = null;
    String uploadMarker = null;
    ListingGuard<List<String>> guard = new ListingGuard<>("ListMultipartUploads of s3://" + bucket + "/" + layout.prefix());
    do {
      UploadsPage page = client.listMultipartUploads(bucket, layout.prefix().isEmpty() ? null : layout.prefix(),
          keyMarker, uploadMarker);
      for (MultipartUpload u : page.uploads()) {
        if (u.initiated().isBefore(cutoff) && idems(u.key())) {
          if (!dryRun) {
            client.abortMultipartUpload(bucket, u.key(), u.uploadId());
          }
          lines.add((dryRun ? "would abort" : "aborted") + " incomplete upload of " + layout.logical(u.key())
              + " (upload " + u.uploadId() + ", started " + u.initiated() + ")");
        }
      }
      if (page.truncated()) {
        guard.next(Arrays.asList(page.nextKeyMarker(), page.nextUploadIdMarker()));
      }
      keyMarker = page.nextKeyMarker();
      uploadMarker = page.nextUploadIdMarker();
    } while (keyMarker != null);
  }

  /** Whether {@code objectKey} is one idem writes: an output key, or one in the store's own area. */
  private boolean idems(String objectKey) {
    return objectKey.startsWith(layout.prefix())
        && (layout.isInternal(objectKey) || OutputKey.looksLikeKey(layout.logical(objectKey)));
  }

  private void deleteLogEntries(Instant cutoff, boolean dryRun, List<String> lines) throws IOException {
    String pointers = layout.pointersPrefix();
    String pipeline = null;
    Deque<ObjectSummary> newest = new ArrayDeque<>();
    String token = null;
    ListingGuard<String> guard = new ListingGuard<>("ListObjectsV2 of s3://" + bucket + "/" + pointers);
    do {
      ObjectsPage page = client.listObjects(bucket, pointers, null, token, pageSize);
      for (ObjectSummary o : page.objects()) {
        String rest = o.key().substring(pointers.length());
        int slash = rest.indexOf('/');
        if (slash <= 0) {
          continue;
        }
        String p = rest.substring(0, slash);
        if (KeyLayout.parseSeq(o.key(), layout.logPrefix(p)) < 0) {
          continue;
        }
        if (!p.equals(pipeline)) {
          pipeline = p;
          newest.clear();
        }
        newest.addLast(o);
        if (newest.size() > keep) {
          ObjectSummary old = newest.removeFirst();
          if (old.lastModified().isBefore(cutoff)) {
            if (!dryRun) {
              client.delete(bucket, old.key());
            }
            lines.add((dryRun ? "would delete" : "deleted") + " superseded pointer-log entry "
                + layout.logical(old.key()) + " (written " + old.lastModified() + ")");
          }
        }
      }
      token = guard.next(page.nextContinuationToken());
    } while (token != null);
  }
}
