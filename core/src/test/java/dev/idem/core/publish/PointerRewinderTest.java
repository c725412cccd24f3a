package dev.idem.core.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Deadline;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PointerRewinderTest {
  private static final Instant NOW = Instant.parse("2026-12-02T15:00:00Z");
  private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
  private final ClosedWindowGuard guard = new ClosedWindowGuard(CLOCK, Duration.ofMinutes(5));
  private final InMemoryObjectStore store = new InMemoryObjectStore();

  /** Publishes window {@code n} (60 s windows from 1726000000) and returns the pointer to it. */
  private Pointer published(long n) throws IOException {
    String key = RunSpec.of("p", new Window(1_726_000_000L + 60 * n, 60), 1).outputKey().toString();
    store.putIfAbsent(key, Payload.ofBytes(("gen " + n).getBytes(StandardCharsets.UTF_8)), "w" + n);
    return Pointer.to(store.stat(key).orElseThrow(), 60, 1, "w" + n, NOW);
  }

  private PointerAdvancer advancer() {
    return new PointerAdvancer(store).withClosedWindowGuard(guard);
  }

  @Test
  void rewind_expectedKey_movesBackAndRecordsFromToByAtWhy() throws Exception {
    Pointer good = published(1);
    Pointer bad = published(2);
    advancer().advance(good);
    advancer().advance(bad);
    RewindReport r = new PointerRewinder(store, guard).rewind(good, bad.key(), "ops-alice", "INC-42 bad build");
    assertEquals(RewindStatus.REWOUND, r.status());
    Pointer now = store.readPointer("p").orElseThrow().pointer();
    assertEquals(good.key(), now.key());
    assertEquals(new Pointer.Rewind(bad.key(), good.key(), "ops-alice", NOW, "INC-42 bad build"), now.rewind());
    assertEquals(now, r.current());
  }

  @Test
  void rewind_pointerNotAtExpectedKey_pointerMovedNothingWritten() throws Exception {
    Pointer good = published(1);
    Pointer bad = published(2);
    Pointer newer = published(3);
    advancer().advance(bad);
    advancer().advance(newer);
    RewindReport r = new PointerRewinder(store, guard).rewind(good, bad.key(), "ops", "stale view");
    assertEquals(RewindStatus.POINTER_MOVED, r.status());
    assertEquals(newer.key(), r.current().key());
    assertEquals(newer.key(), store.readPointer("p").orElseThrow().pointer().key());
    assertNull(store.readPointer("p").orElseThrow().pointer().rewind());
  }

  @Test
  void rewind_publisherMovesPointerBetweenReadAndSwap_pointerMovedPublisherKept() throws Exception {
    Pointer good = published(1);
    Pointer bad = published(2);
    Pointer newer = published(3);
    advancer().advance(bad);
    // The store lets a publisher advance right before the rewind's swap lands.
    ForwardingObjectStore racing = new ForwardingObjectStore(store) {
      @Override
      public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) throws IOException {
        advancer().advance(newer);
        return super.compareAndSetPointer(pipeline, expectedToken, next);
      }
    };
    RewindReport r = new PointerRewinder(racing, guard).rewind(good, bad.key(), "ops", "race");
    assertEquals(RewindStatus.POINTER_MOVED, r.status());
    assertEquals(newer.key(), r.current().key());
    assertEquals(newer.key(), store.readPointer("p").orElseThrow().pointer().key(), "the publisher's advance stands");
  }

  @Test
  void rewind_noPointer_noPointerNothingWritten() throws Exception {
    Pointer good = published(1);
    RewindReport r = new PointerRewinder(store, guard).rewind(good, good.key(), "ops", "nothing there");
    assertEquals(RewindStatus.NO_POINTER, r.status());
    assertTrue(store.readPointer("p").isEmpty());
  }

  @Test
  void rewind_targetMissingNotBehindFutureOrNoReason_refusedNothingWritten() throws Exception {
    Pointer good = published(1);
    Pointer bad = published(2);
    advancer().advance(bad);
    PointerRewinder rewinder = new PointerRewinder(store, guard);
    Pointer missing = Pointer.to(new dev.idem.core.store.ObjectInfo(
        RunSpec.of("p", new Window(1_726_000_000L, 60), 1).outputKey().toString(), good.sha256(), good.size(), "w", NOW),
        60, 1, "w", NOW);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> rewinder.rewind(missing, bad.key(), "ops", "r"));
    assertTrue(e.getMessage().startsWith("refusing to rewind to " + missing.key() + ": no such object"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> rewinder.rewind(bad, bad.key(), "ops", "r"));
    assertTrue(e.getMessage().contains("is not behind the pointer"), e.getMessage());
    Pointer future = Pointer.to(store.stat(good.key()).orElseThrow(), 60, 1, "w", NOW);
    ClosedWindowGuard past = new ClosedWindowGuard(Clock.fixed(Instant.ofEpochSecond(1_700_000_000L), ZoneOffset.UTC), Duration.ZERO);
    e = assertThrows(IllegalArgumentException.class, () -> new PointerRewinder(store, past).rewind(future, bad.key(), "ops", "r"));
    assertTrue(e.getMessage().endsWith("refusing to rewind p to a future window"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> rewinder.rewind(good, bad.key(), "ops", " "));
    assertThrows(IllegalArgumentException.class, () -> rewinder.rewind(good, bad.key(), "has space", "r"));
    Pointer other = good.withRewind(null);
    Pointer tampered = new Pointer(other.pipeline(), other.key(), other.windowStart(), other.windowLength(), other.schemaVersion(),
        bad.sha256(), other.size(), other.writer(), other.publishedAt());
    assertThrows(IllegalArgumentException.class, () -> rewinder.rewind(tampered, bad.key(), "ops", "r"));
    assertEquals(bad.key(), store.readPointer("p").orElseThrow().pointer().key());
    assertNull(store.readPointer("p").orElseThrow().pointer().rewind());
  }

  @Test
  void advance_afterRewind_movesForwardAndCarriesTheRecord() throws Exception {
    Pointer good = published(1);
    Pointer bad = published(3);
    Pointer next = published(2);
    advancer().advance(bad);
    new PointerRewinder(store, guard).rewind(good, bad.key(), "ops", "bad build");
    AdvanceReport a = advancer().advance(next);
    assertEquals(AdvanceStatus.ADVANCED, a.status());
    Pointer now = store.readPointer("p").orElseThrow().pointer();
    assertEquals(next.key(), now.key());
    assertEquals(bad.key(), now.rewind().from(), "the last rewind stays on record");
    assertEquals(now, a.current());
  }

  @Test
  void advance_backwards_stillRefusedAfterARewind() throws Exception {
    Pointer older = published(1);
    Pointer good = published(2);
    Pointer bad = published(3);
    advancer().advance(bad);
    new PointerRewinder(store, guard).rewind(good, bad.key(), "ops", "bad build");
    assertEquals(AdvanceStatus.NEWER_PRESENT, advancer().advance(older).status());
    assertEquals(good.key(), store.readPointer("p").orElseThrow().pointer().key());
  }

  @Test
  void rewind_lockNeverFreed_busyAtTheDeadlineSwapGivenOnlyTheTimeLeft() throws Exception {
    Pointer good = published(1);
    Pointer bad = published(2);
    advancer().advance(bad);
    AtomicLong now = new AtomicLong(1_000_000_000L);
    List<Duration> waitsGiven = new ArrayList<>();
    // Each read costs 2 s on the fake clock; the swap meets a lock that never frees and waits all it is given.
    ForwardingObjectStore slowAndLocked = new ForwardingObjectStore(store) {
      @Override
      public Optional<PointerState> readPointer(String pipeline) throws IOException {
        now.addAndGet(Duration.ofSeconds(2).toNanos());
        return super.readPointer(pipeline);
      }

      @Override
      public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next, Duration maxWait) {
        waitsGiven.add(maxWait);
        now.addAndGet(maxWait.toNanos());
        return CasResult.BUSY;
      }
    };
    RewindReport r = new PointerRewinder(slowAndLocked, guard).withDeadline(Duration.ofSeconds(7)).withTicker(now::get)
        .rewind(good, bad.key(), "ops", "bad build");
    assertEquals(RewindStatus.BUSY, r.status());
    assertEquals(List.of(Duration.ofSeconds(5)), waitsGiven, "the swap waits only what the read left of 7 s");
    assertEquals(Duration.ofSeconds(7), r.elapsed());
    assertEquals(bad.key(), store.readPointer("p").orElseThrow().pointer().key(), "nothing written");
  }

  @Test
  void rewind_overallDeadlineShorter_swapGivenOnlyWhatItLeft() throws Exception {
    Pointer good = published(1);
    Pointer bad = published(2);
    advancer().advance(bad);
    AtomicLong now = new AtomicLong(1_000_000_000L);
    List<Duration> waitsGiven = new ArrayList<>();
    ForwardingObjectStore locked = new ForwardingObjectStore(store) {
      @Override
      public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next, Duration maxWait) {
        waitsGiven.add(maxWait);
        now.addAndGet(maxWait.toNanos());
        return CasResult.BUSY;
      }
    };
    Deadline overall = Deadline.after(Duration.ofSeconds(3), "--max-time", now::get);
    RewindReport r = new PointerRewinder(locked, guard).withDeadline(Duration.ofSeconds(30)).withTicker(now::get)
        .within(overall).rewind(good, bad.key(), "ops", "bad build");
    assertEquals(RewindStatus.BUSY, r.status());
    assertEquals(List.of(Duration.ofSeconds(3)), waitsGiven);
    assertEquals(bad.key(), store.readPointer("p").orElseThrow().pointer().key(), "nothing written");
  }

  @Test
  void withDeadline_negative_refused() {
    PointerRewinder rewinder = new PointerRewinder(store, guard);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> rewinder.withDeadline(Duration.ofSeconds(-1)));
    assertEquals("deadline must be >= 0, was PT-1S", e.getMessage());
    assertEquals(Duration.ofSeconds(PointerAdvancer.DEFAULT_DEADLINE_SECONDS), rewinder.deadline());
  }
}
