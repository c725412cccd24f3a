package dev.idem.core.store;

/** Result of {@link ObjectStore#compareAndSetPointer}. */
public enum CasResult {
  /** The pointer held the expected token and now holds the new document. */
  SWAPPED,
  /** The pointer no longer held the expected token (someone else moved it); nothing was written. */
  CONFLICT,
  /**
   * The store could not decide within the wait it was given (a lock held past it, S3's 409
   * ConditionalRequestConflict after retries); nothing was written. Retrying later is safe.
   */
  BUSY
}
