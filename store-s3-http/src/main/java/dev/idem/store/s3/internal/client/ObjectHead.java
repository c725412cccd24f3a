package dev.idem.store.s3.internal.client;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * What a HEAD (or the headers of a GET) says about one object.
 *
 * @param size content length
 * @param etag the ETag as sent, with its quotes (what {@code If-Match} must repeat), or {@code null}
 * @param lastModified the Last-Modified time, or {@code null} when the server sent none
 * @param versionId the version id, or {@code null}
 * @param metadata user metadata, names lowercased without the {@code x-amz-meta-} prefix
 */
public record ObjectHead(long size, String etag, Instant lastModified, String versionId, Map<String, String> metadata) {
  public ObjectHead {
    Objects.requireNonNull(metadata, "metadata");
    metadata = Map.copyOf(metadata);
  }

  /** One metadata value, or {@code null}. */
  public String meta(String name) {
    return metadata.get(name);
  }
}
