package dev.idem.store.fs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link InterProcessLock} leaves nothing held on every way out: a lock not had by the deadline, a
 * kernel lock call that fails, an interrupt while polling, and a normal release each close the lock
 * file's channel and free the in-process lock, which another thread (the in-process lock is reentrant,
 * so only another thread can tell) then takes at once.
 */
class InterProcessLockTest {
  @TempDir Path dir;

  /** The real calls, remembering each channel opened on a lock file; {@link #tryLock} can be replaced. */
  private static class Tracking extends ForwardingOps {
    final List<FileChannel> opened = new ArrayList<>();

    @Override
    public FileChannel openLockFile(Path file) throws IOException {
      FileChannel ch = super.openLockFile(file);
      opened.add(ch);
      return ch;
    }
  }

  /** Whether another thread takes the lock at once (zero timeout), then lets it go. */
  private static boolean freeForAnotherThread(Path lockFile) throws Exception {
    return CompletableFuture.supplyAsync(() -> {
      try (InterProcessLock l = InterProcessLock.acquire(FsOps.real(), lockFile, Duration.ZERO)) {
        return l != null;
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }).get(30, TimeUnit.SECONDS);
  }

  @Test
  void acquire_lockedElsewhereUntilTheDeadline_nullChannelClosedInProcessLockFree() throws Exception {
    Path lockFile = dir.resolve("busy.lock");
    Tracking ops = new Tracking();
    try (FileChannel other = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = other.lock()) {
      assertTrue(held.isValid());
      assertNull(InterProcessLock.acquire(ops, lockFile, Duration.ZERO));
    }
    assertFalse(ops.opened.get(0).isOpen(), "the channel of a lock not had is closed");
    assertTrue(freeForAnotherThread(lockFile), "the in-process lock was released with the BUSY answer");
  }

  @Test
  void acquire_kernelLockCallFails_errorNamesTheFileChannelClosedInProcessLockFree() throws Exception {
    Path lockFile = dir.resolve("failing.lock");
    Tracking ops = new Tracking() {
      @Override
      public FileLock tryLock(FileChannel channel) throws IOException {
        throw new IOException("injected");
      }
    };
    IOException e = assertThrows(IOException.class, () -> InterProcessLock.acquire(ops, lockFile, Duration.ofSeconds(5)));
    assertTrue(e.getMessage().contains(lockFile.toString()), e.getMessage());
    assertFalse(ops.opened.get(0).isOpen());
    assertTrue(freeForAnotherThread(lockFile));
  }

  @Test
  void acquire_interruptedWhilePolling_interruptedIoErrorFlagKeptNothingHeld() throws Exception {
    Path lockFile = dir.resolve("interrupted.lock");
    Tracking ops = new Tracking() {
      @Override
      public FileLock tryLock(FileChannel channel) {
        Thread.currentThread().interrupt(); // as if interrupted while the kernel lock was held elsewhere
        return null;
      }
    };
    try {
      assertThrows(InterruptedIOException.class, () -> InterProcessLock.acquire(ops, lockFile, Duration.ofSeconds(30)));
      assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
    } finally {
      Thread.interrupted();
    }
    assertFalse(ops.opened.get(0).isOpen());
    assertTrue(freeForAnotherThread(lockFile));
  }

  @Test
  void acquire_interruptedBeforeTheInProcessLock_interruptedIoErrorFlagKeptNothingOpened() throws Exception {
    Path lockFile = dir.resolve("interrupted-early.lock");
    Tracking ops = new Tracking();
    Thread.currentThread().interrupt();
    try {
      assertThrows(InterruptedIOException.class, () -> InterProcessLock.acquire(ops, lockFile, Duration.ofSeconds(30)));
      assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
    } finally {
      Thread.interrupted();
    }
    assertTrue(ops.opened.isEmpty());
    assertTrue(freeForAnotherThread(lockFile));
  }

  @Test
  void close_channelClosedAndInProcessLockFree() throws Exception {
    Path lockFile = dir.resolve("released.lock");
    Tracking ops = new Tracking();
    InterProcessLock lock = InterProcessLock.acquire(ops, lockFile, Duration.ZERO);
    assertNotNull(lock);
    assertFalse(freeForAnotherThread(lockFile), "held");
    lock.close();
    assertFalse(ops.opened.get(0).isOpen());
    assertTrue(freeForAnotherThread(lockFile));
  }
}
