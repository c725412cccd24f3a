package dev.idem.core.publish;

/** How an operator's pointer rewind ({@link PointerRewinder}) ended. Only REWOUND wrote anything. */
public enum RewindStatus {
  /** The pointer now names the target and carries the rewind record. */
  REWOUND,
  /**
   * The pointer did not name the key the operator expected (a publisher moved it, or the operator read
   * an old value), or it moved between the read and the swap; nothing was written. Re-read and decide
   * again.
   */
  POINTER_MOVED,
  /** The pipeline has no pointer; there is nothing to move back. */
  NO_POINTER,
  /**
   * The store could not decide within the rewind's deadline (a lock held past it, S3's 409 until it);
   * nothing was written.
   */
  BUSY
}
