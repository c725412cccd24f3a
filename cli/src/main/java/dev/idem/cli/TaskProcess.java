package dev.idem.cli;

import dev.idem.core.OutputKey;
import dev.idem.core.RunSpec;
import dev.idem.core.store.Payload;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs {@code idem run}'s CMD once and hands its result to the publisher.
 *
 * <p>Protocol:
 *
 * <ol>
 *   <li>{@link #arm()} registers a JVM shutdown hook before anything starts. From then on a SIGTERM
 *       or SIGINT to idem sets {@code signalled}, sends SIGTERM to CMD and its descendants, waits up
 *       to the grace period, then SIGKILLs what is left and deletes the temporary directory; the
 *       JVM then exits with 128 + signal (143 or 130).
 *   <li>{@link #produce} creates a private temporary directory, starts CMD with {@code IDEM_OUTPUT}
 *       (a path in it; or, with {@code --stdout}, CMD's stdout redirected to a file there) and the
 *       {@code IDEM_*} spec variables; stdin and stderr are inherited.
 *   <li>When CMD exits: if idem was signalled, nothing is returned (the result may be partial);
 *       if CMD exited non-zero, {@link CommandFailed} carries its code; if it exited 0 without
 *       writing {@code IDEM_OUTPUT}, that is a failure too (an empty result is never assumed).
 *       Otherwise the file is the payload.
 *   <li>{@link #close()} removes the hook and the temporary directory, unless the caller kept CMD's
 *       result there ({@link #keepResult}) because its publish failed.
 * </ol>
 *
 * <p>With {@link OnTerm#FINISH} ({@code --on-term finish}), {@link #arm()} also handles SIGTERM itself
 * ({@link SignalTrap}) and a SIGTERM that arrives once CMD has started drains instead: CMD is not
 * signalled and runs on, its result is published as usual (the publisher's claim heartbeat keeps
 * running meanwhile), and idem exits with the publish's code. A drain is bounded by the drain
 * deadline, counted from the signal to {@link #close()}; past it, or on a second SIGTERM, idem exits
 * 143 through the hook above (CMD stopped, nothing of it published). A SIGINT, or a SIGTERM before
 * CMD started (while waiting for another writer's claim), exits at once the same way.
 *
 * Starting CMD and noticing a signal are ordered by this object's monitor, so either the hook sees
 * the process (and stops it) or the main thread sees the signal (and never starts it).
 */
final class TaskProcess implements AutoCloseable {
  private final List<String> command;
  private final boolean captureStdout;
  private final Duration grace;
  private final PrintWriter stdoutSink;
  private final PrintWriter err;
  private final boolean progress;
  private final Duration progressAfter;
  private final OnTerm onTerm;
  private final Duration drainDeadline;
  private final Thread hook = new Thread(this::onSignal, "idem-run-signal");
  /** The SIGTERM handler of a drain, while armed with {@link OnTerm#FINISH}; else {@code null}. */
  private SignalTrap termTrap;

  private Path dir;
  /** CMD's result, once it exited 0 and wrote one; kept by {@link #keepResult}. */
  private Path result;
  private boolean kept;
  private Process process;
  private volatile boolean signalled;
  private boolean armed;
  /** A SIGTERM came after CMD started, with {@link OnTerm#FINISH}: CMD runs on and its result is published. */
  private boolean draining;
  /** The run is over ({@link #close()}): a drain ended in time, a signal now is the JVM's to handle. */
  private boolean finished;

  /** What a SIGTERM does to a running CMD: {@code --on-term}. */
  enum OnTerm {
    /** Stop CMD (SIGTERM, SIGKILL after the grace), publish nothing, exit 143. */
    ABORT,
    /** Let CMD finish, within the drain deadline, and publish its result. */
    FINISH
  }

  /** CMD exited non-zero; idem exits with the same code, unless {@code --cmd-exit} maps it. */
  static final class CommandFailed extends Exception {
    private static final long serialVersionUID = 1L;
    /**
     * Signals whose numbers are the same on Linux and the BSDs (macOS), by number; others are named by
     * number only, since e.g. 10 is SIGUSR1 on Linux and SIGBUS on macOS.
     */
    private static final String[] SIGNALS = {null, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", null,
        "SIGFPE", "SIGKILL", null, "SIGSEGV", null, "SIGPIPE", "SIGALRM", "SIGTERM"};
    final int code;

    CommandFailed(int code) {
      super(what(code));
      this.code = code;
    }

    /**
     * The signal that killed CMD, e.g. {@code SIGKILL} or {@code signal 10}; {@code null} when it exited.
     * The JDK reports a process killed by signal N as status 128 + N, as shells do, so a CMD that itself
     * exits with such a status reads the same.
     */
    String signal() {
      return signalOf(code);
    }

    private static String signalOf(int code) {
      int n = code - 128;
      if (n < 1 || n > 64) {
        return null;
      }
      return n < SIGNALS.length && SIGNALS[n] != null ? SIGNALS[n] : "signal " + n;
    }

    private static String what(int code) {
      String signal = signalOf(code);
      if (signal == null) {
        return "CMD exited with code " + code;
      }
      return "CMD was killed by " + signal + " ("
          + (signal.startsWith("SIG") ? "signal " + (code - 128) + ", " : "") + "exit status " + code + ")";
    }
  }

  /** idem was signalled while CMD ran; CMD was stopped and its result discarded. */
  static final class Signalled extends InterruptedException {
    private static final long serialVersionUID = 1L;

    Signalled() {
      super("interrupted by a signal; CMD was stopped and nothing was published");
    }
  }

  /**
   * @param stdoutSink where CMD's stdout goes when it is not the result (idem's stdout, or its
   *     stderr under {@code --json} so stdout holds only the report)
   * @param progressAfter a long-running CMD is reported on stderr first after this, then every minute
   * @param onTerm what a SIGTERM does once CMD has started
   * @param drainDeadline with {@link OnTerm#FINISH}, how long after a SIGTERM CMD may take to finish and be
   *     published before idem stops it as with {@link OnTerm#ABORT}
   */
  TaskProcess(List<String> command, boolean captureStdout, Duration grace, OnTerm onTerm, Duration drainDeadline,
      PrintWriter stdoutSink, PrintWriter err, boolean progress, Duration progressAfter) {
    this.onTerm = onTerm;
    this.drainDeadline = drainDeadline;
    this.command = List.copyOf(command);
    this.captureStdout = captureStdout;
    this.grace = grace;
    this.stdoutSink = stdoutSink;
    this.err = err;
    this.progress = progress;
    this.progressAfter = progressAfter;
  }

  /**
   * Installs the signal forwarding, and with {@link OnTerm#FINISH} the drain's SIGTERM handler; call before
   * the publisher may start CMD. A runtime that cannot handle SIGTERM itself is said on stderr (even under
   * --quiet: a drain was asked for) and SIGTERM then aborts.
   */
  TaskProcess arm() {
    Runtime.getRuntime().addShutdownHook(hook);
    armed = true;
    if (onTerm == OnTerm.FINISH) {
      try {
        termTrap = SignalTrap.install("TERM", this::onTerm);
      } catch (SignalTrap.Unavailable e) {
        err.println("idem: warning: --on-term finish is not available: " + e.getMessage()
            + "; a SIGTERM stops CMD as with --on-term abort");
        err.flush();
      }
    }
    return this;
  }

  /**
   * The drain's SIGTERM handler, on the JVM's signal thread: the first SIGTERM after CMD started drains;
   * one before CMD started, a second one, or one after the run is over exits 143 as the JVM would.
   */
  private void onTerm() {
    long pid;
    synchronized (this) {
      boolean drain = process != null && !draining && !finished && !signalled;
      if (drain) {
        draining = true;
        pid = process.pid();
      } else {
        pid = -1;
      }
    }
    if (pid < 0) {
      // Outside the monitor: exiting runs the hook, which takes it.
      System.exit(ExitCodes.INTERRUPTED_SIGTERM);
      return;
    }
    say("SIGTERM: draining (--on-term finish): CMD (pid " + pid + ") is not signalled and may finish, and its "
        + "result be published, within " + Durations.format(drainDeadline) + " (--drain-deadline); another SIGTERM "
        + "or a SIGINT stops it now");
    Thread deadline = new Thread(this::awaitDrainDeadline, "idem-run-drain-deadline");
    deadline.setDaemon(true);
    deadline.start();
  }

  /** Ends a drain that outlives its deadline the way an abort ends: through the hook, exit 143. */
  private void awaitDrainDeadline() {
    long end = System.nanoTime() + drainDeadline.toNanos();
    synchronized (this) {
      long left;
      while (!finished && (left = end - System.nanoTime()) > 0) {
        try {
          wait(left / 1_000_000, (int) (left % 1_000_000));
        } catch (InterruptedException e) {
          // Nothing interrupts this thread; the deadline still holds.
        }
      }
      if (finished) {
        return;
      }
    }
    say("the drain deadline (" + Durations.format(drainDeadline) + ", --drain-deadline) passed before CMD's result was "
        + "published: aborting (a publish under way leaves the complete object or nothing)");
    System.exit(ExitCodes.INTERRUPTED_SIGTERM);
  }

  /** Whether a SIGTERM was drained: CMD finished after it and the run went on to publish. */
  synchronized boolean drained() {
    return draining && !signalled;
  }

  private void say(String line) {
    synchronized (err) {
      err.println("idem: " + line);
      err.flush();
    }
  }

  /** The publisher's task: runs CMD and returns its result. */
  Payload produce(RunSpec spec, OutputKey key) throws IOException, InterruptedException, CommandFailed {
    dir = TempPaths.createDirectory(null, "idem-run-");
    Path result = dir.resolve(captureStdout ? "stdout" : "output");
    ProcessBuilder pb = new ProcessBuilder(command)
        .redirectInput(ProcessBuilder.Redirect.INHERIT)
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .redirectOutput(captureStdout ? ProcessBuilder.Redirect.to(result.toFile()) : ProcessBuilder.Redirect.PIPE);
    Map<String, String> env = pb.environment();
    if (!captureStdout) {
      env.put("IDEM_OUTPUT", result.toString());
    }
    env.put("IDEM_KEY", key.toString());
    env.put("IDEM_PIPELINE", spec.pipeline());
    env.put("IDEM_WINDOW_START", Long.toString(spec.window().startEpochSecond()));
    env.put("IDEM_WINDOW_END", Long.toString(spec.window().endEpochSecond()));
    env.put("IDEM_WINDOW_LENGTH", Long.toString(spec.window().lengthSeconds()));
    env.put("IDEM_SCHEMA", Integer.toString(spec.schemaVersion()));

    Process p;
    synchronized (this) {
      if (signalled) {
        throw new Signalled();
      }
      p = pb.start();
      process = p;
    }
    Thread pump = captureStdout ? null : pump(p.getInputStream());
    int code;
    // The heartbeat 'run --help' documents: a job log shows idem is waiting on CMD, not hung. Whole lines
    // even on a terminal, where CMD's own stderr would break a live line.
    Progress running = Progress.start(err, progress, progressAfter, 60_000, () -> "CMD (pid " + p.pid() + ") still running for " + key);
    try {
      code = p.waitFor();
    } finally {
      running.close();
    }
    if (pump != null) {
      // A background grandchild may hold the pipe open; CMD's own output is complete by now.
      pump.join(2000);
    }
    if (signalled) {
      throw new Signalled();
    }
    if (code != 0) {
      throw new CommandFailed(code);
    }
    if (!Files.isRegularFile(result)) {
      throw new IOException("CMD exited 0 but wrote nothing to $IDEM_OUTPUT (" + result
          + "); write the result there, or pass --stdout to publish CMD's standard output");
    }
    synchronized (this) {
      this.result = result;
    }
    return Payload.ofFile(result);
  }

  /**
   * Keeps CMD's result where it is, in the run's temporary directory, when its publish failed: {@link
   * #close()} then leaves the directory in place.
   *
   * @return the result's path, or {@code null} when CMD produced none (nothing to keep)
   */
  synchronized Path keepResult() {
    if (result != null && Files.isRegularFile(result)) {
      kept = true;
      return result;
    }
    return null;
  }

  private Thread pump(InputStream from) {
    Thread t = new Thread(() -> {
      char[] buf = new char[8192];
      try (Reader r = new InputStreamReader(from, StandardCharsets.UTF_8)) {
        for (int n; (n = r.read(buf)) != -1; ) {
          synchronized (stdoutSink) {
            stdoutSink.write(buf, 0, n);
            stdoutSink.flush();
          }
        }
      } catch (IOException e) {
        // CMD closed its stdout or died: nothing more to copy.
      }
    }, "idem-run-stdout");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** The shutdown hook: forward the signal, bounded by the grace period, then clean up. */
  private void onSignal() {
    Process p;
    synchronized (this) {
      signalled = true;
      p = process;
    }
    if (p != null && p.isAlive()) {
      List<ProcessHandle> tree = p.descendants().toList();
      p.destroy();
      tree.forEach(ProcessHandle::destroy);
      try {
        if (!p.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
          p.destroyForcibly();
          tree.forEach(ProcessHandle::destroyForcibly);
          p.waitFor(1, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
      }
    }
    deleteDir();
  }

  @Override
  public void close() {
    synchronized (this) {
      finished = true;
      notifyAll();
    }
    if (termTrap != null) {
      termTrap.restore();
    }
    if (armed) {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // The JVM is already shutting down: the hook runs and cleans up.
        return;
      }
    }
    deleteDir();
  }

  private synchronized void deleteDir() {
    if (dir == null || kept) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // Best effort: a leftover in the temp directory is harmless and never published.
    }
    dir = null;
  }
}
