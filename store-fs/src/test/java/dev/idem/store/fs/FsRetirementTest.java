package dev.idem.store.fs;

import dev.idem.core.Idem;
import static dev.idem.store.fs.Fixtures.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.PublishStatus;
import dev.idem.core.publish.Publisher;
import dev.idem.core.retention.Retention;
import dev.idem.core.scan.DivergenceScan;
import dev.idem.core.scan.KeyVerdict;
import dev.idem.core.scan.ScanSummary;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.Retirement;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The filesystem store's retirement mark ({@code _idem/pointers/<pipeline>/retired}) and what the scan
 * sees on this store after gc removed a window and it was published again.
 */
class FsRetirementTest {
  @TempDir Path dir;

  private static RunSpec spec(int n) {
    return RunSpec.of("orders", new Window(1_726_000_000L + 60L * n, 60), 1);
  }

  private List<KeyHistory> history(FsObjectStore store) throws IOException {
    List<KeyHistory> out = new ArrayList<>();
    store.history("orders/", out::add);
    return out;
  }

  @Test
  void gcThenRepublish_theScanSeesOnlyTheNewRecordAndReportsItRepublished() throws Exception {
    FsObjectStore store = FsObjectStore.open(dir.resolve("store"));
    Publisher p = Idem.publisher(store).writer("w").build();
    for (int n = 0; n < 3; n++) {
      p.publish(spec(n), bytes("window " + n));
    }
    Retention.Report gc = new Retention(store, Clock.systemUTC(), "idem test").run("orders",
        new Retention.Policy(1, null, Duration.ZERO, false));
    assertEquals(2, gc.deleted().size());
    Path file = dir.resolve("store/_idem/pointers/orders/retired");
    assertArrayEquals(gc.retirement().toBytes(), Files.readAllBytes(file));

    PublishReport again = Idem.publisher(store).writer("late").build().publish(spec(0), bytes("window 0, rebuilt differently"));
    assertEquals(PublishStatus.REPUBLISHED, again.status());
    assertEquals(gc.retirement(), again.retired());

    List<KeyHistory> h = history(store);
    String k0 = spec(0).outputKey().toString();
    KeyHistory republished = h.stream().filter(x -> x.key().equals(k0)).findFirst().orElseThrow();
    assertEquals(List.of(HistoryEntry.Kind.VERSION), republished.entries().stream().map(HistoryEntry::kind).toList(),
        "gc removed the old records: the history holds the new publish only");
    List<String> seen = new ArrayList<>();
    ScanSummary s = new DivergenceScan().run(store, "orders/", new DivergenceScan.Listener() {
      @Override
      public void divergent(KeyVerdict v) {
        seen.add("DIVERGENT " + v.key());
      }

      @Override
      public void republished(KeyVerdict v) {
        seen.add("REPUBLISHED " + v.key());
      }
    });
    assertEquals(List.of("REPUBLISHED " + k0), seen);
    assertTrue(s.clean(), s.toString());
  }

  @Test
  void recordsLeftByACrashedGc_splitAtTheMark_republishedNotDivergent() throws Exception {
    FsObjectStore store = FsObjectStore.open(dir.resolve("store"));
    String k = spec(0).outputKey().toString();
    store.putIfAbsent(k, bytes("alpha"), "w");
    Retirement mark = new Retirement("orders", spec(0).window().startEpochSecond(), Instant.now(), "idem test");
    store.raiseRetirement(mark);
    assertTrue(store.delete(k)); // and the run died before deleteRecords
    store.putIfAbsent(k, bytes("omega"), "w");

    KeyHistory h = history(store).get(0);
    assertEquals(2, h.entries().size(), h.toString());
    assertTrue(KeyVerdict.of(h).divergent(), "without the mark: two CREATED records with different bytes");
    KeyVerdict v = KeyVerdict.of(h, store.readRetirement("orders").orElseThrow());
    assertFalse(v.divergent(), v.toString());
    assertTrue(v.republished());
  }

  @Test
  void malformedMark_refusedAndNeverOverwritten() throws Exception {
    FsObjectStore store = FsObjectStore.open(dir.resolve("store"));
    Path file = dir.resolve("store/_idem/pointers/orders/retired");
    Files.createDirectories(file.getParent());
    Files.writeString(file, "not a mark\n");

    assertThrows(Retirement.MalformedRetirementException.class, () -> store.readRetirement("orders"));
    assertThrows(Retirement.MalformedRetirementException.class,
        () -> store.raiseRetirement(new Retirement("orders", 60, Instant.EPOCH, "idem test")));
    assertEquals("not a mark\n", Files.readString(file, StandardCharsets.UTF_8));
  }

  @Test
  void lockHeldByAnotherWriter_raiseFailsWithinTheLockTimeoutWritingNothing() throws Exception {
    FsObjectStore store = FsObjectStore.open(dir.resolve("store"),
        FsObjectStore.Options.defaults().withLockTimeout(Duration.ofMillis(100)));
    Path pointerDir = dir.resolve("store/_idem/pointers/orders");
    Files.createDirectories(pointerDir);
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread holder = new Thread(() -> {
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
    try {
      IOException e = assertThrows(IOException.class,
          () -> store.raiseRetirement(new Retirement("orders", 60, Instant.EPOCH, "idem test")));
      assertTrue(e.getMessage().contains("latest.lock") && e.getMessage().contains("nothing was written"), e.getMessage());
      assertFalse(Files.exists(pointerDir.resolve("retired")));
    } finally {
      release.countDown();
      holder.join();
    }
    assertEquals(60, store.raiseRetirement(new Retirement("orders", 60, Instant.EPOCH, "idem test"))
        .windowStart(), "once the lock is free the raise goes through");
  }
}
