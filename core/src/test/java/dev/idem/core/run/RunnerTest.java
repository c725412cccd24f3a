package dev.idem.core.run;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Idem;
import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.publish.ClaimPolicy;
import dev.idem.core.publish.ClaimReport.ClaimStatus;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.PublishStatus;
import dev.idem.core.publish.TaskFailedException;
import dev.idem.core.store.Claims;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner's whole cycle on the in-memory store: skip, claim, a task writing to a stream or a file,
 * the spool deleted or kept, and stop with its drain. Runs that must be caught mid-task block on
 * latches the test opens; nothing waits for time to pass (the timeouts only end a hung test).
 */
@Timeout(60)
class RunnerTest {
  private static final Window WINDOW = new Window(Instant.parse("2024-09-11T03:00:00Z").getEpochSecond(), 3600);
  private static final byte[] RESULT = "window_start,rows\n1726023600,42\n".getBytes(StandardCharsets.UTF_8);

  @TempDir Path spool;

  private final InMemoryObjectStore store = new InMemoryObjectStore();
  private final RunSpec spec = RunSpec.of("orders", WINDOW, 1).withInput("rows", "v1");
  private final String key = spec.outputKey().toString();
  private final AtomicInteger tasks = new AtomicInteger();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  private Runner runner(ObjectStore s) {
    return Idem.runner(s).writer("host-b").spoolDirectory(spool).build();
  }

  private Runner.StreamTask writes(byte[] bytes) {
    return (sp, k, out) -> {
      tasks.incrementAndGet();
      out.write(bytes);
    };
  }

  private long spoolEntries() throws IOException {
    try (Stream<Path> entries = Files.list(spool)) {
      return entries.count();
    }
  }

  private byte[] stored() throws IOException {
    try (InputStream in = store.open(key).orElseThrow()) {
      return in.readAllBytes();
    }
  }

  /** The exception {@code run} ended with. */
  private static Throwable failure(Future<?> run) {
    return assertThrows(ExecutionException.class, run::get).getCause();
  }

  @Test
  void run_unpublishedKey_publishesWhatTheTaskStreamed() throws Exception {
    AtomicBoolean claimedWhileRunning = new AtomicBoolean();
    AtomicLong spooledWhileRunning = new AtomicLong();
    PublishReport r = runner(store).run(spec, (sp, k, out) -> {
      claimedWhileRunning.set(store.readClaim(key).isPresent());
      spooledWhileRunning.set(spoolEntries());
      out.write(RESULT);
    });

    assertEquals(PublishStatus.CREATED, r.status());
    assertArrayEquals(RESULT, stored());
    assertEquals("host-b", r.stored().writer());
    assertEquals(key, store.readPointer("orders").orElseThrow().pointer().key());
    assertEquals(ClaimStatus.HELD, r.claim().status());
    assertTrue(claimedWhileRunning.get(), "the key was claimed while the task ran");
    assertEquals(1, spooledWhileRunning.get(), "the result was spooled in the spool directory");
    assertEquals(0, spoolEntries(), "the spool is deleted after the publish");
    assertTrue(store.readClaim(key).isEmpty(), "the claim is released after the publish");
  }

  @Test
  void run_publishedKey_skipsTheTask() throws Exception {
    store.putIfAbsent(key, Payload.ofBytes(RESULT), "host-a");

    PublishReport r = runner(store).run(spec, writes("other".getBytes(StandardCharsets.UTF_8)));

    assertEquals(PublishStatus.SKIPPED, r.status());
    assertEquals("host-a", r.stored().writer());
    assertEquals(0, tasks.get());
    assertEquals(0, spoolEntries());
  }

  @Test
  void run_othersFreshClaim_waitsForItsObjectAndSkips() throws Exception {
    assertEquals(Claims.Result.HELD, store.claim(key, "host-a", null, Duration.ofMinutes(1)).result());
    AtomicLong nanos = new AtomicLong();
    // The waiter's first look finds the claim; while it sleeps, the claimant publishes.
    ClaimPolicy policy = ClaimPolicy.defaults().waitingOn(nanos::get, d -> {
      nanos.addAndGet(d.toNanos());
      try {
        store.putIfAbsent(key, Payload.ofBytes(RESULT), "host-a");
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    });
    Runner runner = Idem.runner(store).writer("host-b").claims(policy).spoolDirectory(spool).build();

    PublishReport r = runner.run(spec, writes(RESULT));

    assertEquals(PublishStatus.SKIPPED, r.status());
    assertEquals(ClaimStatus.WAITED_SKIPPED, r.claim().status());
    assertEquals("host-a", r.claim().claimant().writer());
    assertEquals(0, tasks.get(), "the task of a replica that waited and skipped never ran");
    assertEquals(key, store.readPointer("orders").orElseThrow().pointer().key());
  }

  @Test
  void runToFile_taskWritesTheFile_publishesIt() throws Exception {
    AtomicBoolean missingBefore = new AtomicBoolean();
    PublishReport r = runner(store).runToFile(spec, (sp, k, output) -> {
      missingBefore.set(Files.notExists(output));
      // A task may write beside its output and rename, in the directory that is its own.
      Path partial = output.resolveSibling("output.partial");
      Files.write(partial, RESULT);
      Files.move(partial, output);
    });

    assertEquals(PublishStatus.CREATED, r.status());
    assertArrayEquals(RESULT, stored());
    assertTrue(missingBefore.get(), "the task is given a path that does not exist yet");
    assertEquals(0, spoolEntries());
  }

  @Test
  void runToFile_taskWritesNothing_failsAndPublishesNothing() throws Exception {
    Runner runner = runner(store);

    TaskFailedException e = assertThrows(TaskFailedException.class, () -> runner.runToFile(spec, (sp, k, output) -> {}));

    assertTrue(e.getMessage().contains("wrote nothing"), e.getMessage());
    assertFalse(store.exists(key));
    assertTrue(store.readPointer("orders").isEmpty());
    assertTrue(store.readClaim(key).isEmpty());
    assertEquals(0, spoolEntries());
  }

  @Test
  void run_taskThrows_failsReleasesTheClaimAndDeletesTheSpool() throws Exception {
    Runner runner = runner(store);

    TaskFailedException e = assertThrows(TaskFailedException.class, () -> runner.run(spec, (sp, k, out) -> {
      out.write(RESULT);
      throw new IllegalStateException("export query failed");
    }));

    assertFalse(e instanceof RunStoppedException, "a task that fails on its own was not stopped");
    assertTrue(e.getMessage().contains("export query failed"), e.getMessage());
    assertFalse(store.exists(key));
    assertTrue(store.readClaim(key).isEmpty());
    assertEquals(0, spoolEntries());
  }

  @Test
  void run_publishFailsAfterTheTask_keepsTheResultAndNamesIt() throws Exception {
    ObjectStore failing = new ForwardingObjectStore(store) {
      @Override
      public PutOutcome putIfAbsent(String k, Payload payload, String writerId) throws IOException {
        throw new IOException("store unreachable");
      }
    };
    Runner runner = runner(failing);

    ResultKeptException e = assertThrows(ResultKeptException.class, () -> runner.run(spec, writes(RESULT)));

    assertArrayEquals(RESULT, Files.readAllBytes(e.result()), "the kept file is the task's result");
    assertTrue(e.result().startsWith(spool), e.result().toString());
    assertTrue(e.getMessage().contains("store unreachable") && e.getMessage().contains(e.result().toString()),
        e.getMessage());
    assertEquals("store unreachable", e.getCause().getMessage());
    assertFalse(store.exists(key));
    assertTrue(store.readClaim(key).isEmpty(), "the claim is released whatever the outcome");
  }

  @Test
  void stop_taskFinishesWithinTheDrain_publishesAndRefusesNewRuns() throws Exception {
    Runner runner = runner(store);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    Future<PublishReport> run = threads.submit(() -> runner.run(spec, (sp, k, out) -> {
      started.countDown();
      finish.await();
      out.write(RESULT);
    }));
    started.await();

    Future<Boolean> stopped = threads.submit(() -> runner.stop(Duration.ofMinutes(10)));
    while (!runner.isStopping()) {
      Thread.onSpinWait();
    }
    RunSpec next = RunSpec.of("orders", new Window(WINDOW.endEpochSecond(), 3600), 1).withInput("rows", "v1");
    assertThrows(RejectedExecutionException.class, () -> runner.run(next, writes(RESULT)));
    assertTrue(store.readClaim(key).isPresent(), "the draining task's claim is kept");
    finish.countDown();

    assertEquals(PublishStatus.CREATED, run.get().status());
    assertTrue(stopped.get(), "every run ended within the drain");
    assertArrayEquals(RESULT, stored());
    assertFalse(store.exists(next.outputKey().toString()));
    assertEquals(0, tasks.get(), "the refused run's task never ran");
    assertTrue(store.readClaim(key).isEmpty());
  }

  @Test
  void stop_taskPastTheDrain_isInterruptedAndPublishesNothing() throws Exception {
    Runner runner = runner(store);
    CountDownLatch started = new CountDownLatch(1);
    Future<PublishReport> run = threads.submit(() -> runner.run(spec, (sp, k, out) -> {
      out.write(RESULT);
      started.countDown();
      new CountDownLatch(1).await(); // a task that honours interruption
    }));
    started.await();

    assertFalse(runner.stop(Duration.ZERO), "the task was still running at the drain's end");

    Throwable e = failure(run);
    assertInstanceOf(RunStoppedException.class, e);
    assertInstanceOf(TaskFailedException.class, e.getCause());
    assertInstanceOf(InterruptedException.class, e.getCause().getCause());
    assertTrue(runner.awaitStopped(Duration.ofMinutes(1)));
    assertFalse(store.exists(key));
    assertTrue(store.readPointer("orders").isEmpty());
    assertTrue(store.readClaim(key).isEmpty(), "the interrupted run's claim is released");
    assertEquals(0, spoolEntries(), "the interrupted run's spool is deleted");
  }

  @Test
  void stop_taskIgnoresTheInterruption_itsResultIsNotPublished() throws Exception {
    Runner runner = runner(store);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean sawInterrupt = new AtomicBoolean();
    Future<PublishReport> run = threads.submit(() -> runner.run(spec, (sp, k, out) -> {
      started.countDown();
      while (true) {
        try {
          release.await();
          break;
        } catch (InterruptedException e) {
          sawInterrupt.set(true);
        }
      }
      out.write(RESULT);
    }));
    started.await();

    assertFalse(runner.stop(Duration.ZERO));
    release.countDown();

    assertInstanceOf(RunStoppedException.class, failure(run));
    assertTrue(sawInterrupt.get(), "the task's thread was interrupted");
    assertFalse(store.exists(key), "past the drain nothing is published");
    assertTrue(store.readClaim(key).isEmpty());
    assertEquals(0, spoolEntries());
  }

  @Test
  void stop_runPublishingPastTheDrain_isLeftToFinish() throws Exception {
    CountDownLatch publishing = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    ObjectStore slow = new ForwardingObjectStore(store) {
      @Override
      public PutOutcome putIfAbsent(String k, Payload payload, String writerId) throws IOException {
        publishing.countDown();
        try {
          proceed.await(); // an interrupt here would fail the publish
        } catch (InterruptedException e) {
          throw new InterruptedIOException("the publish was interrupted");
        }
        return super.putIfAbsent(k, payload, writerId);
      }
    };
    Runner runner = runner(slow);
    Future<PublishReport> run = threads.submit(() -> runner.run(spec, writes(RESULT)));
    publishing.await();

    assertFalse(runner.stop(Duration.ZERO), "the run was still publishing at the drain's end");
    assertFalse(runner.awaitStopped(Duration.ZERO));
    proceed.countDown();

    assertEquals(PublishStatus.CREATED, run.get().status());
    assertTrue(runner.awaitStopped(Duration.ofMinutes(1)));
    assertArrayEquals(RESULT, stored());
    assertEquals(0, spoolEntries());
  }

  @Test
  void stop_runWaitingForAClaim_endsAtOnceWithoutItsTask() throws Exception {
    assertEquals(Claims.Result.HELD, store.claim(key, "host-a", null, Duration.ofMinutes(1)).result());
    CountDownLatch waiting = new CountDownLatch(1);
    // The waiter sleeps until interrupted: only the stop can end its wait.
    ClaimPolicy policy = ClaimPolicy.defaults().waitingOn(System::nanoTime, d -> {
      waiting.countDown();
      new CountDownLatch(1).await();
    });
    Runner runner = Idem.runner(store).writer("host-b").claims(policy).spoolDirectory(spool).build();
    Future<PublishReport> run = threads.submit(() -> runner.run(spec, writes(RESULT)));
    waiting.await();

    assertTrue(runner.stop(Duration.ofMinutes(10)), "the waiting run ended without waiting out the drain");

    assertInstanceOf(RunStoppedException.class, failure(run));
    assertEquals(0, tasks.get());
    assertFalse(store.exists(key));
    assertEquals("host-a", store.readClaim(key).orElseThrow().writer(), "the claimant's claim is untouched");
  }

  @Test
  void run_afterStop_isRefusedBeforeTouchingTheStore() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    ObjectStore counting = new ForwardingObjectStore(store) {
      @Override
      public boolean exists(String k) throws IOException {
        calls.incrementAndGet();
        return super.exists(k);
      }

      @Override
      public Optional<ObjectInfo> stat(String k) throws IOException {
        calls.incrementAndGet();
        return super.stat(k);
      }
    };
    Runner runner = runner(counting);
    assertTrue(runner.stop(Duration.ZERO), "no run was in progress");

    RejectedExecutionException e = assertThrows(RejectedExecutionException.class, () -> runner.run(spec, writes(RESULT)));

    assertTrue(e.getMessage().contains(key), e.getMessage());
    assertEquals(0, calls.get());
    assertEquals(0, tasks.get());
  }
}
