package dev.idem.core.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.CasResult;
import dev.idem.core.store.Deadline;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The advance's one total deadline (B1), on a fake clock: every wait a store makes is simulated by
 * moving the clock, so the tests say how much time each attempt was given without sleeping.
 */
class PointerAdvancerDeadlineTest {
  private final InMemoryObjectStore memory = new InMemoryObjectStore();
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final List<Duration> waitsGiven = new ArrayList<>();

  private Pointer published(long windowStart) throws IOException {
    String key = "p/" + windowStart + "/state-" + "0".repeat(64);
    memory.putIfAbsent(key, Payload.ofBytes(("g" + windowStart).getBytes(StandardCharsets.UTF_8)), "w");
    return Pointer.to(memory.stat(key).orElseThrow(), 60, 1, "w", Instant.EPOCH);
  }

  /** A lock that never frees: each compare-and-swap waits all it is given, up to the store's own 10 s. */
  private final ForwardingObjectStore lockNeverFreed = new ForwardingObjectStore(memory) {
    @Override
    public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next, Duration maxWait) {
      waitsGiven.add(maxWait);
      now.addAndGet(Math.min(maxWait.toNanos(), Duration.ofSeconds(10).toNanos()));
      return CasResult.BUSY;
    }
  };

  private PointerAdvancer advancer(ForwardingObjectStore store, Duration deadline) {
    return new PointerAdvancer(store, 64, 0).withDeadline(deadline).withTicker(now::get);
  }

  @Test
  void advance_lockNeverFreed_busyAtTheDeadlineEachWaitGivenOnlyTheTimeLeft() throws IOException {
    AdvanceReport r = advancer(lockNeverFreed, Duration.ofSeconds(25)).advance(published(60));

    assertEquals(AdvanceStatus.BUSY, r.status());
    assertEquals(List.of(Duration.ofSeconds(25), Duration.ofSeconds(15), Duration.ofSeconds(5)), waitsGiven);
    assertEquals(3, r.attempts());
    assertEquals(Duration.ofSeconds(25), r.elapsed());
    assertTrue(memory.readPointer("p").isEmpty(), "nothing written");
  }

  @Test
  void advance_overallDeadlineShorter_busyWhenItRunsOut() throws IOException {
    Pointer target = published(60);
    Deadline overall = Deadline.after(Duration.ofSeconds(12), "--max-time", now::get);

    AdvanceReport r = advancer(lockNeverFreed, Duration.ofSeconds(30)).within(overall).advance(target);

    assertEquals(AdvanceStatus.BUSY, r.status());
    assertEquals(List.of(Duration.ofSeconds(12), Duration.ofSeconds(2)), waitsGiven,
        "each wait given only what the overall deadline left");
    assertEquals(Duration.ofSeconds(12), r.elapsed());
  }

  @Test
  void advance_overallDeadlineAlreadyPassed_oneAttemptThatDoesNotWait() throws IOException {
    Pointer target = published(60);
    Deadline overall = Deadline.after(Duration.ofSeconds(1), "--max-time", now::get);
    now.addAndGet(Duration.ofSeconds(5).toNanos());

    AdvanceReport r = advancer(lockNeverFreed, Duration.ofSeconds(30)).within(overall).advance(target);

    assertEquals(AdvanceStatus.BUSY, r.status());
    assertEquals(List.of(Duration.ZERO), waitsGiven);
  }

  @Test
  void advance_zeroDeadline_oneAttemptThatDoesNotWait() throws IOException {
    AdvanceReport r = advancer(lockNeverFreed, Duration.ZERO).advance(published(60));

    assertEquals(AdvanceStatus.BUSY, r.status());
    assertEquals(List.of(Duration.ZERO), waitsGiven);
    assertEquals(1, r.attempts());
  }

  @Test
  void advance_pointerMovedByOthersUntilTheDeadline_conflictNotBusy() throws IOException {
    Pointer older = published(60);
    Pointer mine = published(600);
    // Another writer re-points at an older generation between every read and swap of this advance.
    ForwardingObjectStore outraced = new ForwardingObjectStore(memory) {
      @Override
      public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next, Duration maxWait)
          throws IOException {
        waitsGiven.add(maxWait);
        String token = memory.readPointer(pipeline).map(s -> s.token()).orElse(null);
        assertEquals(CasResult.SWAPPED, memory.compareAndSetPointer(pipeline, token,
            older));
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        return memory.compareAndSetPointer(pipeline, expectedToken, next);
      }
    };

    AdvanceReport r = advancer(outraced, Duration.ofMillis(4500)).advance(mine);

    assertEquals(AdvanceStatus.CONFLICT, r.status());
    assertEquals(5, r.attempts(), "attempts until the deadline, not all 64");
    assertEquals(older.position(), memory.readPointer("p").orElseThrow().pointer().position());
  }

  @Test
  void advance_lockFreedWithinTheDeadline_advances() throws IOException {
    ForwardingObjectStore freedLater = new ForwardingObjectStore(memory) {
      @Override
      public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next, Duration maxWait)
          throws IOException {
        waitsGiven.add(maxWait);
        if (waitsGiven.size() == 1) {
          now.addAndGet(maxWait.toNanos() / 2);
          return CasResult.BUSY;
        }
        return memory.compareAndSetPointer(pipeline, expectedToken, next);
      }
    };

    AdvanceReport r = advancer(freedLater, Duration.ofSeconds(30)).advance(published(60));

    assertEquals(AdvanceStatus.ADVANCED, r.status());
    assertEquals(List.of(Duration.ofSeconds(30), Duration.ofSeconds(15)), waitsGiven);
  }

  @Test
  void withDeadline_negative_refused() {
    PointerAdvancer a = new PointerAdvancer(memory);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> a.withDeadline(Duration.ofSeconds(-1)));
    assertEquals("deadline must be >= 0, was PT-1S", e.getMessage());
    assertEquals(Duration.ofSeconds(PointerAdvancer.DEFAULT_DEADLINE_SECONDS), a.deadline());
  }
}
