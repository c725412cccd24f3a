package dev.idem.fuzz;

/**
 * A contract of {@code FsObjectStore} broken on purpose at its {@code FsOps} seam, so the suite can show
 * that its random scenarios (not only fixed ones) find the breakage. Applied by {@link HookedFsOps} to
 * replica threads; the store's code is left as shipped.
 */
enum FsBreakage {
  /** The store as shipped. */
  NONE,
  /**
   * "No object fsync before the pointer moves": a pointer compare-and-swap skips forcing the object
   * it is about to name and fsyncing that object's directory, as if {@code makeDurable(next.key())}
   * were dropped from {@code PointerFiles.compareAndSet} (breakage B3 in fuzz/README.md). A pointer may
   * then name an object whose directory entry a power loss can still take away (G1). It shows only
   * when the pointer is moved by a replica that did not link the object itself while the one that did
   * has not yet synced its directory: a stall or a death between that link and that sync.
   */
  NO_OBJECT_SYNC_BEFORE_POINTER,
  /**
   * "No divergence marker": a DIVERGENT record is written nowhere (its file goes to an unlinked scratch
   * file outside the root), as if the marker of P8 were dropped from {@code FsObjectStore}'s divergent
   * publish (breakage B6 in fuzz/README.md). The evidence bytes still record a divergence whose publish
   * finishes; it shows only when the publisher dies or fails while keeping them: the divergence is then
   * lost, and the scan passes a key that two replicas wrote with different bytes.
   */
  NO_DIVERGENCE_MARKER
}
