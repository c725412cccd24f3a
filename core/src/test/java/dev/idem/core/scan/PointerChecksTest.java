package dev.idem.core.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.CasResult;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The scan's pointer checks, side by side: on the caller's thread when there is nothing to run side by
 * side, otherwise on daemon threads; results and failures in the pipelines' order, whatever order the
 * checks end in.
 */
class PointerChecksTest {
  private final InMemoryObjectStore memory = new InMemoryObjectStore();
  /** The thread each pipeline's pointer was read on. */
  private final Map<String, Thread> readOn = new ConcurrentHashMap<>();

  @BeforeEach
  void pointers() throws IOException {
    for (String pipeline : List.of("a", "b", "c")) {
      String key = pipeline + "/60/state-" + "0".repeat(64);
      memory.putIfAbsent(key, Payload.ofBytes(pipeline.getBytes(StandardCharsets.UTF_8)), "w");
      Pointer p = Pointer.to(memory.stat(key).orElseThrow(), 60, 1, "w", Instant.EPOCH);
      assertEquals(CasResult.SWAPPED, memory.compareAndSetPointer(pipeline, null, p));
    }
  }

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  /** Records where each read ran; {@code before} runs first, for a test to order or fail the reads. */
  private ForwardingObjectStore recording(Before before) {
    return new ForwardingObjectStore(memory) {
      @Override
      public Optional<PointerState> readPointer(String pipeline) throws IOException {
        readOn.put(pipeline, Thread.currentThread());
        before.run(pipeline);
        return super.readPointer(pipeline);
      }
    };
  }

  @FunctionalInterface
  private interface Before {
    void run(String pipeline) throws IOException;
  }

  private static List<String> pipelines(List<PointerChecks.Checked> checked) {
    return checked.stream().map(PointerChecks.Checked::pipeline).toList();
  }

  @Test
  void run_parallelismOne_checksInOrderOnTheCallersThread() throws IOException {
    List<PointerChecks.Checked> r = PointerChecks.run(recording(p -> {}), List.of("c", "none", "a"), 1);

    assertEquals(List.of("c", "a"), pipelines(r), "a pipeline without a pointer has no entry");
    assertTrue(r.stream().allMatch(c -> c.target().matches()));
    assertEquals(Map.of("c", Thread.currentThread(), "none", Thread.currentThread(), "a", Thread.currentThread()),
        readOn);
  }

  @Test
  void run_onePipeline_checkedOnTheCallersThread() throws IOException {
    assertEquals(List.of("b"), pipelines(PointerChecks.run(recording(p -> {}), List.of("b"), 8)));
    assertSame(Thread.currentThread(), readOn.get("b"));
  }

  @Test
  void run_sideBySide_daemonThreadsAndThePipelinesOrder() throws IOException {
    CountDownLatch lastRead = new CountDownLatch(1);
    // The first pipeline's check ends only after the last one's read: they run side by side, and the
    // first still comes first.
    ForwardingObjectStore store = recording(p -> {
      if (p.equals("a")) {
        await(lastRead);
      } else if (p.equals("c")) {
        lastRead.countDown();
      }
    });

    List<PointerChecks.Checked> r = PointerChecks.run(store, List.of("a", "b", "c"), 3);

    assertEquals(List.of("a", "b", "c"), pipelines(r));
    for (Thread t : readOn.values()) {
      assertNotSame(Thread.currentThread(), t);
      assertTrue(t.isDaemon(), "a check left hanging never holds the process open");
    }
  }

  @Test
  void run_checksFailSideBySide_theFirstFailureInOrderAfterAllEnded() {
    IOException failedB = new IOException("b unreadable");
    IOException failedC = new IOException("c unreadable");
    CountDownLatch cFailed = new CountDownLatch(1);
    ForwardingObjectStore store = recording(p -> {
      if (p.equals("b")) {
        await(cFailed);
        throw failedB;
      }
      if (p.equals("c")) {
        cFailed.countDown();
        throw failedC;
      }
    });

    IOException e = assertThrows(IOException.class, () -> PointerChecks.run(store, List.of("a", "b", "c"), 3));

    assertSame(failedB, e, "the first failure in the pipelines' order, not the first to happen");
    assertEquals(3, readOn.size());
  }

  @Test
  void run_uncheckedFailure_thrownAsTheStoreThrewIt() {
    IllegalStateException broken = new IllegalStateException("broken");
    ForwardingObjectStore store = recording(p -> {
      if (p.equals("b")) {
        throw broken;
      }
    });

    assertSame(broken, assertThrows(IllegalStateException.class, () -> PointerChecks.run(store, List.of("a", "b"), 2)));
  }

  @Test
  void run_error_thrownAsTheStoreThrewIt() {
    Error broken = new Error("broken");
    ForwardingObjectStore store = recording(p -> {
      if (p.equals("b")) {
        throw broken;
      }
    });

    assertSame(broken, assertThrows(Error.class, () -> PointerChecks.run(store, List.of("a", "b"), 2)));
  }

  @Test
  void run_interruptedWhileACheckRuns_interruptedIOExceptionWithTheInterruptKept() {
    CountDownLatch never = new CountDownLatch(1);
    // The first check is still running when the caller waits for it (the scan stops it on the way out).
    ForwardingObjectStore store = recording(p -> {
      if (p.equals("a")) {
        await(never);
      }
    });
    Thread.currentThread().interrupt();

    InterruptedIOException e = assertThrows(InterruptedIOException.class,
        () -> PointerChecks.run(store, List.of("a", "b", "c"), 3));

    assertEquals("interrupted while the scan read its pipelines' pointers", e.getMessage());
    assertTrue(Thread.interrupted(), "the caller stays interrupted");
  }

  /** Waits for another check; one that never comes fails the test instead of hanging it. */
  private static void await(CountDownLatch latch) throws IOException {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IOException("the other check never ran: the checks did not run side by side");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException();
    }
  }
}
