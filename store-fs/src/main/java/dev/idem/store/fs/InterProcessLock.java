package dev.idem.store.fs;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An exclusive lock on a lock file, good across threads and processes, taken with a bounded wait.
 *
 * <p>Two layers, taken in this order and released in reverse:
 *
 * <ol>
 *   <li>an in-process {@link ReentrantLock}, one per lock-file path for the whole JVM (static, so two
 *       stores on one root in one JVM share it): kernel file locks belong to the process, so without
 *       it two threads would either both "hold" the lock or get {@link OverlappingFileLockException};
 *   <li>a kernel lock ({@link FileChannel#tryLock()}, {@code fcntl} on Linux) on the lock file, polled
 *       with a short, growing pause until the deadline. The kernel drops it when the holder's process
 *       dies, however it dies, so a killed writer never leaves a stale lock (G4).
 * </ol>
 *
 * The lock file itself is created once and never deleted or written: deleting a lock file while
 * someone waits on it would let two processes lock two different files of the same name.
 *
 * <p>Waiting is bounded by the timeout; a zero timeout tries each layer once.
 */
final class InterProcessLock implements AutoCloseable {
  private static final ConcurrentHashMap<Path, ReentrantLock> LOCAL = new ConcurrentHashMap<>();
  private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(25);

  private final ReentrantLock local;
  private final FileChannel channel;
  private final FileLock lock;

  private InterProcessLock(ReentrantLock local, FileChannel channel, FileLock lock) {
    this.local = local;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Takes the lock on {@code lockFile} (created if absent; its directory must exist).
   *
   * @return the held lock, or {@code null} when it could not be had within {@code timeout}
   * @throws IOException when the lock file could not be opened or locked; nothing is then held
   */
  static InterProcessLock acquire(FsOps ops, Path lockFile, Duration timeout) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    ReentrantLock local = LOCAL.computeIfAbsent(lockFile.toAbsolutePath().normalize(), p -> new ReentrantLock());
    try {
      if (!local.tryLock(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
        return null;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for lock " + lockFile);
    }
    FileChannel channel = null;
    try {
      channel = ops.openLockFile(lockFile);
      long pause = FIRST_PAUSE_NANOS;
      while (true) {
        FileLock lock = tryOnce(ops, channel, lockFile);
        if (lock != null) {
          return new InterProcessLock(local, channel, lock);
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          closeQuietly(channel);
          local.unlock();
          return null;
        }
        LockSupport.parkNanos(Math.min(pause, left));
        pause = Math.min(pause * 2, MAX_PAUSE_NANOS);
        if (Thread.interrupted()) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while waiting for lock " + lockFile);
        }
      }
    } catch (IOException | RuntimeException | Error e) {
      if (channel != null) {
        closeQuietly(channel);
      }
      local.unlock();
      throw e;
    }
  }

  private static FileLock tryOnce(FsOps ops, FileChannel channel, Path lockFile) throws IOException {
    try {
      return ops.tryLock(channel);
    } catch (OverlappingFileLockException e) {
      // Something else in this JVM locked the file outside this class: wait for it like for a process.
      return null;
    } catch (IOException e) {
      throw FsObjectStore.failure("could not lock " + lockFile, e);
    }
  }

  /** Releases the kernel lock (by closing its channel) and then the in-process lock. */
  @Override
  public void close() throws IOException {
    try {
      try {
        lock.release();
      } finally {
        channel.close();
      }
    } finally {
      local.unlock();
    }
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // Closing drops the (untaken) lock either way; nothing to report.
    }
  }
}
