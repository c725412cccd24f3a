package dev.idem.store.fs;

import dev.idem.core.store.Retirement;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The pipelines' retirement marks of an {@link FsObjectStore} ({@link FsObjectStore#readRetirement},
 * {@link FsObjectStore#raiseRetirement}): one small file per pipeline, {@code
 * _idem/pointers/<pipeline>/retired}, holding a {@link Retirement} document. It lives beside the
 * pointer and is written under the pointer's lock ({@code latest.lock}), so it needs no lock of its
 * own and no new directory tree.
 *
 * <p>Every path goes through {@link ContainedFs}: a link at the pointer directory, at {@code retired},
 * at the lock file or above them is refused ({@link LinkRefusedException}) before anything is read,
 * locked or written.
 *
 * <p>A read never locks: the file is only ever replaced by {@link LockedReplace}'s atomic rename, so a
 * reader sees one whole document. A raise:
 *
 * <ol>
 *   <li>takes the pipeline's lock ({@link LockedReplace#lock}) within {@link
 *       FsObjectStore.Options#lockTimeout()} (or what is left of the store's deadline), else fails with
 *       an {@link IOException} having written nothing;
 *   <li>re-reads the mark under the lock: a malformed document is an error ({@link
 *       Retirement.MalformedRetirementException}), never overwritten; a mark already at or above the
 *       proposed window start is kept and returned, nothing written (forward only: two concurrent gc
 *       runs serialize on the lock, and the mark ends at the higher of the two);
 *   <li>replaces {@code retired} ({@link LockedReplace#commit}: {@code .tmp-retired.<random>}, {@code
 *       fsync}, {@code ATOMIC_MOVE} with no fallback, {@code fsync} of the directory) and releases the
 *       lock.
 * </ol>
 *
 * A failure leaves {@code retired} holding the old or the new document, whole, and the lock released
 * ({@link LockedReplace} says which failure leaves which).
 */
final class RetirementFiles {
  static final String FILE = "retired";
  private static final int READ_LIMIT = 8 * 1024;

  private final Layout layout;
  private final ContainedFs fs;
  private final FsOps ops;

  RetirementFiles(Layout layout, ContainedFs fs, FsOps ops) {
    this.layout = layout;
    this.fs = fs;
    this.ops = ops;
  }

  /** See {@link FsObjectStore#readRetirement}. */
  Optional<Retirement> read(String pipeline) throws IOException {
    return Optional.ofNullable(read(layout.pointerDir(pipeline).resolve(FILE), pipeline));
  }

  /**
   * See {@link FsObjectStore#raiseRetirement}; the steps are in the class comment.
   *
   * @param wait how long the lock may be waited for
   * @param within that wait as the failure names it
   */
  Retirement raise(Retirement proposed, Duration wait, String within) throws IOException {
    Objects.requireNonNull(proposed, "proposed");
    Path dir = layout.pointerDir(proposed.pipeline());
    Path file = dir.resolve(FILE);
    Path lockFile = dir.resolve(PointerFiles.LOCK_FILE);
    LockedReplace replace = LockedReplace.lock(ops, fs, lockFile, wait);
    if (replace == null) {
      throw new IOException("could not take the lock " + lockFile + " within " + within
          + " to raise the retirement mark of " + proposed.pipeline() + "; nothing was written");
    }
    try (replace) {
      Retirement current = read(file, proposed.pipeline());
      if (current != null && current.windowStart() >= proposed.windowStart()) {
        return current;
      }
      replace.commit(file, proposed.toBytes(), "retirement mark");
      return proposed;
    }
  }

  private Retirement read(Path file, String pipeline) throws IOException {
    InputStream opened = fs.open(file);
    if (opened == null) {
      return null;
    }
    byte[] bytes;
    try (InputStream in = opened) {
      bytes = in.readNBytes(READ_LIMIT + 1);
    }
    return Retirement.parse(bytes, file.toString(), pipeline);
  }
}
