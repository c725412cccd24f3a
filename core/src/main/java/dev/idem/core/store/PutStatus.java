package dev.idem.core.store;

/** The three ways a create-only publish can end (contracts P2–P4). */
public enum PutStatus {
  /** This call created the object; no object was at the key before. */
  CREATED,
  /** An object was already at the key with the same SHA-256; nothing was written to the key. */
  IDENTICAL,
  /**
   * An object was already at the key with different bytes: a keying bug or a legacy writer. The
   * stored object is untouched (P2); the attempt is recorded as evidence for the scan (P4).
   */
  DIVERGENT
}
