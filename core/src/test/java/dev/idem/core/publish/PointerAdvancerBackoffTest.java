package dev.idem.core.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.CasResult;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The backoff between an advance's attempts: taken only when another attempt follows, never past the
 * deadline, and given up with the interrupt kept when the thread is interrupted. Time is a fake clock,
 * and a store that interrupts the calling thread shows whether a backoff would wait: a wait of any
 * length on an interrupted thread ends at once with an {@link InterruptedIOException}, one of no length
 * does not wait at all.
 */
class PointerAdvancerBackoffTest {
  /** A backoff ceiling so long that a wait drawn below it is, but for a vanishing chance, not zero. */
  private static final long LONG_BACKOFF_MILLIS = 1L << 62;

  private final InMemoryObjectStore memory = new InMemoryObjectStore();
  private final AtomicInteger swaps = new AtomicInteger();

  /** Another writer always gets in first, and the thread is interrupted while it waits for the swap. */
  private final ForwardingObjectStore outracedThenInterrupted = new ForwardingObjectStore(memory) {
    @Override
    public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next, Duration maxWait) {
      swaps.incrementAndGet();
      Thread.currentThread().interrupt();
      return CasResult.CONFLICT;
    }
  };

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  private Pointer published() throws IOException {
    String key = "p/60/state-" + "0".repeat(64);
    memory.putIfAbsent(key, Payload.ofBytes("g".getBytes(StandardCharsets.UTF_8)), "w");
    return Pointer.to(memory.stat(key).orElseThrow(), 60, 1, "w", Instant.EPOCH);
  }

  private static PointerAdvancer advancer(ForwardingObjectStore store, int maxAttempts, long backoffMillis,
      Duration deadline) {
    return new PointerAdvancer(store, maxAttempts, backoffMillis).withDeadline(deadline).withTicker(() -> 1_000L);
  }

  @Test
  void advance_interruptedBeforeItBacksOff_stopsWithTheInterruptKept() throws IOException {
    Pointer target = published();
    PointerAdvancer a = advancer(outracedThenInterrupted, 64, LONG_BACKOFF_MILLIS, Duration.ofDays(1));

    InterruptedIOException e = assertThrows(InterruptedIOException.class, () -> a.advance(target));

    assertEquals("interrupted while backing off a pointer advance", e.getMessage());
    assertEquals(1, swaps.get(), "no attempt after the interrupt");
    assertTrue(Thread.interrupted(), "the thread stays interrupted");
  }

  @Test
  void advance_lastAttemptFailed_returnsWithoutBackingOff() throws IOException {
    AdvanceReport r = advancer(outracedThenInterrupted, 1, LONG_BACKOFF_MILLIS, Duration.ofDays(1)).advance(published());

    assertEquals(AdvanceStatus.CONFLICT, r.status());
    assertEquals(1, r.attempts());
    assertTrue(Thread.interrupted());
  }

  @Test
  void advance_deadlineSpent_backoffDoesNotWait() throws IOException {
    AdvanceReport r = advancer(outracedThenInterrupted, 64, LONG_BACKOFF_MILLIS, Duration.ZERO).advance(published());

    assertEquals(AdvanceStatus.CONFLICT, r.status());
    assertEquals(1, r.attempts(), "one attempt on a zero deadline");
    assertTrue(Thread.interrupted());
  }

  @Test
  void advance_noBackoffConfigured_retriesAtOnce() throws IOException {
    AdvanceReport r = advancer(outracedThenInterrupted, 3, 0, Duration.ofDays(1)).advance(published());

    assertEquals(AdvanceStatus.CONFLICT, r.status());
    assertEquals(3, r.attempts());
    assertEquals(3, swaps.get());
  }

  @Test
  void advance_smallestBackoffThenSwapped_advances() throws IOException {
    ForwardingObjectStore outracedOnce = new ForwardingObjectStore(memory) {
      @Override
      public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next, Duration maxWait)
          throws IOException {
        return swaps.incrementAndGet() == 1 ? CasResult.CONFLICT : memory.compareAndSetPointer(pipeline, expectedToken, next);
      }
    };
    Pointer target = published();

    AdvanceReport r = advancer(outracedOnce, 64, 1, Duration.ofDays(1)).advance(target);

    assertEquals(AdvanceStatus.ADVANCED, r.status());
    assertEquals(2, r.attempts());
    assertEquals(target, memory.readPointer("p").orElseThrow().pointer());
  }
}
