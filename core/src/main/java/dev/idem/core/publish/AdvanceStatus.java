package dev.idem.core.publish;

/** How a pointer advance ended. */
public enum AdvanceStatus {
  /** The pointer now names the new generation. */
  ADVANCED,
  /** The pointer already named this key (same position, window start and schema version): a no-op. */
  ALREADY_CURRENT,
  /**
   * The pointer already stood at this position (window start, schema version) but names another key:
   * two builds derived different keys for one window and schema, the signature of an input changed
   * without a {@code --schema} bump (keying drift). Nothing was written; readers keep getting the other
   * key's generation, and this one's object stays published beside it.
   */
  SAME_POSITION_OTHER_KEY,
  /** The pointer stood at a later position; it was left alone (a late or old writer backs off, G2). */
  NEWER_PRESENT,
  /**
   * The last attempt could not get the store's pointer lock before the advance's deadline (a holder
   * that never lets go: a stopped process, a dead NFS client); nothing was written. Safe to retry.
   */
  BUSY,
  /**
   * Every attempt lost the race: someone else moved the pointer between this advance's read and its
   * compare-and-swap, until the attempts or the deadline ran out; nothing was written. Safe to retry.
   */
  CONFLICT;

  /** Whether the advance gave up without deciding (BUSY or CONFLICT): the pointer may still lag. */
  public boolean gaveUp() {
    return this == BUSY || this == CONFLICT;
  }
}
