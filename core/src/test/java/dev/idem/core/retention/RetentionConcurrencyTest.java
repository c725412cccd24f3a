package dev.idem.core.retention;

import dev.idem.core.Idem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.publish.AdvanceStatus;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.Publisher;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.testing.InMemoryObjectStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * gc racing live publishers, a late old replica and pointer readers, on real threads: nothing the
 * pointer names (or anything newer) is ever missing, no publisher's advance fails because gc removed
 * its object, and old generations behind the pointer do get removed.
 */
class RetentionConcurrencyTest {
  private static final long MIN = 60;

  /** A clock the test moves: objects written "two hours ago" are past the grace, new ones are not. */
  static final class MovableClock extends Clock {
    final AtomicReference<Instant> now = new AtomicReference<>();

    MovableClock(Instant start) {
      now.set(start);
    }

    @Override public ZoneId getZone() { return ZoneOffset.UTC; }
    @Override public Clock withZone(ZoneId zone) { return this; }
    @Override public Instant instant() { return now.get(); }
  }

  @Test
  void run_racingPublishersAdvancesAndReaders_neverRemovesWhatThePointerReaches() throws Exception {
    Instant now = Instant.ofEpochSecond(1_000_000 * MIN);
    MovableClock storeClock = new MovableClock(now.minus(Duration.ofHours(2)));
    InMemoryObjectStore store = new InMemoryObjectStore(storeClock);
    Clock gcClock = Clock.fixed(now, ZoneOffset.UTC);
    // 40 old generations, written two hours ago and advanced through.
    Publisher old = Idem.publisher(store).writer("old-fleet").clock(gcClock).pointer(new PointerAdvancer(store, 1000, 0)).build();
    long base = 900_000 * MIN;
    for (int i = 0; i < 40; i++) {
      old.publish(RunSpec.of("daily", new Window(base + i * MIN, MIN), 1), Payload.ofBytes(("g" + i).getBytes()));
    }
    storeClock.now.set(now); // everything from here on is inside the grace period

    AtomicBoolean stop = new AtomicBoolean();
    ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    List<PublishReport> reports = new ArrayList<>();
    CountDownLatch start = new CountDownLatch(1);

    Thread publisher = new Thread(() -> {
      Publisher p = Idem.publisher(store).writer("new-replica").clock(gcClock).pointer(new PointerAdvancer(store, 1000, 0)).build();
      try {
        start.await();
        for (int i = 40; i < 140; i++) {
          reports.add(p.publish(RunSpec.of("daily", new Window(base + i * MIN, MIN), 1), Payload.ofBytes(("g" + i).getBytes())));
          if (i % 10 == 0) {
            // A late old replica publishes a generation far behind the pointer, then checks and advances.
            reports.add(p.publish(RunSpec.of("daily", new Window(base + (i - 30) * MIN, MIN), 2), Payload.ofBytes(("late" + i).getBytes())));
          }
        }
      } catch (Exception e) {
        violations.add("publisher failed: " + e);
      }
    });
    Thread reader = new Thread(() -> {
      try {
        start.await();
        while (!stop.get()) {
          Optional<PointerState> s = store.readPointer("daily");
          if (s.isPresent()) {
            Pointer p = s.get().pointer();
            // The pointer only moves forward, so its object must still be there right after the read:
            // retention never deletes the pointer's generation or anything newer.
            if (!store.exists(p.key()) && store.readPointer("daily").get().pointer().equals(p)) {
              violations.add("pointer names a removed object " + p.key());
            }
          }
        }
      } catch (Exception e) {
        violations.add("reader failed: " + e);
      }
    });
    Thread gc = new Thread(() -> {
      Retention r = new Retention(store, gcClock);
      try {
        start.await();
        while (!stop.get()) {
          r.run("daily", new Retention.Policy(1, null, Duration.ofHours(1), false));
        }
      } catch (Exception e) {
        violations.add("gc failed: " + e);
      }
    });
    publisher.start();
    reader.start();
    gc.start();
    start.countDown();
    publisher.join(120_000);
    stop.set(true);
    reader.join(60_000);
    gc.join(60_000);

    assertEquals(List.of(), List.copyOf(violations));
    assertTrue(reports.stream().allMatch(r -> !r.pointer().status().gaveUp()), "no advance gave up");
    // A final pass with the publishers gone: every old generation (past the grace) is removed, every
    // generation written during the race (inside the grace) is kept.
    Retention.Report last = new Retention(store, gcClock).run("daily", new Retention.Policy(1, null, Duration.ofHours(1), false));
    List<String> keys = new ArrayList<>();
    store.list("daily/", o -> keys.add(o.key()));
    for (int i = 0; i < 40; i++) {
      String k = RunSpec.of("daily", new Window(base + i * MIN, MIN), 1).outputKey().toString();
      assertTrue(!keys.contains(k), "old generation " + i + " should be gone: " + last);
    }
    for (PublishReport r : reports) {
      assertTrue(keys.contains(r.key().toString()), "generation written inside the grace was removed: " + r.key());
    }
  }
}
