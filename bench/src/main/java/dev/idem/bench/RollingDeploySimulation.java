package dev.idem.bench;

import dev.idem.core.Idem;
import dev.idem.core.OutputKey;
import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.publish.ClaimPolicy;
import dev.idem.core.publish.ClaimReport;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.PublishStatus;
import dev.idem.core.publish.Publisher;
import dev.idem.core.scan.DivergenceScan;
import dev.idem.core.scan.KeyVerdict;
import dev.idem.core.store.Claim;
import dev.idem.core.store.Claims;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.store.fs.FsObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A rolling deploy, replayed against the real publisher and filesystem store in scaled-down real time,
 * to measure what advisory claims and draining save: how much task work each window costs when an old
 * and a new replica overlap, and what they cost when nothing overlaps.
 *
 * <p>One pipeline runs on a fixed schedule (a window every {@code --window} seconds). One replica is
 * live at a time except during a deploy: at a random moment while the old replica's task for a window
 * runs, a new replica starts (a new build: its task writes different bytes), runs the newest closed window at once (a
 * scheduler's catch-up on start, which is how two replicas come to run one window), and then every
 * window; {@code --ready} later the old replica is told to stop (Kubernetes' SIGTERM) and schedules
 * nothing more. Each task sleeps for a time drawn from {@code --task-min}..{@code --task-max} (the
 * source article's 90-180 s, scaled down 100 times by default); the draws, the deploy moments and the
 * order of events are the same for every configuration (one seed), so the configurations differ only
 * in what the replicas do:
 *
 * <ul>
 *   <li><b>today</b>: claims off; a stopped replica's task is killed (what {@code idem run} does on
 *       SIGTERM without a drain: its work is lost);
 *   <li><b>claims</b>: claims on, stop kills the task: a waiting replica takes over when the old one's
 *       claim is released;
 *   <li><b>claims+drain</b>: claims on, a stopped replica lets its task finish and publish within
 *       {@code --drain} ({@code idem run --on-term finish}), keeping its claim fresh, so the new
 *       replica waits and skips;
 *   <li><b>claims+drain, claims lost</b>: as claims+drain on a store that drops every claim (written
 *       nowhere, read as none): the fault that turns claims off, which may cost work, never safety.
 * </ul>
 *
 * A stop reaching a replica that is waiting on a claim ends that run at once (nothing ran); one
 * reaching a publish in progress lets it finish, as {@code idem run} does.
 *
 * <p>Measured per configuration: task work per window (one full task run = 1.0; a killed run counts the
 * fraction it ran), over all windows and over the windows a deploy overlapped; windows published;
 * DIVERGENT outcomes reported and whether the divergence scan finds each (a lost divergence would be one
 * it does not); clobbers (a window whose stored bytes are not those of the run that reported CREATED);
 * the time from a window's close to its publish, in windows no deploy overlapped; and the longest claim wait. Run it with
 * {@code java -cp bench/target/benchmarks.jar dev.idem.bench.RollingDeploySimulation} ({@code --help}
 * lists the options); it prints a Markdown table.
 */
public final class RollingDeploySimulation {

  /** What the replicas of one configuration do. */
  record Config(String name, boolean claims, boolean drain, boolean claimsLost) {}

  static final List<Config> CONFIGS = List.of(
      new Config("today", false, false, false),
      new Config("claims", true, false, false),
      new Config("claims+drain", true, true, false),
      new Config("claims+drain, claims lost", true, true, true));

  /** The scenario, the same for every configuration. */
  record Params(long seed, int windows, int windowSeconds, Duration taskMin, Duration taskMax, int deploys,
      Duration ready, Duration drain, Duration ttl, Duration poll, Duration waitBound) {

    ClaimPolicy policy() {
      return ClaimPolicy.defaults().ttl(ttl).heartbeat(ttl.dividedBy(3)).poll(poll).waitAtMost(waitBound);
    }
  }

  /** One run of the task cycle by one replica for one window. */
  static final class Run {
    final int window;
    final int version;
    volatile String outcome = "not started";
    volatile ClaimReport claim;
    volatile double work;
    volatile long publishedAtNanos;

    Run(int window, int version) {
      this.window = window;
      this.version = version;
    }
  }

  /**
   * Per-configuration figures. {@code closeToPublishMillis} is by window: from its close to the return
   * of the publish that created it, in windows no deploy overlapped; -1 elsewhere.
   */
  record Result(Config config, int windows, int published, double workAll, double workDeploy, int deployWindows,
      int divergentReported, int divergentFound, int clobbers, long[] closeToPublishMillis, Duration worstWait,
      int skippedByClaim, int takeovers, int waitsExpired) {}

  private final Params params;

  RollingDeploySimulation(Params params) {
    this.params = params;
  }

  /** The task's duration for a window and a build, the same in every configuration. */
  Duration taskTime(int window, int version) {
    Random r = new Random(params.seed() * 1_000_003L + window * 31L + version);
    long min = params.taskMin().toNanos();
    long span = params.taskMax().toNanos() - min;
    return Duration.ofNanos(min + (long) (r.nextDouble() * span));
  }

  /**
   * The deploys: for each, the window whose run the new replica overlaps, and how far into the old
   * replica's task it starts (a fraction of the task's time, uniform). At least two windows apart, never
   * the first or last two.
   */
  List<double[]> deployPlan() {
    Random r = new Random(params.seed());
    List<Integer> candidates = new ArrayList<>();
    for (int w = 2; w < params.windows() - 2; w++) {
      candidates.add(w);
    }
    Collections.shuffle(candidates, r);
    TreeSet<Integer> chosen = new TreeSet<>();
    for (int w : candidates) {
      if (chosen.size() == params.deploys()) {
        break;
      }
      Integer lower = chosen.floor(w);
      Integer higher = chosen.ceiling(w);
      if ((lower == null || w - lower >= 2) && (higher == null || higher - w >= 2)) {
        chosen.add(w);
      }
    }
    List<double[]> plan = new ArrayList<>();
    for (int w : chosen) {
      plan.add(new double[] {w, r.nextDouble()});
    }
    return plan;
  }

  /** Runs one configuration against a fresh store under {@code dir}. */
  Result run(Config config, Path dir) throws Exception {
    FsObjectStore fs = FsObjectStore.open(dir);
    ObjectStore store = config.claimsLost() ? claimsLost(fs) : fs;
    long w = params.windowSeconds();
    // The first window closes at the next whole boundary at least a second away.
    long firstClose = (Instant.now().getEpochSecond() / w + 2) * w;
    long originNanos = System.nanoTime() + Duration.between(Instant.now(), Instant.ofEpochSecond(firstClose)).toNanos();
    Timeline time = new Timeline(originNanos, w);
    List<Run> runs = Collections.synchronizedList(new ArrayList<>());
    List<double[]> plan = deployPlan();
    Set<Integer> deployWindows = new HashSet<>();
    List<Replica> replicas = new ArrayList<>();
    Replica first = new Replica(1, store, config, time, runs, firstClose);
    replicas.add(first);
    first.startAt(0, false);
    Replica live = first;
    for (double[] d : plan) {
      int window = (int) d[0];
      deployWindows.add(window);
      // While the old replica's task for this window runs: the overlap a deploy makes costly.
      long startNanos = time.closeNanos(window) + (long) (d[1] * taskTime(window, live.version).toNanos());
      Replica next = new Replica(live.version + 1, store, config, time, runs, firstClose);
      replicas.add(next);
      time.sleepUntil(startNanos);
      next.startAt(window, true);
      time.sleepUntil(startNanos + params.ready().toNanos());
      live.stop();
      live = next;
    }
    // The live replica schedules up to the last window and lets its runs finish: nothing stops it.
    for (Replica r : replicas) {
      r.join();
    }
    Result result = measure(config, store, runs, deployWindows, time, firstClose);
    fs.close();
    return result;
  }

  private Result measure(Config config, ObjectStore store, List<Run> runs, Set<Integer> deployWindows,
      Timeline time, long firstClose) throws IOException {
    int published = 0;
    int clobbers = 0;
    double workAll = 0;
    double workDeploy = 0;
    int divergentReported = 0;
    long[] latency = new long[params.windows()];
    Arrays.fill(latency, -1);
    Duration worstWait = Duration.ZERO;
    int skippedByClaim = 0;
    int takeovers = 0;
    int waitsExpired = 0;
    for (int window = 0; window < params.windows(); window++) {
      String key = spec(window, firstClose).outputKey().toString();
      Run created = null;
      double work = 0;
      for (Run r : runs) {
        if (r.window != window) {
          continue;
        }
        work += r.work;
        if (r.outcome.equals(PublishStatus.CREATED.name())) {
          created = r;
        }
        if (r.outcome.equals(PublishStatus.DIVERGENT.name())) {
          divergentReported++;
        }
        ClaimReport c = r.claim;
        if (c != null) {
          worstWait = c.waited().compareTo(worstWait) > 0 ? c.waited() : worstWait;
          switch (c.status()) {
            case WAITED_SKIPPED -> skippedByClaim++;
            case TAKEN_OVER -> takeovers++;
            case WAIT_EXPIRED -> waitsExpired++;
            default -> { }
          }
        }
      }
      workAll += work;
      if (deployWindows.contains(window)) {
        workDeploy += work;
      }
      Optional<InputStream> in = store.open(key);
      if (in.isPresent()) {
        published++;
        byte[] stored;
        try (InputStream s = in.get()) {
          stored = s.readAllBytes();
        }
        if (created == null || !Arrays.equals(stored, output(window, created.version))) {
          clobbers++;
        }
        if (created != null && !deployWindows.contains(window)) {
          latency[window] = TimeUnit.NANOSECONDS.toMillis(created.publishedAtNanos - time.closeNanos(window));
        }
      }
    }
    int[] found = {0};
    new DivergenceScan().run(store, "", new DivergenceScan.Listener() {
      @Override
      public void divergent(KeyVerdict verdict) {
        found[0]++;
      }
    });
    return new Result(config, params.windows(), published, workAll / params.windows(),
        deployWindows.isEmpty() ? 0 : workDeploy / deployWindows.size(), deployWindows.size(), divergentReported,
        found[0], clobbers, latency, worstWait, skippedByClaim, takeovers, waitsExpired);
  }

  RunSpec spec(int window, long firstClose) {
    long w = params.windowSeconds();
    return RunSpec.of("deploy-sim", new Window(firstClose + (window - 1) * w, w), 1);
  }

  /** What build {@code version}'s task writes for a window: builds differ, so their outputs do. */
  static byte[] output(int window, int version) {
    return ("window " + window + " by build " + version + "\n").getBytes(StandardCharsets.UTF_8);
  }

  /** Real time, with the windows' closes on it. */
  record Timeline(long originNanos, long windowSeconds) {
    /** When window {@code n} closes (window 0 closes at the origin). */
    long closeNanos(int n) {
      return originNanos + n * windowSeconds * 1_000_000_000L;
    }

    void sleepUntil(long nanos) throws InterruptedException {
      long left;
      while ((left = nanos - System.nanoTime()) > 0) {
        TimeUnit.NANOSECONDS.sleep(left);
      }
    }
  }

  /** One replica: a scheduler that starts a run at every close from its start until it is stopped. */
  final class Replica {
    final int version;
    private final Publisher publisher;
    private final Config config;
    private final Timeline time;
    private final List<Run> runs;
    private final long firstClose;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final List<Thread> workers = Collections.synchronizedList(new ArrayList<>());
    private final List<RunControl> inFlight = Collections.synchronizedList(new ArrayList<>());
    private Thread scheduler;

    Replica(int version, ObjectStore store, Config config, Timeline time, List<Run> runs, long firstClose) {
      this.version = version;
      this.config = config;
      this.time = time;
      this.runs = runs;
      this.firstClose = firstClose;
      this.publisher = Idem.publisher(store).writer("replica-" + version)
          .claims(config.claims() ? params.policy() : ClaimPolicy.off()).build();
    }

    /** Starts scheduling from window {@code from}; with {@code catchUp}, runs window {@code from} at once. */
    void startAt(int from, boolean catchUp) {
      scheduler = new Thread(() -> {
        try {
          int next = from;
          if (catchUp) {
            launch(from);
            next = from + 1;
          }
          for (int window = next; window < params.windows(); window++) {
            long wait = time.closeNanos(window) - System.nanoTime();
            if (wait > 0 && stopped.await(wait, TimeUnit.NANOSECONDS)) {
              return;
            }
            if (stopped.getCount() == 0) {
              return;
            }
            launch(window);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "replica-" + version);
      scheduler.start();
    }

    private void launch(int window) {
      Run run = new Run(window, version);
      runs.add(run);
      RunControl control = new RunControl();
      Thread worker = new Thread(() -> execute(run, control), "replica-" + version + "-window-" + window);
      control.thread = worker;
      inFlight.add(control);
      workers.add(worker);
      worker.start();
    }

    private void execute(Run run, RunControl control) {
      Duration length = taskTime(run.window, version);
      try {
        PublishReport report = publisher.publish(spec(run.window, firstClose), (s, k) -> {
          control.taskStarted();
          long start = System.nanoTime();
          boolean killed = control.killed.await(length.toNanos(), TimeUnit.NANOSECONDS);
          run.work = Math.min(1.0, (System.nanoTime() - start) / (double) length.toNanos());
          if (killed) {
            throw new IllegalStateException("killed by the stop");
          }
          control.publishing();
          return Payload.ofBytes(output(run.window, version));
        });
        run.publishedAtNanos = System.nanoTime();
        run.claim = report.claim();
        run.outcome = report.status().name();
      } catch (Exception e) {
        run.outcome = "FAILED: " + e.getMessage();
      } finally {
        inFlight.remove(control);
      }
    }

    /** Stop (SIGTERM): no new runs; runs in flight are killed, or drained within the deadline. */
    void stop() {
      stopped.countDown();
      List<RunControl> now;
      synchronized (inFlight) {
        now = new ArrayList<>(inFlight);
      }
      for (RunControl c : now) {
        c.stop(config.drain() ? params.drain() : Duration.ZERO);
      }
    }

    void join() throws InterruptedException {
      scheduler.join();
      List<Thread> all;
      synchronized (workers) {
        all = new ArrayList<>(workers);
      }
      for (Thread t : all) {
        t.join();
      }
    }
  }

  /** How a stop reaches one run: a run waiting on a claim ends at once; a task is killed, or drained. */
  static final class RunControl {
    enum Phase { WAITING, TASK, PUBLISHING }

    volatile Thread thread;
    final CountDownLatch killed = new CountDownLatch(1);
    private Phase phase = Phase.WAITING;

    synchronized void taskStarted() throws InterruptedException {
      if (Thread.interrupted()) {
        throw new InterruptedException("stopped before the task started");
      }
      phase = Phase.TASK;
    }

    synchronized void publishing() {
      phase = Phase.PUBLISHING;
    }

    void stop(Duration drain) {
      synchronized (this) {
        if (phase == Phase.WAITING) {
          thread.interrupt();
          return;
        }
        if (phase == Phase.PUBLISHING) {
          return;
        }
      }
      if (drain.isZero()) {
        killed.countDown();
        return;
      }
      Thread deadline = new Thread(() -> {
        try {
          thread.join(drain.toMillis());
        } catch (InterruptedException e) {
          return;
        }
        killed.countDown();
      });
      deadline.setDaemon(true);
      deadline.start();
    }
  }

  /**
   * {@code store} with its claims dropped: a claim is reported held but written nowhere, every key
   * reads as unclaimed. Everything else is the store's own.
   */
  static ObjectStore claimsLost(ObjectStore store) {
    Claims lost = new Claims() {
      @Override
      public Claimed claim(String key, String writer, Duration expected, Duration ttl) {
        return new Claimed(Result.HELD, new Claim(key, "lost", writer, Instant.now(), expected, Duration.ZERO));
      }

      @Override
      public Claim renewClaim(Claim held) {
        return held;
      }

      @Override
      public boolean releaseClaim(Claim claim) {
        return false;
      }

      @Override
      public Optional<Claim> readClaim(String key) {
        return Optional.empty();
      }

      @Override
      public List<Claim> listClaims(String prefix) {
        return List.of();
      }
    };
    InvocationHandler forward = (proxy, method, args) -> {
      if (method.getName().equals("claims") && method.getParameterCount() == 0) {
        return Optional.of(lost);
      }
      try {
        return method.invoke(store, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    };
    Set<Class<?>> interfaces = new java.util.LinkedHashSet<>();
    for (Class<?> c = store.getClass(); c != null; c = c.getSuperclass()) {
      interfaces.addAll(Arrays.asList(c.getInterfaces()));
    }
    interfaces.remove(Claims.class);
    return (ObjectStore) Proxy.newProxyInstance(RollingDeploySimulation.class.getClassLoader(),
        interfaces.toArray(new Class<?>[0]), forward);
  }

  static String table(Params p, List<Result> results) {
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "%d windows of %d s, %d deploys (new replica ready after %d ms, drain "
            + "deadline %d ms), tasks %d-%d ms, claims ttl %d ms, poll %d ms, wait bound %d ms, seed %d; load "
            + "average %s%n%n",
        p.windows(), p.windowSeconds(), p.deploys(), p.ready().toMillis(), p.drain().toMillis(), p.taskMin().toMillis(),
        p.taskMax().toMillis(), p.ttl().toMillis(), p.poll().toMillis(), p.waitBound().toMillis(), p.seed(),
        Machine.loadAverage()));
    out.append("| configuration | task runs per window | in deploy windows | windows published | divergent "
        + "(reported / found by scan) | clobbers | close to publish, no deploy: p50 | later than the first row, "
        + "same window: p50 / max | worst claim wait | skipped by claim / takeovers / waits expired |\n");
    out.append("|---|---|---|---|---|---|---|---|---|---|\n");
    long[] base = results.isEmpty() ? new long[0] : results.get(0).closeToPublishMillis();
    for (Result r : results) {
      long[] lat = Arrays.stream(r.closeToPublishMillis()).filter(v -> v >= 0).sorted().toArray();
      List<Long> later = new ArrayList<>();
      for (int w = 0; w < base.length && w < r.closeToPublishMillis().length; w++) {
        if (base[w] >= 0 && r.closeToPublishMillis()[w] >= 0) {
          later.add(r.closeToPublishMillis()[w] - base[w]);
        }
      }
      Collections.sort(later);
      out.append(String.format(Locale.ROOT, "| %s | %.2f | %.2f | %d / %d | %d / %d | %d | %s ms | %s / %s ms | %d ms "
              + "| %d / %d / %d |%n",
          r.config().name(), r.workAll(), r.workDeploy(), r.published(), r.windows(), r.divergentReported(),
          r.divergentFound(), r.clobbers(), lat.length == 0 ? "-" : String.valueOf(lat[lat.length / 2]),
          later.isEmpty() ? "-" : later.get(later.size() / 2), later.isEmpty() ? "-" : later.get(later.size() - 1),
          r.worstWait().toMillis(), r.skippedByClaim(), r.takeovers(), r.waitsExpired()));
    }
    return out.toString();
  }

  public static void main(String[] args) throws Exception {
    long seed = 1;
    int windows = 40;
    int windowSeconds = 3;
    int deploys = 10;
    long taskMin = 900;
    long taskMax = 1800;
    long ready = 300;
    long drain = 2000;
    long ttl = 600;
    long poll = 50;
    long waitBound = 3000;
    List<String> only = null;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--help")) {
        System.out.println("usage: RollingDeploySimulation [--seed N] [--windows N] [--window SECONDS] [--deploys N] "
            + "[--task-min MS] [--task-max MS] [--ready MS] [--drain MS] [--ttl MS] [--poll MS] [--wait MS] "
            + "[--only today,claims,...]");
        return;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(a + " needs a value");
      }
      String v = args[++i];
      switch (a) {
        case "--seed" -> seed = Long.parseLong(v);
        case "--windows" -> windows = Integer.parseInt(v);
        case "--window" -> windowSeconds = Integer.parseInt(v);
        case "--deploys" -> deploys = Integer.parseInt(v);
        case "--task-min" -> taskMin = Long.parseLong(v);
        case "--task-max" -> taskMax = Long.parseLong(v);
        case "--ready" -> ready = Long.parseLong(v);
        case "--drain" -> drain = Long.parseLong(v);
        case "--ttl" -> ttl = Long.parseLong(v);
        case "--poll" -> poll = Long.parseLong(v);
        case "--wait" -> waitBound = Long.parseLong(v);
        case "--only" -> only = List.of(v.split(","));
        default -> throw new IllegalArgumentException("unknown option " + a + " (--help lists them)");
      }
    }
    Params p = new Params(seed, windows, windowSeconds, Duration.ofMillis(taskMin), Duration.ofMillis(taskMax), deploys,
        Duration.ofMillis(ready), Duration.ofMillis(drain), Duration.ofMillis(ttl), Duration.ofMillis(poll),
        Duration.ofMillis(waitBound));
    RollingDeploySimulation sim = new RollingDeploySimulation(p);
    List<Result> results = new ArrayList<>();
    for (Config c : CONFIGS) {
      if (only != null && !only.contains(c.name())) {
        continue;
      }
      Path dir = BenchDirs.fresh("deploy-sim");
      try {
        System.err.println("running " + c.name() + " (" + windows * windowSeconds + " s) in " + dir);
        results.add(sim.run(c, dir));
      } finally {
        BenchDirs.deleteTree(dir);
      }
    }
    System.out.print(table(p, results));
  }
}
