package dev.idem.fuzz;

import dev.idem.core.store.ObjectStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a {@link Scenario} for real and checks it: replicas as threads of this JVM or as
 * {@link ReplicaProcess}es, readers following the pointer throughout, then {@link InvariantChecker}.
 *
 * <p>Every replica is released at one instant (processes first report READY, so JVM start-up does not
 * skew the start delays); each then sleeps its start delay and runs {@link ReplicaJob}.
 */
final class ScenarioRunner {
  private static final AtomicInteger RUNS = new AtomicInteger();
  private static final long SCENARIO_TIMEOUT_SECONDS = 90;

  private final Backend backend;

  ScenarioRunner(Backend backend) {
    this.backend = backend;
  }

  /** Per-replica record of what happened. */
  static final class ReplicaRecord {
    final Replica replica;
    final List<Attempt> attempts = java.util.Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger taskRuns = new AtomicInteger();
    volatile boolean stepReached;
    /**
     * For a replica thread, the thread that reached its step: its own, or its claim heartbeat's (a
     * renewal's calls on the filesystem), which a death then stops while the replica goes on.
     */
    volatile Thread stepThread;
    volatile boolean killed;
    volatile Process process;
    volatile Thread pump;
    volatile Thread thread;
    volatile long goNanos;
    final StringBuilder processLog = new StringBuilder();

    ReplicaRecord(Replica replica) {
      this.replica = replica;
    }

    List<Attempt> attempts() {
      synchronized (attempts) {
        return List.copyOf(attempts);
      }
    }

    /**
     * Whether the replica died or hit a fault: it may have done more than it reported. A stall is not a
     * disturbance: the replica goes on and owes everything a clean run owes.
     */
    boolean disturbed() {
      return killed || stepReached && !(replica.fate() instanceof Fate.Stalls)
          || attempts().stream().anyMatch(a -> a.result() != Attempt.Result.OK);
    }

    @Override
    public String toString() {
      return "replica " + replica.id() + ": " + attempts() + (taskRuns.get() > 0 ? " task ran " + taskRuns.get() + "x" : "")
          + (stepReached ? " (step reached)" : "") + (killed ? " (killed)" : "");
    }
  }

  /** Everything a run produced, for the checker. */
  record RunRecord(Scenario scenario, String namespace, List<ReplicaRecord> replicas, List<String> violations,
      ConcurrentMap<String, String> contentByKey, List<PointerFollower> readers) {}

  /**
   * What one run showed: the broken contracts (empty when every contract held) and, per replica with a
   * death or a fault, whether its step was reached, and each publish's claim status with its replica's
   * claim fate (for jqwik's statistics).
   */
  record Result(List<String> violations, List<String> fates, List<String> claims) {}

  /** Runs and checks {@code s}; returns the violations found (empty when every contract held). */
  List<String> runAndCheck(Scenario s) throws Exception {
    return runCheckAndCount(s).violations();
  }

  Result runCheckAndCount(Scenario s) throws Exception {
    long t0 = System.nanoTime();
    try {
      return runAndCheckOnce(s);
    } finally {
      ScenarioCount.ran(backend.kind(), System.nanoTime() - t0);
    }
  }

  private Result runAndCheckOnce(Scenario s) throws Exception {
    String namespace = "f" + Integer.toString(RUNS.incrementAndGet(), 36) + "-" + Long.toString(System.nanoTime() % 1_000_000_000L, 36);
    try (Backend.Run run = backend.begin(namespace)) {
      RunRecord record = execute(s, namespace, run);
      new InvariantChecker(record, run).check();
      List<String> fates = new ArrayList<>();
      for (ReplicaRecord rec : record.replicas()) {
        Fate f = rec.replica.fate();
        String what = f instanceof Fate.Dies d ? d.death().name() : f instanceof Fate.Faulted x ? x.fault().name()
            : f instanceof Fate.Stalls st ? (st.millis() >= Scenarios.LOCK_STALL_MS ? "LOCK_STALL" : "STALL")
            : f instanceof Fate.ClockAhead ? "CLOCK_AHEAD" : null;
        if (what != null) {
          boolean hit = rec.stepReached || rec.attempts().stream().anyMatch(a -> a.result() != Attempt.Result.OK);
          fates.add(what + (hit ? " hit" : " step not reached"));
        }
      }
      List<String> claims = new ArrayList<>();
      for (ReplicaRecord rec : record.replicas()) {
        for (Attempt a : rec.attempts()) {
          if (a.claim() != null && a.claim().status() != null) {
            claims.add(a.claim().status() + (rec.replica.claimFate().equals(ClaimFate.NORMAL) ? ""
                : " (" + rec.replica.claimFate().kind().name().toLowerCase(java.util.Locale.ROOT) + ")"));
          }
        }
      }
      return new Result(List.copyOf(record.violations()), fates, claims);
    }
  }

  private RunRecord execute(Scenario s, String namespace, Backend.Run run) throws Exception {
    List<String> violations = PointerFollower.syncList();
    List<ReplicaRecord> records = new ArrayList<>();
    for (Replica r : s.replicas()) {
      records.add(new ReplicaRecord(r));
    }
    List<String> pipelines = new ArrayList<>();
    for (int p = 0; p < s.pipelines(); p++) {
      pipelines.add(Replica.pipelineName(namespace, p));
    }
    ConcurrentMap<String, String> contentByKey = new ConcurrentHashMap<>();
    List<PointerFollower> readers = new ArrayList<>();
    List<Thread> readerThreads = new ArrayList<>();
    List<ObjectStore> readerStores = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    Forger forger = null;
    try {
      run.prepare(s);
      if (s.claims().forgery() == ClaimSetup.Forgery.FRESH) {
        forger = new Forger(run.observer(), s.replicas().get(0).spec(namespace).outputKey().toString(), s.claims());
      }
      for (ReplicaRecord rec : records) {
        if (rec.replica.process()) {
          startProcess(backend.kind(), rec, namespace, s.claims(), run, violations);
        }
      }
      for (ReplicaRecord rec : records) {
        if (rec.replica.process()) {
          awaitReady(rec, violations);
        }
      }
      for (int i = 0; i < s.readers(); i++) {
        ObjectStore rs = run.observer();
        readerStores.add(rs);
        PointerFollower f = new PointerFollower(rs, pipelines, contentByKey, violations, backend.kind() == Backend.Kind.S3 ? 5 : 1);
        readers.add(f);
        Thread t = new Thread(f, "reader-" + i);
        t.setDaemon(true);
        readerThreads.add(t);
        t.start();
      }
      for (ReplicaRecord rec : records) {
        if (!rec.replica.process()) {
          Thread t = new Thread(() -> runThread(rec, namespace, s.claims(), run, backend.kind(), go, violations),
              "replica-" + rec.replica.id());
          t.setDaemon(true);
          rec.thread = t;
          threads.add(t);
          t.start();
        }
      }
      long goNanos = System.nanoTime();
      for (ReplicaRecord rec : records) {
        rec.goNanos = goNanos;
        if (rec.process != null) {
          try {
            OutputStream in = rec.process.getOutputStream();
            in.write("GO\n".getBytes(StandardCharsets.US_ASCII));
            in.flush();
          } catch (IOException e) {
            synchronized (rec) {
              violations.add("replica " + rec.replica.id() + "'s process was gone before GO (" + e.getMessage() + "):\n"
                  + rec.processLog);
            }
          }
        }
      }
      go.countDown();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SCENARIO_TIMEOUT_SECONDS);
      for (Thread t : threads) {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        if (t.isAlive()) {
          violations.add("hung: " + t.getName() + " did not finish within " + SCENARIO_TIMEOUT_SECONDS + "s");
        }
      }
      for (ReplicaRecord rec : records) {
        if (rec.process != null && !rec.process.waitFor(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
          violations.add("hung: replica " + rec.replica.id() + "'s process did not exit within " + SCENARIO_TIMEOUT_SECONDS
              + "s; its output:\n" + rec.processLog);
        }
        if (rec.pump != null) {
          rec.pump.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
      }
    } finally {
      if (forger != null) {
        forger.close();
      }
      for (ReplicaRecord rec : records) {
        if (rec.process != null && rec.process.isAlive()) {
          rec.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      }
      readers.forEach(PointerFollower::stop);
      for (Thread t : readerThreads) {
        t.join(30_000);
      }
      for (ObjectStore rs : readerStores) {
        rs.close();
      }
    }
    violations.addAll(run.clearHazard());
    return new RunRecord(s, namespace, records, violations, contentByKey, readers);
  }

  /**
   * A writer that never publishes: claims a key before the replicas start and keeps its claim fresh for
   * {@link ClaimSetup#forgeryMs()}, then stops renewing and leaves it to go stale ({@link
   * ClaimSetup.Forgery#FRESH}).
   */
  private static final class Forger implements AutoCloseable {
    private final ObjectStore store;
    private final Thread thread;

    Forger(ObjectStore store, String key, ClaimSetup setup) throws IOException {
      this.store = store;
      dev.idem.core.store.Claims claims = store.claims().orElse(null);
      if (claims == null) {
        thread = null;
        return;
      }
      java.time.Duration ttl = java.time.Duration.ofMillis(setup.ttlMs());
      dev.idem.core.store.Claim first = claims.claim(key, ClaimSetup.FORGER, null, ttl).claim();
      long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(setup.forgeryMs());
      thread = new Thread(() -> {
        dev.idem.core.store.Claim held = first;
        try {
          while (System.nanoTime() < until) {
            Thread.sleep(Math.max(1, setup.ttlMs() / 3));
            held = claims.renewClaim(held);
          }
        } catch (IOException | InterruptedException stopped) {
          // The forger's claim is left as it is: fresh until it goes stale.
        }
      }, "claim-forger");
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    public void close() throws IOException {
      if (thread != null) {
        thread.interrupt();
        try {
          thread.join(10_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      store.close();
    }
  }

  private static void runThread(ReplicaRecord rec, String namespace, ClaimSetup claims, Backend.Run run, Backend.Kind kind,
      CountDownLatch go, List<String> violations) {
    FateHook hook = new FateHook(rec.replica.fate(), step -> {
      throw new IllegalStateException("a thread replica cannot be killed by a signal");
    });
    try (ObjectStore store = run.replicaStore(rec.replica, hook)) {
      go.await();
      Thread.sleep(rec.replica.startMs());
      ReplicaJob.run(store, rec.replica, claims, namespace, kind, new ReplicaJob.Listener() {
        @Override
        public void taskRan() {
          rec.taskRuns.incrementAndGet();
        }

        @Override
        public long attemptStarting() {
          return System.nanoTime();
        }

        @Override
        public void attemptEnded(Attempt attempt) {
          rec.attempts.add(attempt);
        }
      }, hook::died);
    } catch (Exception | Error e) {
      violations.add("replica " + rec.replica.id() + "'s thread failed outside publish: " + e);
    } finally {
      rec.stepReached = hook.fired();
      rec.stepThread = hook.firedOn();
    }
  }

  private static void startProcess(Backend.Kind kind, ReplicaRecord rec, String namespace, ClaimSetup claims, Backend.Run run,
      List<String> violations) throws IOException {
    Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> cmd = new ArrayList<>(List.of(javaBin.toString(), "-cp", System.getProperty("java.class.path"),
        "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k", "-Xmx128m",
        ReplicaProcess.class.getName(), kind.name(), namespace, ReplicaCodec.encode(rec.replica), claims.encode()));
    // The parent-side hook is the S3 proxy's: it kills the process while holding its request.
    FateHook parentHook = new FateHook(rec.replica.fate(), step -> {
      rec.stepReached = true;
      kill(rec);
    });
    cmd.addAll(run.processArgs(rec.replica, parentHook));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    Path err = Files.createTempFile("idem-fuzz-replica", ".err");
    pb.redirectError(err.toFile());
    rec.process = pb.start();
    Thread pump = new Thread(() -> pump(rec, err, violations), "pump-" + rec.replica.id());
    pump.setDaemon(true);
    rec.pump = pump;
    pump.start();
  }

  private static void awaitReady(ReplicaRecord rec, List<String> violations) throws InterruptedException {
    synchronized (rec) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (rec.processLog.indexOf("READY\n") < 0 && rec.process.isAlive() && System.nanoTime() < deadline) {
        rec.wait(100);
      }
      if (rec.processLog.indexOf("READY\n") < 0) {
        violations.add("replica " + rec.replica.id() + "'s process never became ready:\n" + rec.processLog);
      }
    }
  }

  private static void pump(ReplicaRecord rec, Path err, List<String> violations) {
    try {
      try (BufferedReader out = new BufferedReader(new InputStreamReader(rec.process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = out.readLine()) != null; ) {
          synchronized (rec) {
            rec.processLog.append(line).append('\n');
            rec.notifyAll();
          }
          if (line.equals("TASK")) {
            rec.taskRuns.incrementAndGet();
          } else if (line.startsWith("ATTEMPT ")) {
            // The child's call began after GO plus its start delay, and returned before this line arrived.
            long invoke = rec.goNanos + TimeUnit.MILLISECONDS.toNanos(rec.replica.startMs());
            rec.attempts.add(Attempt.decode(line.substring(8), invoke, System.nanoTime()));
          } else if (line.startsWith("STEP ")) {
            rec.stepReached = true;
            kill(rec);
          } else if (line.equals("FIRED")) {
            rec.stepReached = true;
          }
        }
      } catch (IOException e) {
        if (!rec.killed) {
          throw e;
        }
        // Killing a process closes our end of its pipes.
      }
      int exit = rec.process.waitFor();
      if (rec.killed) {
        rec.attempts.add(new Attempt(Attempt.Result.DIED, null, null, null, null, "exit " + exit, 0, 0));
      } else if (exit != 0) {
        violations.add("replica " + rec.replica.id() + "'s process exited " + exit + ":\n" + rec.processLog
            + Files.readString(err));
      }
    } catch (IOException | InterruptedException e) {
      violations.add("lost replica " + rec.replica.id() + "'s process output: " + e);
    } finally {
      try {
        Files.deleteIfExists(err);
      } catch (IOException ignored) {
        // A temp file in the system temp dir; nothing depends on it.
      }
    }
  }

  /** Sends the fate's signal and waits until the process is gone. */
  private static void kill(ReplicaRecord rec) {
    Fate.Dies d = (Fate.Dies) rec.replica.fate();
    rec.killed = true;
    if (d.death() == Fate.Death.SIGTERM) {
      rec.process.destroy();
    } else {
      rec.process.destroyForcibly();
    }
    try {
      rec.process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
