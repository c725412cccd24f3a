/**
 * The filesystem store: create-only publish by hard link, a lock-file compare-and-set pointer and a
 * publish-attempt ledger ({@link dev.idem.store.fs.FsObjectStore}), and its prover ({@link
 * dev.idem.store.fs.FsStoreProver}).
 *
 * <p>One package, exported; what is not API is package-private. The core is required transitively, since
 * the store's API is the core's {@link dev.idem.core.store.ObjectStore}.
 */
module dev.idem.store.fs {
  requires transitive dev.idem.core;

  exports dev.idem.store.fs;
}
