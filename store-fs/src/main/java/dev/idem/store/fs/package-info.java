/**
 * The filesystem store: {@link dev.idem.store.fs.FsObjectStore}, an {@link
 * dev.idem.core.store.ObjectStore} in a local directory.
 *
 * <p>Invariants every class here keeps:
 *
 * <ul>
 *   <li>An object appears at its key only by {@code link(2)} of a complete, fsynced temporary file, so
 *       it is never partial and never replaced (P1, P2); the directory is fsynced before the publish
 *       returns.
 *   <li>The {@code latest} pointer and the retirement mark change only through {@link
 *       dev.idem.store.fs.LockedReplace}: an atomic rename of a fsynced temporary file, under a kernel
 *       lock that dies with its holder (G3, G4).
 *   <li>Temporary files are named {@code .tmp-…}: never listed, never a key, removed by sweep.
 *   <li>Everything the store keeps for itself lives under {@code _idem/}, a name no key may start with.
 *   <li>Every mutating filesystem call goes through {@link dev.idem.store.fs.FsOps}, so tests can fail
 *       any one of them.
 * </ul>
 *
 * <p>One name per concept: what the store records about a key is its <em>records</em> ({@link
 * dev.idem.store.fs.Records}, one file per publish attempt, each holding a {@link
 * dev.idem.store.fs.RecordLine}; {@link dev.idem.store.fs.RecordHistory} reads them as history);
 * where a path is, is {@link dev.idem.store.fs.Layout}'s; reaching it without leaving the root, {@link
 * dev.idem.store.fs.ContainedFs}'s.
 */
package dev.idem.store.fs;
