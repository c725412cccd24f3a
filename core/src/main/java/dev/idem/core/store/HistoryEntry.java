package dev.idem.core.store;

import java.time.Instant;
import java.util.Objects;

/**
 * One event in a key's history: a stored version, a delete marker, or a publish attempt that met an
 * existing object (recorded by idem as divergence evidence or as an identical rewrite).
 *
 * @param key the logical key the event belongs to
 * @param kind what it is
 * @param versionId store version id, or {@code null} where the store has none
 * @param time when it happened, or {@code null} when unknown
 * @param size content size, {@code -1} when unknown or for delete markers
 * @param sha256 content SHA-256 recorded by idem, or {@code null} for objects idem did not write
 * @param etag the store's ETag (unquoted), or {@code null} where there is none
 * @param writer writer id where known, else {@code null}
 * @param schema the schema version idem recorded with the publish ({@link Payload#schema()}), or {@code
 *     null} when unknown: objects idem did not write, publishes by a version of idem that recorded none,
 *     records lost to a crash, and on S3 entries whose metadata the listing did not read (the S3 store
 *     reads it only in windows of several keys, until the window's drift is known, where the scan needs it)
 * @param metSha256 for a DIVERGENT_ATTEMPT, the SHA-256 of the stored object the attempt met, as its
 *     divergence marker recorded it (P8); {@code null} for every other entry and where no marker says
 *     (evidence written before markers existed, a record torn by a crash). The scan counts that object as
 *     a write when the history no longer holds it (retention deleted it, an unversioned bucket)
 */
public record HistoryEntry(String key, Kind kind, String versionId, Instant time, long size, String sha256,
    String etag, String writer, Integer schema, String metSha256) {

  public enum Kind {
    /** A version of the object as stored (current or noncurrent). */
    VERSION,
    /** A delete marker: not content. */
    DELETE_MARKER,
    /** A publish attempt that met the key with the same bytes (benign). */
    IDENTICAL_ATTEMPT,
    /** A publish attempt that met the key with different bytes; {@link #sha256} is the attempt's. */
    DIVERGENT_ATTEMPT
  }

  public HistoryEntry {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(kind, "kind");
    if (metSha256 != null && kind != Kind.DIVERGENT_ATTEMPT) {
      throw new IllegalArgumentException("only a divergent attempt met another object, not a " + kind);
    }
  }

  /** An entry that names no met object: anything but a divergent attempt with a marker. */
  public HistoryEntry(String key, Kind kind, String versionId, Instant time, long size, String sha256, String etag,
      String writer, Integer schema) {
    this(key, kind, versionId, time, size, sha256, etag, writer, schema, null);
  }

  /** True for entries that carry content (everything but delete markers). */
  public boolean isContent() {
    return kind != Kind.DELETE_MARKER;
  }
}
