package dev.idem.store.fs;

import dev.idem.core.store.Retirement;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
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
 * <p>Every path goes through {@link StorePaths}: a link at the pointer directory, at {@code retired},
 * at the lock file or above them is refused ({@link LinkRefusedException}) before anything is read,
 * locked or written.
 *
 * <p>A read never locks: the file is only ever replaced by an atomic rename, so a reader sees one whole
 * document. A raise:
 *
 * <ol>
 *   <li>takes the pipeline's {@link InterProcessLock} within {@link FsObjectStore.Options#lockTimeout()}
 *       (or what is left of the store's deadline), else fails with an {@link IOException} having written nothing;
 *   <li>re-reads the mark under the lock: a malformed document is an error ({@link
 *       Retirement.MalformedRetirementException}), never overwritten; a mark already at or above the
 *       proposed window start is kept and returned, nothing written (forward only: two concurrent gc
 *       runs serialize on the lock, and the mark ends at the higher of the two);
 *   <li>writes {@code .tmp-retired.<random>}, {@code fsync}s it, renames it over {@code retired} with
 *       {@code ATOMIC_MOVE} (no fallback), {@code fsync}s the directory;
 *   <li>deletes the temporary file if it is still there and releases the lock, in one cleanup path.
 * </ol>
 *
 * A failure leaves {@code retired} holding the old or the new document, whole; after a failed directory
 * {@code fsync} the new one is visible but may revert to the old one after a power loss. A killed
 * writer's temporary file is removed by {@link FsObjectStore#sweep}.
 */
final class RetirementFiles {
  static final String FILE = "retired";
  private static final String LOCK_FILE = "latest.lock";
  private static final int READ_LIMIT = 8 * 1024;

  private final Layout layout;
  private final StorePaths paths;
  private final FsOps ops;

  RetirementFiles(Layout layout, StorePaths paths, FsOps ops) {
    this.layout = layout;
    this.paths = paths;
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
    paths.ensureDirectory(dir);
    Path file = dir.resolve(FILE);
    Path lockFile = dir.resolve(LOCK_FILE);
    paths.requireNoLinks(lockFile);
    InterProcessLock lock;
    try {
      lock = InterProcessLock.acquire(ops, lockFile, wait);
    } catch (FileSystemException e) {
      throw paths.refusedIfLink(lockFile, e);
    }
    if (lock == null) {
      throw new IOException("could not take the lock " + lockFile + " within " + within
          + " to raise the retirement mark of " + proposed.pipeline() + "; nothing was written");
    }
    try (lock) {
      Retirement current = read(file, proposed.pipeline());
      if (current != null && current.windowStart() >= proposed.windowStart()) {
        return current;
      }
      try (TempFile temp = TempFile.create(ops, dir, FILE)) {
        temp.write(ByteBuffer.wrap(proposed.toBytes()));
        temp.forceAndClose();
        try {
          ops.atomicMove(temp.path(), file);
        } catch (AtomicMoveNotSupportedException e) {
          throw new AtomicMoveNotSupportedException(temp.path().toString(), file.toString(),
              "atomic rename not supported; refusing to replace the retirement mark non-atomically");
        }
      }
      paths.sync(dir, "raised the retirement mark " + file + " but could not make it durable");
      return proposed;
    }
  }

  private Retirement read(Path file, String pipeline) throws IOException {
    InputStream opened = paths.open(file);
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
