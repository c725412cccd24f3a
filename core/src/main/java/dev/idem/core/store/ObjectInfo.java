package dev.idem.core.store;

import dev.idem.core.Sha256;
import java.time.Instant;
import java.util.Objects;

/**
 * What a store knows of one published object.
 *
 * @param key the store key
 * @param sha256 lowercase hex SHA-256 of the content (stores that did not record one compute it)
 * @param size content length in bytes
 * @param writer the writer id that created it, or {@code null} when unknown
 * @param publishedAt when it was created, or {@code null} when unknown
 */
public record ObjectInfo(String key, String sha256, long size, String writer, Instant publishedAt) {
  public ObjectInfo {
    Objects.requireNonNull(key, "key");
    if (!Sha256.isHex(sha256)) {
      throw new IllegalArgumentException("sha256 must be 64 lowercase hex digits, was " + sha256);
    }
    if (size < 0) {
      throw new IllegalArgumentException("size must be >= 0, was " + size);
    }
  }
}
