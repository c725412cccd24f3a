package dev.idem.core.scan;

/** What a key's contents were compared by. */
public enum Basis {
  /** Every content entry carries the SHA-256 idem stored with it: an exact content comparison. */
  SHA256,
  /**
   * No entry carries an idem SHA-256 (a legacy writer's key): compared by ETag, which is not a content
   * hash for multipart or SSE-KMS objects, so identical bytes may look different (never the reverse).
   */
  ETAG,
  /** Some entries have an idem SHA-256 and some only an ETag; the two cannot be matched. */
  MIXED
}
