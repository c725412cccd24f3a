package dev.idem.store.fs;

import dev.idem.core.Sha256;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The pipelines' {@code latest} pointers of an {@link FsObjectStore} ({@link
 * FsObjectStore#readPointer}, {@link FsObjectStore#compareAndSetPointer}): {@code
 * _idem/pointers/<pipeline>/latest} and its lock file {@code latest.lock}, which is never deleted.
 *
 * <p>Every path goes through {@link ContainedFs}: a link at the pointer directory, at {@code latest} or at
 * {@code latest.lock} (or above them) is refused before anything is read, locked or written.
 *
 * <p>The token of a pointer is the SHA-256 of its file's bytes. A read never locks: {@code latest} is
 * only ever replaced by {@link LockedReplace}'s atomic rename, so a reader sees one whole document
 * (P1). A compare-and-swap:
 *
 * <ol>
 *   <li>takes the pipeline's lock ({@link LockedReplace#lock} on {@code latest.lock}) within {@link
 *       FsObjectStore.Options#lockTimeout()} (or the caller's shorter wait), else returns BUSY having
 *       written nothing;
 *   <li>re-reads {@code latest} under the lock: a malformed document is an error ({@link
 *       Pointer.MalformedPointerException}), never overwritten; a token other than the expected one
 *       (or a file where none was expected, or the reverse) returns CONFLICT;
 *   <li>{@code fsync}s the object the new pointer names and its directory, so the pointer never names
 *       an object a power loss could take away (G1), unless this store instance created that object
 *       (then both were already synced by its publish) or a CREATED record read now vouches for it
 *       (one is created only after its object's directory fsync);
 *   <li>replaces {@code latest} ({@link LockedReplace#commit}: {@code .tmp-latest.<random>}, {@code
 *       fsync}, {@code ATOMIC_MOVE} with no fallback, {@code fsync} of the directory) and releases the
 *       lock.
 * </ol>
 *
 * A failure leaves {@code latest} holding the old or the new document, whole, and the lock released
 * ({@link LockedReplace} says which failure leaves which). Calls are linearizable: all of them, in
 * every process, serialize on the lock.
 */
final class PointerFiles {
  static final String POINTER_FILE = "latest";
  static final String LOCK_FILE = "latest.lock";
  private static final int POINTER_READ_LIMIT = 16 * 1024;

  private final Layout layout;
  private final ContainedFs fs;
  private final FsOps ops;
  private final Duration lockTimeout;
  private final Predicate<String> knownDurable;

  PointerFiles(Layout layout, ContainedFs fs, FsOps ops, Duration lockTimeout, Predicate<String> knownDurable) {
    this.layout = layout;
    this.fs = fs;
    this.ops = ops;
    this.lockTimeout = lockTimeout;
    this.knownDurable = knownDurable;
  }

  /** See {@link FsObjectStore#readPointer}. */
  Optional<PointerState> read(String pipeline) throws IOException {
    Path latest = layout.pointerDir(pipeline).resolve(POINTER_FILE);
    byte[] bytes = readPointerBytes(fs, latest);
    if (bytes == null) {
      return Optional.empty();
    }
    return Optional.of(new PointerState(parsePointer(bytes, latest, pipeline), Sha256.of(bytes)));
  }

  /**
   * See {@link FsObjectStore#compareAndSetPointer}; the steps are in the class comment. The lock wait is
   * the store's lock timeout, or {@code maxWait} when that is shorter ({@code null}: no caller limit).
   */
  CasResult compareAndSet(String pipeline, String expectedToken, Pointer next, Duration maxWait) throws IOException {
    Path dir = layout.pointerDir(pipeline);
    Objects.requireNonNull(next, "next");
    if (!next.pipeline().equals(pipeline)) {
      throw new IllegalArgumentException("pointer for pipeline " + next.pipeline() + " offered to pipeline " + pipeline);
    }
    Path latest = dir.resolve(POINTER_FILE);
    Duration wait = maxWait != null && maxWait.compareTo(lockTimeout) < 0 ? maxWait : lockTimeout;
    LockedReplace replace = LockedReplace.lock(ops, fs, dir.resolve(LOCK_FILE), wait);
    if (replace == null) {
      return CasResult.BUSY;
    }
    try (replace) {
      byte[] current = readPointerBytes(fs, latest);
      if (current != null) {
        parsePointer(current, latest, pipeline);
      }
      String token = current == null ? null : Sha256.of(current);
      if (!Objects.equals(token, expectedToken)) {
        return CasResult.CONFLICT;
      }
      makeDurable(next.key(), next.sha256());
      replace.commit(latest, next.toBytes(), "pointer");
      return CasResult.SWAPPED;
    }
  }

  /** The bytes of {@code latest} (at most one more than the limit), or {@code null} if there is none; links refused. */
  private static byte[] readPointerBytes(ContainedFs fs, Path latest) throws IOException {
    InputStream opened = fs.open(latest);
    if (opened == null) {
      return null;
    }
    try (InputStream in = opened) {
      return in.readNBytes(POINTER_READ_LIMIT + 1);
    }
  }

  private static Pointer parsePointer(byte[] bytes, Path latest, String pipeline) throws IOException {
    return Pointer.parse(bytes, latest.toString(), pipeline);
  }

  /**
   * Syncs the object a pointer is about to name, and its directory entry, if it is here (G1). Skipped
   * for an object this store instance created itself: it was forced before its link and its directory
   * fsynced after, so it is durable already (the common publish-then-advance path saves two fsyncs).
   * Skipped too, after reading it under the lock, when a CREATED record vouches for the object as it is
   * now: such a record is created only after its object's directory fsync returned, whoever linked it,
   * so a late replica advancing to the key another replica filled flushes only the pointer.
   */
  private void makeDurable(String key, String sha256) throws IOException {
    if (knownDurable.test(key)) {
      return;
    }
    Path object = layout.resolveKey(key);
    BasicFileAttributes a = fs.regularFile(object);
    if (a == null) {
      return; // PointerAdvancer checked it exists; retention may have removed it since, which is its call.
    }
    if (StoredObjects.vouchedByName(fs, layout, key, object, a, sha256) != null
        || StoredObjects.durableByRecord(fs, layout, key, object)) {
      return;
    }
    try (FileChannel ch = ops.openForSync(object)) {
      ops.force(ch);
    } catch (NoSuchFileException gone) {
      return;
    } catch (IOException e) {
      throw FsObjectStore.failure("could not make " + object + " durable before pointing at it", e);
    }
    fs.sync(object.getParent(), "could not make " + object + " durable before pointing at it");
  }
}
