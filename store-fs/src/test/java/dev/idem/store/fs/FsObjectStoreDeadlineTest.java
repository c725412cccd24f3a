package dev.idem.store.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Deadline;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.Retirement;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store given a caller's overall deadline (B2) waits for a pipeline's lock no longer than the deadline
 * leaves, however long its own lock timeout: a lock another writer never lets go costs the time left,
 * and the outcome is what the lock timeout's would be (BUSY, a raise that fails naming the deadline).
 * The deadline runs on a fake ticker, already passed; the store's own timeout is a minute, which the
 * test never waits.
 */
class FsObjectStoreDeadlineTest {
  private static final Duration HANG = Duration.ofSeconds(30);

  @TempDir
  Path dir;

  private final AtomicLong nanos = new AtomicLong();
  private final CountDownLatch held = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private Thread holder;
  private Path root;

  @BeforeEach
  void holdThePointerLock() throws Exception {
    root = dir.resolve("store");
    Path pointerDir = root.resolve("_idem/pointers/orders");
    Files.createDirectories(pointerDir);
    // Another writer that takes the pipeline's lock and never lets go.
    holder = new Thread(() -> {
      try {
        InterProcessLock lock = InterProcessLock.acquire(FsOps.real(), pointerDir.resolve("latest.lock"),
            Duration.ofSeconds(5));
        try {
          held.countDown();
          release.await();
        } finally {
          lock.close();
        }
      } catch (IOException | InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    holder.start();
    held.await();
  }

  @AfterEach
  void letGo() throws InterruptedException {
    release.countDown();
    holder.join();
  }

  private FsObjectStore storeWithDeadlinePassed() throws IOException {
    Deadline overall = Deadline.after(Duration.ofSeconds(2), "--max-time", nanos::get);
    nanos.addAndGet(Duration.ofSeconds(3).toNanos());
    return FsObjectStore.open(root, FsObjectStore.Options.defaults().withLockTimeout(Duration.ofMinutes(1))
        .withDeadline(overall));
  }

  @Test
  void compareAndSetPointer_lockHeldDeadlinePassed_busyWithoutWaitingItsTimeout() throws IOException {
    FsObjectStore store = storeWithDeadlinePassed();
    String key = RunSpec.of("orders", new Window(60, 60), 1).outputKey().toString();
    store.putIfAbsent(key, Payload.ofBytes(new byte[] {1}), "w");
    Pointer next = Pointer.to(store.stat(key).orElseThrow(), 60, 1, "w", Instant.EPOCH);

    CasResult r = assertTimeoutPreemptively(HANG, () -> store.compareAndSetPointer("orders", null, next));

    assertEquals(CasResult.BUSY, r);
    assertEquals(CasResult.BUSY, assertTimeoutPreemptively(HANG,
        () -> store.compareAndSetPointer("orders", null, next, Duration.ofMinutes(5))));
    assertTrue(store.readPointer("orders").isEmpty(), "nothing written");
  }

  @Test
  void raiseRetirement_lockHeldDeadlinePassed_failsNamingTheDeadline() throws IOException {
    FsObjectStore store = storeWithDeadlinePassed();

    IOException e = assertTimeoutPreemptively(HANG, () -> assertThrows(IOException.class,
        () -> store.raiseRetirement(new Retirement("orders", 60, Instant.EPOCH, "idem test"))));

    assertTrue(e.getMessage().contains("latest.lock within 0s (what was left of the 2s deadline (--max-time))"),
        e.getMessage());
    assertFalse(Files.exists(root.resolve("_idem/pointers/orders/retired")), "nothing written");
  }
}
