package dev.idem.core.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.testing.InMemoryObjectStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class ClosedWindowGuardTest {
  private static final Instant NOW = Instant.parse("2026-12-02T12:00:30Z");
  private final ClosedWindowGuard guard = new ClosedWindowGuard(Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofMinutes(5));

  @Test
  void requireClosed_windowClosedAtNow_passes() {
    guard.requireClosed(Window.closedAt(NOW, Duration.ofHours(1), Duration.ZERO), "publish");
  }

  @Test
  void requireClosed_currentlyOpenWindow_refusedInTheSmallestFittingUnit() {
    Window open = new Window(NOW.getEpochSecond() - 30, 3600);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> guard.requireClosed(open, "publish"));
    assertEquals("window 2026-12-02T12:00:00Z..+3600s has not closed yet (ends 59 minutes from now; allowed clock skew 5m): "
        + "refusing to publish a future window", e.getMessage());
  }

  @Test
  void span_picksTheLargestWholeUnit() {
    assertEquals("1 second", ClosedWindowGuard.span(Duration.ofSeconds(1)));
    assertEquals("59 seconds", ClosedWindowGuard.span(Duration.ofSeconds(59)));
    assertEquals("1 minute", ClosedWindowGuard.span(Duration.ofSeconds(60)));
    assertEquals("2 hours", ClosedWindowGuard.span(Duration.ofMinutes(150)));
    assertEquals("3 days", ClosedWindowGuard.span(Duration.ofHours(80)));
    assertEquals("1 year", ClosedWindowGuard.span(Duration.ofDays(366)));
  }

  @Test
  void compact_spellsDurationsAsTheCliFlagDoes() {
    assertEquals("0s", ClosedWindowGuard.compact(Duration.ZERO));
    assertEquals("5m", ClosedWindowGuard.compact(Duration.ofMinutes(5)));
    assertEquals("1h30m", ClosedWindowGuard.compact(Duration.ofMinutes(90)));
    assertEquals("1d1s", ClosedWindowGuard.compact(Duration.ofSeconds(86_401)));
  }

  @Test
  void constructor_negativeSkew_rejected() {
    assertThrows(IllegalArgumentException.class, () -> new ClosedWindowGuard(Clock.systemUTC(), Duration.ofSeconds(-1)));
  }

  @Test
  void advance_futurePointer_refusedNothingWritten() throws Exception {
    InMemoryObjectStore store = new InMemoryObjectStore();
    RunSpec future = RunSpec.of("p", new Window(NOW.getEpochSecond() + 3600, 60), 1);
    String key = future.outputKey().toString();
    store.putIfAbsent(key, Payload.ofBytes("x".getBytes(StandardCharsets.UTF_8)), "w");
    Pointer next = Pointer.to(store.stat(key).orElseThrow(), 60, 1, "w", NOW);
    PointerAdvancer advancer = new PointerAdvancer(store).withClosedWindowGuard(guard);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> advancer.advance(next));
    assertTrue(e.getMessage().endsWith("refusing to point p at a future window"), e.getMessage());
    assertTrue(store.readPointer("p").isEmpty());
  }

  @Test
  void advance_defaultGuard_usesTheSystemClock() throws Exception {
    InMemoryObjectStore store = new InMemoryObjectStore();
    RunSpec future = RunSpec.of("p", new Window(Instant.parse("2099-01-01T00:00:00Z").getEpochSecond(), 60), 1);
    String key = future.outputKey().toString();
    store.putIfAbsent(key, Payload.ofBytes("x".getBytes(StandardCharsets.UTF_8)), "w");
    Pointer next = Pointer.to(store.stat(key).orElseThrow(), 60, 1, "w", NOW);
    assertThrows(IllegalArgumentException.class, () -> new PointerAdvancer(store).advance(next));
    assertTrue(store.readPointer("p").isEmpty());
  }
}
