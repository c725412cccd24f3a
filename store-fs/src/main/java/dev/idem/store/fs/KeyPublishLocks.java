package dev.idem.store.fs;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * Lets a publisher that finds a key empty wait while another publisher of the same key copies it,
 * instead of copying and forcing the same bytes itself. The replicas of a rolling deployment reach a
 * key together; without this, each of them writes the whole payload and queues a device flush behind
 * the others', only to lose the link and answer IDENTICAL.
 *
 * <p><b>An economy, never a safety rule.</b> {@code link(2)} still decides who creates the object
 * (P3), and nothing here is needed for it. A lock that cannot be had (the wait ran out, the
 * filesystem has no byte-range locks, any I/O error) only means the publisher copies, as it would
 * without this class. The one exception is a symbolic link at the lock file's name, which is refused
 * like a link anywhere under the root (S2).
 *
 * <p><b>Two layers.</b> In this JVM, the first thread to ask for a key holds it and the others wait for
 * it to be done (one future per key, completed by the holder, which wakes every waiter at once: no
 * waiter queues behind another), then look again without taking the lock. Across processes, the
 * holder takes a kernel lock ({@code fcntl}) on one byte of the lock file, chosen by a 62-bit hash of
 * the key (two keys that share a byte only wait for each other); a process that finds it taken polls
 * until it has it, every millisecond. The lock file is {@value #FILE_NAME} in the key's
 * records directory, which the publish has just checked and created: a {@code .tmp-} name, so it can
 * never be a key's segment and listings skip it; {@link TempFile#sweep} leaves it alone. It is created
 * once and never written or deleted.
 *
 * <p><b>One channel per lock file per JVM</b>, opened by the first holder and closed by the last:
 * closing any descriptor of a file drops every {@code fcntl} lock the process holds on it, so two
 * channels would release each other's locks. A killed holder's kernel lock is dropped by the kernel.
 */
final class KeyPublishLocks {
  static final String FILE_NAME = TempFile.PREFIX + "publish.lock";
  /** The keys a thread of this JVM holds, each with the future its waiters wait on. */
  private static final ConcurrentHashMap<String, CompletableFuture<Void>> HOLDERS = new ConcurrentHashMap<>();
  private static final ConcurrentHashMap<Path, SharedChannel> CHANNELS = new ConcurrentHashMap<>();
  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private KeyPublishLocks() {}

  /** What {@link #acquire} got, to close: the key held or not, and whether it had to wait for another holder. */
  interface Held extends AutoCloseable {
    /** True when another publisher of the key held it first: it may have published the key meanwhile. */
    boolean waited();

    /** Releases whatever is held; never fails (a kernel lock not released goes with its channel). */
    @Override
    void close();
  }

  /**
   * Takes the publish lock of {@code key}, whose lock file is {@code lockFile}, waiting at most {@code
   * wait} for another holder. Never throws for a lock it cannot have: it returns a {@link Held} that
   * holds nothing.
   *
   * @throws LinkRefusedException when a symbolic link is at the lock file's name
   */
  static Held acquire(FsOps ops, ContainedFs fs, Path lockFile, String key, Duration wait) throws IOException {
    long deadline = System.nanoTime() + wait.toNanos();
    String id = lockFile + "\0" + key;
    CompletableFuture<Void> done = new CompletableFuture<>();
    CompletableFuture<Void> holder = HOLDERS.putIfAbsent(id, done);
    if (holder != null) {
      try {
        holder.get(wait.toNanos(), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        // Waited as long as allowed: look again and copy if need be.
      }
      return Lock.NOTHING_AFTER_WAITING;
    }
    boolean waited = false;
    SharedChannel channel = null;
    try {
      channel = SharedChannel.open(ops, fs, lockFile);
      long position = position(key);
      while (true) {
        FileLock kernel = tryOnce(ops, channel.channel, position);
        if (kernel != null) {
          return new Lock(id, lockFile, done, channel, kernel, waited);
        }
        waited = true;
        long left = deadline - System.nanoTime();
        if (left <= 0 || Thread.currentThread().isInterrupted()) {
          break;
        }
        LockSupport.parkNanos(Math.min(POLL_NANOS, left));
      }
    } catch (LinkRefusedException e) {
      unwind(id, lockFile, done, channel);
      throw e;
    } catch (IOException | RuntimeException e) {
      // An economy only: no lock means copying as before.
    } catch (Error e) {
      unwind(id, lockFile, done, channel);
      throw e;
    }
    unwind(id, lockFile, done, channel);
    return waited ? Lock.NOTHING_AFTER_WAITING : Lock.NOTHING;
  }

  /** Gives back what this JVM's holder of {@code id} took, and wakes the threads waiting for it. */
  private static void unwind(String id, Path lockFile, CompletableFuture<Void> done, SharedChannel channel) {
    if (channel != null) {
      channel.release(lockFile);
    }
    HOLDERS.remove(id, done);
    done.complete(null);
  }

  /** The byte of the lock file that stands for {@code key}: FNV-1a over its UTF-8 bytes, 62 bits. */
  static long position(String key) {
    long h = 0xcbf29ce484222325L;
    for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
      h = (h ^ (b & 0xff)) * 0x100000001b3L;
    }
    return h >>> 2;
  }

  private static FileLock tryOnce(FsOps ops, FileChannel channel, long position) throws IOException {
    try {
      return ops.tryLock(channel, position);
    } catch (OverlappingFileLockException e) {
      return null; // this JVM holds that byte for a key sharing it: wait for it like for a process
    }
  }

  /** The JVM's one channel to a lock file and how many holders use it. */
  private static final class SharedChannel {
    final FileChannel channel;
    int users; // guarded by the map's compute

    private SharedChannel(FileChannel channel) {
      this.channel = channel;
    }

    static SharedChannel open(FsOps ops, ContainedFs fs, Path lockFile) throws IOException {
      try {
        return CHANNELS.compute(lockFile, (p, c) -> {
          SharedChannel s = c;
          if (s == null) {
            try {
              s = new SharedChannel(ops.openLockFile(p));
            } catch (IOException e) {
              throw new Opening(e);
            }
          }
          s.users++;
          return s;
        });
      } catch (Opening e) {
        // O_NOFOLLOW meeting a link fails with a plain IOException ("Too many levels of symbolic links").
        throw fs.refusedIfLink(lockFile, (IOException) e.getCause());
      }
    }

    /** Closes the channel when this was its last user (which drops this JVM's kernel locks on the file). */
    void release(Path lockFile) {
      CHANNELS.computeIfPresent(lockFile, (p, c) -> {
        if (--c.users > 0) {
          return c;
        }
        try {
          c.channel.close();
        } catch (IOException ignored) {
          // Closing drops the locks either way; nothing to report for an economy.
        }
        return null;
      });
    }
  }

  /** Carries an {@link IOException} out of a map's compute function. */
  private static final class Opening extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Opening(IOException cause) {
      super(cause);
    }
  }

  private static final class Lock implements Held {
    static final Lock NOTHING = new Lock(null, null, null, null, null, false);
    static final Lock NOTHING_AFTER_WAITING = new Lock(null, null, null, null, null, true);

    private final String id;
    private final Path lockFile;
    private final CompletableFuture<Void> done;
    private final SharedChannel channel;
    private final FileLock kernel;
    private final boolean waited;

    Lock(String id, Path lockFile, CompletableFuture<Void> done, SharedChannel channel, FileLock kernel,
        boolean waited) {
      this.id = id;
      this.lockFile = lockFile;
      this.done = done;
      this.channel = channel;
      this.kernel = kernel;
      this.waited = waited;
    }

    @Override
    public boolean waited() {
      return waited;
    }

    @Override
    public void close() {
      if (kernel == null) {
        return;
      }
      try {
        kernel.release();
      } catch (IOException | RuntimeException ignored) {
        // Released with the channel below at the latest.
      }
      unwind(id, lockFile, done, channel);
    }
  }
}
