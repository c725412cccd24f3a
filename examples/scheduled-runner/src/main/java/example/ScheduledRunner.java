package example;

import dev.idem.core.Idem;
import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.proof.ProvenStore;
import dev.idem.core.publish.ClaimPolicy;
import dev.idem.core.publish.ClaimReport.ClaimStatus;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.PublishStatus;
import dev.idem.core.run.RunStoppedException;
import dev.idem.core.run.Runner;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.PointerState;
import dev.idem.store.fs.FsObjectStore;
import dev.idem.store.fs.FsStoreProver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A service with an in-process scheduler, through a rolling deployment: the old build's replica is
 * most of the way through a window's export when the new build's replica starts and reaches the same
 * window, and the old one is told to stop (Kubernetes' SIGTERM, whose shutdown hook calls {@link
 * Replica#shutdown}). With idem's runner the new replica finds the old one's claim and waits for its
 * object instead of exporting the window again; the old one finishes within its drain and publishes;
 * the window costs one run, not two. Later the new replica stops with a drain shorter than its export:
 * the export is interrupted and nothing is published for that window (the next replica to run it
 * does).
 *
 * <p>Run: {@code mvn -B exec:java} (the store goes to {@code target/idem-store}), or give the store's
 * directory as the only argument. Takes about ten seconds. Exits 1 when the outcome is not that: one
 * run and one object per window, the new replica skipping by claim, the drained export published and
 * the interrupted one not.
 */
public final class ScheduledRunner {
  /** The schedule: one window every two seconds, each export taking most of one. */
  private static final Duration WINDOW = Duration.ofSeconds(2);
  private static final Duration EXPORT = Duration.ofMillis(1500);

  private ScheduledRunner() {}

  /** What one scheduled run of a replica ended with. */
  record Outcome(String build, Window window, PublishReport report, Exception failure) {
    @Override
    public String toString() {
      String what;
      if (report == null) {
        what = failure.getClass().getSimpleName() + ": " + failure.getMessage();
      } else if (report.claim() == null) {
        what = report.status().toString();
      } else {
        long waited = report.claim().waited().toMillis();
        what = report.status() + " (claim " + report.claim().status()
            + report.claim().lastClaimant().map(c -> ", " + c.writer() + "'s").orElse("")
            + (waited == 0 ? "" : ", waited " + waited + " ms") + ")";
      }
      return "[" + build + "] window " + window.startEpochSecond() + ": " + what;
    }
  }

  /**
   * One build's replica: a scheduled job that runs the export of the window that just closed, through
   * a {@link Runner}, every {@link #WINDOW}.
   */
  static final class Replica {
    final String build;
    final Runner runner;
    final ScheduledExecutorService scheduler;
    final List<Outcome> outcomes = new ArrayList<>();
    final AtomicInteger exports = new AtomicInteger();
    /** A permit for each export started, so the demonstration can act at the moments it describes. */
    final Semaphore exporting = new Semaphore(0);

    Replica(String build, ObjectStore store) {
      this.build = build;
      this.scheduler = Executors.newSingleThreadScheduledExecutor(job -> {
        Thread t = new Thread(job, build + "-scheduler");
        t.setDaemon(true);
        return t;
      });
      // A look at the other replica's claim every 100 ms instead of 5 s: the windows here are seconds long.
      this.runner = Idem.runner(store).writer(build)
          .claims(ClaimPolicy.defaults().poll(Duration.ofMillis(100)).expected(EXPORT))
          .build();
    }

    void start(Duration initialDelay) {
      scheduler.scheduleAtFixedRate(this::runOnce, initialDelay.toMillis(), WINDOW.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The scheduled job. It catches everything: a periodic job that throws is never run again. */
    private void runOnce() {
      Window window = Window.closedAt(Instant.now(), WINDOW, Duration.ZERO);
      RunSpec spec = RunSpec.of("border-state", window, 1).withInput("snapshot", "2026-12-06");
      Outcome outcome;
      try {
        outcome = new Outcome(build, window, runner.run(spec, (s, key, out) -> {
          exports.incrementAndGet();
          exporting.release();
          Thread.sleep(EXPORT.toMillis()); // the export's work; it honours interruption, as the drain needs
          out.write(export(s));
        }), null);
      } catch (RejectedExecutionException e) {
        return; // fired while the replica was stopping: not run
      } catch (Exception e) {
        outcome = new Outcome(build, window, null, e);
      }
      System.out.println(outcome);
      synchronized (outcomes) {
        outcomes.add(outcome);
      }
    }

    /**
     * What the service's shutdown hook calls: no new runs, then the run in progress may finish and
     * publish within {@code drain}, and past it is interrupted.
     *
     * @return whether every run ended within the drain
     */
    boolean shutdown(Duration drain) throws InterruptedException {
      scheduler.shutdown();
      boolean drained = runner.stop(drain);
      scheduler.awaitTermination(1, TimeUnit.MINUTES);
      return drained;
    }

    List<Outcome> outcomes() {
      synchronized (outcomes) {
        return List.copyOf(outcomes);
      }
    }
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args.length > 0 ? args[0] : "target/idem-store");
    Files.createDirectories(dir);
    List<String> wrong = new ArrayList<>();
    try (FsObjectStore fs = FsObjectStore.open(dir);
        ObjectStore store = ProvenStore.wrap(fs, FsStoreProver.of(fs), "scheduled-runner-example 1.0",
            Clock.systemUTC())) {
      Replica old = new Replica("old-build", store);
      Replica fresh = new Replica("new-build", store);

      // The old build runs on its schedule, a tenth of a second after each window closes.
      long millis = Instant.now().toEpochMilli();
      old.start(Duration.ofMillis(WINDOW.toMillis() - millis % WINDOW.toMillis() + 100));
      if (!old.exporting.tryAcquire(1, TimeUnit.MINUTES)) {
        fail("the old build never started its export");
      }
      // The deploy: the new build starts while the old one exports, and runs its job at once; the old
      // one is told to stop, with a drain longer than its export.
      fresh.start(Duration.ZERO);
      boolean oldDrained = old.shutdown(Duration.ofSeconds(30));
      // The new build runs the next windows alone; it is stopped while its third export runs, with a
      // drain shorter than an export.
      if (!fresh.exporting.tryAcquire(3, 1, TimeUnit.MINUTES)) {
        fail("the new build did not start three exports: " + fresh.outcomes());
      }
      boolean freshDrained = fresh.shutdown(Duration.ofMillis(100));

      List<Outcome> olds = old.outcomes();
      List<Outcome> news = fresh.outcomes();
      if (!oldDrained || olds.size() != 1 || olds.get(0).report() == null
          || olds.get(0).report().status() != PublishStatus.CREATED) {
        wrong.add("the old build's export in progress was not published within its drain: " + olds);
      }
      if (news.size() != 4) {
        wrong.add("the new build ran " + news.size() + " times, not 4: " + news);
      } else {
        Outcome first = news.get(0);
        if (first.report() == null || first.report().status() != PublishStatus.SKIPPED
            || first.report().claim() == null || first.report().claim().status() != ClaimStatus.WAITED_SKIPPED
            || !first.report().claim().claimant().writer().equals("old-build")
            || (!olds.isEmpty() && !first.window().equals(olds.get(0).window()))) {
          wrong.add("the new build did not skip the old build's window by its claim: " + first);
        }
        for (Outcome o : news.subList(1, 3)) {
          if (o.report() == null || o.report().status() != PublishStatus.CREATED) {
            wrong.add("the new build did not publish its window: " + o);
          }
        }
        Outcome stopped = news.get(3);
        if (freshDrained || !(stopped.failure() instanceof RunStoppedException)) {
          wrong.add("the new build's last export was not interrupted past its drain: " + stopped);
        }
        RunSpec last = RunSpec.of("border-state", stopped.window(), 1).withInput("snapshot", "2026-12-06");
        if (store.exists(last.outputKey().toString())) {
          wrong.add("the interrupted export was published: " + last.outputKey());
        }
        Optional<PointerState> latest = store.readPointer("border-state");
        String expected = news.get(2).report() == null ? "?" : news.get(2).report().key().toString();
        if (latest.isEmpty() || !latest.get().pointer().key().equals(expected)) {
          wrong.add("latest is " + latest.map(p -> p.pointer().key()).orElse("none") + ", not " + expected);
        }
      }
      int exports = old.exports.get() + fresh.exports.get();
      System.out.println("exports run: " + exports + " for 4 windows (" + old.exports.get() + " by the old build, "
          + fresh.exports.get() + " by the new one, the last of them interrupted)");
      if (exports != 4) {
        wrong.add("a window was exported twice: " + exports + " exports for 4 windows");
      }
      if (!store.claims().orElseThrow().listClaims("border-state").isEmpty()) {
        wrong.add("claims left behind: " + store.claims().orElseThrow().listClaims("border-state"));
      }
    }
    if (!wrong.isEmpty()) {
      fail(String.join("\n  ", wrong));
    }
    System.out.println("one export and one object per window; the new build skipped by claim; the drained export"
        + " was published, the interrupted one was not");
  }

  private static void fail(String why) {
    System.err.println("unexpected: " + why);
    System.exit(1);
  }

  /** The export: a pure function of the window and the inputs, as a job's must be. */
  private static byte[] export(RunSpec spec) {
    return ("window_start,rows\n" + spec.window().startEpochSecond() + ",42\n").getBytes(StandardCharsets.UTF_8);
  }
}
