package dev.idem.store.s3.internal.client;

import java.time.Instant;
import java.util.Objects;

/**
 * One current object in a ListObjectsV2 page.
 *
 * @param key the full object key (decoded)
 * @param lastModified when it was written
 * @param etag the ETag without quotes
 * @param size content length
 */
public record ObjectSummary(String key, Instant lastModified, String etag, long size) {
  public ObjectSummary {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lastModified, "lastModified");
  }
}
