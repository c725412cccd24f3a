package dev.idem.store.fs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Replaces a small file of an {@link FsObjectStore} whole, under a lock: the one way the store's
 * replaceable files (a pipeline's {@code latest} pointer, its {@code retired} mark) are ever changed.
 * Modelled on JGit's {@code LockFile} (lock, write, commit, unlock), going further where a crash or a
 * power loss could otherwise cost a whole document:
 *
 * <ol>
 *   <li>{@link #lock}: creates the lock file's directory if needed, then takes an {@link
 *       InterProcessLock} on the lock file within a bounded wait. Every writer of the files guarded by
 *       that lock file serializes here, in every process, so the caller compares what is there with
 *       what it expects while holding the lock and no other writer can change it in between;
 *   <li>{@link #commit}: writes the new content into a new {@code .tmp-<name>.<random>} beside the
 *       target ({@code O_EXCL}), {@code fsync}s it and only then renames it over the target with
 *       {@code ATOMIC_MOVE}. A reader therefore sees the old document or the new one, whole, never a
 *       torn one, and never needs a lock (crash atomicity). The {@code fsync} comes before the rename
 *       so that the name can never point at content a power loss would take away. Where the rename
 *       cannot be atomic, {@link AtomicMoveNotSupportedException} is thrown: there is no fallback to a
 *       plain copy, which could leave a torn document;
 *   <li>{@code fsync} of the directory after the rename: the rename is a change of the directory, and
 *       until the directory is flushed a power loss can undo it (durability of the rename);
 *   <li>{@link #close}: releases the lock. The temporary name is deleted on the way out of {@link
 *       #commit} whatever happened (a failure to delete it is logged and left for {@link
 *       FsObjectStore#sweep}).
 * </ol>
 *
 * <p>What each failure leaves: a lock not had within the wait ({@code null} from {@link #lock}) leaves
 * nothing written; a failure before the rename leaves the old document, whole; a failure of the
 * directory {@code fsync} leaves the new document visible, but a power loss may bring back the old one.
 * A killed writer's kernel lock is dropped by the kernel (G4), and its temporary file, invisible to
 * readers, is removed by {@link FsObjectStore#sweep}. Every path goes through {@link ContainedFs}: a link
 * at the lock file, the target's directory or above them is refused ({@link LinkRefusedException})
 * before anything is locked or written (S2).
 */
final class LockedReplace implements AutoCloseable {
  private final FsOps ops;
  private final ContainedFs fs;
  private final InterProcessLock lock;

  private LockedReplace(FsOps ops, ContainedFs fs, InterProcessLock lock) {
    this.ops = ops;
    this.fs = fs;
    this.lock = lock;
  }

  /**
   * Creates the directory of {@code lockFile} if needed, then takes the lock on {@code lockFile} (an
   * empty file, created if absent and never deleted).
   *
   * @return the held lock, or {@code null} when it could not be had within {@code wait}; nothing is
   *     then held or written
   * @throws LinkRefusedException when a link lies at the lock file or above it
   * @throws IOException when the directory could not be created or the lock file opened or locked;
   *     nothing is then held
   */
  static LockedReplace lock(FsOps ops, ContainedFs fs, Path lockFile, Duration wait) throws IOException {
    fs.ensureDirectory(lockFile.getParent());
    fs.requireNoLinks(lockFile);
    InterProcessLock held;
    try {
      held = InterProcessLock.acquire(ops, lockFile, wait);
    } catch (FileSystemException e) {
      throw fs.refusedIfLink(lockFile, e);
    }
    return held == null ? null : new LockedReplace(ops, fs, held);
  }

  /**
   * Replaces {@code target} with {@code content}: temporary file, {@code fsync}, atomic rename, {@code
   * fsync} of the directory (the steps are in the class comment). Call it while holding this lock.
   *
   * @param what what the file is, as failures name it ({@code "pointer"})
   * @throws AtomicMoveNotSupportedException when the filesystem cannot rename atomically; {@code target}
   *     is then unchanged
   * @throws IOException when a step failed: before the rename {@code target} is unchanged, after it
   *     {@code target} holds {@code content} but may revert to the old document after a power loss;
   *     the temporary file is deleted either way (or left for sweep when even that fails)
   */
  void commit(Path target, byte[] content, String what) throws IOException {
    Path dir = target.getParent();
    try (TempFile temp = TempFile.create(ops, dir, target.getFileName().toString())) {
      temp.write(ByteBuffer.wrap(content));
      temp.forceAndClose();
      try {
        ops.atomicMove(temp.path(), target);
      } catch (AtomicMoveNotSupportedException e) {
        throw new AtomicMoveNotSupportedException(temp.path().toString(), target.toString(),
            "atomic rename not supported; refusing to replace the " + what + " non-atomically");
      }
    }
    fs.sync(dir, "replaced the " + what + " " + target + " but could not make it durable");
  }

  /** Releases the lock (kernel lock first, then the in-process one). */
  @Override
  public void close() throws IOException {
    lock.close();
  }
}
