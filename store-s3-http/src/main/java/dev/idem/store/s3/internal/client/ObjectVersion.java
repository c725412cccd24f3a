package dev.idem.store.s3.internal.client;

import java.time.Instant;
import java.util.Objects;

/**
 * One entry of a ListObjectVersions page: a stored version or a delete marker.
 *
 * @param key the full object key (decoded)
 * @param versionId the version id; the literal {@code "null"} in a bucket that never had versioning
 * @param latest whether this is the key's current version
 * @param deleteMarker whether this is a delete marker (then {@code etag} is {@code null}, size 0)
 * @param lastModified when it was written
 * @param etag the ETag without quotes, or {@code null} for delete markers
 * @param size content length
 */
public record ObjectVersion(
    String key, String versionId, boolean latest, boolean deleteMarker, Instant lastModified, String etag,
    long size) {
  public ObjectVersion {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lastModified, "lastModified");
  }
}
