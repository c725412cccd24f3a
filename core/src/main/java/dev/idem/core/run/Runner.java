package dev.idem.core.run;

import dev.idem.core.OutputKey;
import dev.idem.core.RunSpec;
import dev.idem.core.publish.ClaimPolicy;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.Publisher;
import dev.idem.core.publish.TaskFailedException;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Runs a scheduled task the way {@code idem run} runs a command, inside a JVM service: one call to
 * {@link #run} (or {@link #runToFile}) skips a key already published, claims it, runs the task, which
 * writes its result to a stream or a file, publishes the result create-only, advances the pipeline's
 * pointer and returns the {@link PublishReport}. The publish is a {@link Publisher}'s, with every
 * guarantee and outcome its class comment lists; {@code Idem.runner(store).writer(id).build()} makes one
 * ({@link Builder}).
 *
 * <p>The result is spooled: each run that reaches its task gets a new private directory (owner-only
 * where the filesystem has POSIX permissions) in the spool directory ({@link Builder#spoolDirectory},
 * by default {@code java.io.tmpdir}), the task writes the file {@code output} in it, and the file is
 * published as a file payload. The directory is deleted when the publish ends, whatever the outcome,
 * with one exception: a publish that fails after the task succeeded keeps it, and throws {@link
 * ResultKeptException} naming the file. The store reads the file while the run waits, so a result
 * larger than memory costs no memory.
 *
 * <p>{@link #stop(Duration)} is a service's shutdown: from its call on, a new run is refused ({@link
 * RejectedExecutionException}; nothing read or written) and no task starts. What a run in progress
 * returns depends on where it is:
 *
 * <ul>
 *   <li>before its task (the skip check, claiming, waiting for another writer's claim): it is
 *       interrupted at once, as it has no work to lose. It returns SKIPPED if it found the key published
 *       first (with no interrupt left on its thread); otherwise it throws {@link RunStoppedException},
 *       its task never started;
 *   <li>in its task: the task may finish within the drain, and its result is then published as usual
 *       (the claim stays fresh, renewed throughout); the run returns its report. A task still running at
 *       the drain's end has its thread interrupted: the run throws {@link RunStoppedException}, nothing
 *       is published, the claim is released and the spool deleted, even if the task ignores the
 *       interruption and returns a result later (past the drain nothing is published: the service has
 *       said it is going away);
 *   <li>publishing (its task returned): it is never interrupted, since store calls have deadlines of
 *       their own and an interrupted publish would waste a finished result; it returns its report.
 * </ul>
 *
 * An interrupt from elsewhere (an executor's {@code shutdownNow}) is not the runner's: the run fails as
 * {@link Publisher#publish} says of an interrupted task, with the same exceptions as any failure.
 *
 * <p>Thread-safe: runs may go on at once on many threads (a scheduler's pool); each uses its own
 * spool. Runs on one runner for one key still claim against each other through the store.
 */
public final class Runner {

  /** Writes a run's result to a stream; runs only when the key is not yet published. */
  @FunctionalInterface
  public interface StreamTask {
    /**
     * Writes the result for {@code key} to {@code out}, which the runner closes after this returns (the
     * task may close it first). Throwing fails the run: nothing is published.
     */
    void write(RunSpec spec, OutputKey key, OutputStream out) throws Exception;
  }

  /** Writes a run's result to a file; runs only when the key is not yet published. */
  @FunctionalInterface
  public interface FileTask {
    /**
     * Writes the result for {@code key} to the file {@code output}, which does not exist yet; its
     * directory is the task's alone, for temporary files too, and is deleted after the publish. A task
     * that returns without creating {@code output} has failed (an empty result is never assumed).
     */
    void write(RunSpec spec, OutputKey key, Path output) throws Exception;
  }

  private final Publisher publisher;
  /** {@code null}: {@code java.io.tmpdir}. */
  private final Path spoolDirectory;
  private final Set<Run> active = new HashSet<>();
  private boolean stopping;

  private Runner(Publisher publisher, Path spoolDirectory) {
    this.publisher = publisher;
    this.spoolDirectory = spoolDirectory;
  }

  /**
   * Configures a {@link Runner}; {@link dev.idem.core.Idem#runner} starts one. Only the writer id is
   * required. The publisher's defaults are {@link Publisher.Builder}'s (claims on, pointer advanced,
   * empty results refused); {@link #publisher(Consumer)} changes the ones this builder does not name. Not
   * thread-safe; the runner it builds is.
   */
  public static final class Builder {
    private final Publisher.Builder publisher;
    private Path spoolDirectory;

    /** Use {@link dev.idem.core.Idem#runner}. */
    public Builder(ObjectStore store) {
      this.publisher = new Publisher.Builder(store);
    }

    /** Who publishes ({@link Publisher.Builder#writer}). */
    public Builder writer(String writerId) {
      publisher.writer(writerId);
      return this;
    }

    /** How the key is claimed while the task runs ({@link Publisher.Builder#claims}). */
    public Builder claims(ClaimPolicy policy) {
      publisher.claims(policy);
      return this;
    }

    /** The clock that decides which windows have closed ({@link Publisher.Builder#clock}). */
    public Builder clock(Clock clock) {
      publisher.clock(clock);
      return this;
    }

    /**
     * Applies {@code configure} to the publisher's builder, for its other options ({@code pointer},
     * {@code withoutPointer}, {@code maxClockSkew}, {@code allowEmptyResults}, {@code minFree}).
     */
    public Builder publisher(Consumer<Publisher.Builder> configure) {
      configure.accept(publisher);
      return this;
    }

    /**
     * Where the runs' spool directories are made; by default {@code java.io.tmpdir}. It must exist and
     * have room for the largest result.
     */
    public Builder spoolDirectory(Path dir) {
      this.spoolDirectory = Objects.requireNonNull(dir, "spool directory");
      return this;
    }

    /**
     * The runner.
     *
     * @throws IllegalStateException when no writer id was given
     */
    public Runner build() {
      return new Runner(publisher.build(), spoolDirectory);
    }
  }

  /** The publisher every run publishes through. */
  public Publisher publisher() {
    return publisher;
  }

  /**
   * Runs the cycle for {@code spec}, the task writing its result to a stream.
   *
   * @return the publish's report (SKIPPED when the key was published, before or while this run waited)
   * @throws RejectedExecutionException the runner was stopped; nothing was read or written
   * @throws RunStoppedException the runner was stopped while this run was before or in its task; nothing
   *     was published by it
   * @throws ResultKeptException the task succeeded and the publish failed; the result is kept and named
   * @throws TaskFailedException the task threw, wrote nothing, or wrote 0 bytes and empty results are not
   *     allowed, or its spool could not be made; nothing was published, the pointer is untouched
   * @throws IOException the store failed before the task ran; see {@link Publisher#publish} for the
   *     state left behind
   */
  public PublishReport run(RunSpec spec, StreamTask task) throws IOException, TaskFailedException {
    Objects.requireNonNull(task, "task");
    return runToFile(spec, (s, k, output) -> {
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(output, StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE))) {
        task.write(s, k, out);
      }
    });
  }

  /**
   * Runs the cycle for {@code spec}, the task writing its result to a file; as {@link #run(RunSpec,
   * StreamTask)}, whose exceptions this throws alike.
   */
  public PublishReport runToFile(RunSpec spec, FileTask task) throws IOException, TaskFailedException {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(task, "task");
    Run run = begin(spec);
    PublishReport report = null;
    try {
      report = publisher.publish(spec, (s, k) -> run.produce(s, k, task));
      return report;
    } catch (TaskFailedException e) {
      throw run.stopped() ? run.stoppedWith(e) : e;
    } catch (IOException | RuntimeException e) {
      Path kept = run.keepResult();
      if (kept != null) {
        throw new ResultKeptException(e, kept);
      }
      if (run.stopped()) {
        throw run.stoppedWith(e);
      }
      throw e;
    } finally {
      run.deleteSpool();
      end(run, report != null);
    }
  }

  /**
   * Stops the runner: refuses new runs and lets runs in progress end, waiting at most {@code drain} for
   * them (the class comment says what each run returns). At the drain's end, runs still before or in
   * their task are interrupted, and runs publishing are left to finish; {@link #awaitStopped} waits for
   * both. Calling it again refuses nothing new and waits again.
   *
   * @return true when every run ended within the drain, none interrupted; false when some were
   *     interrupted or are still publishing
   * @throws InterruptedException the calling thread was interrupted while waiting; the runner is
   *     stopped, and runs in progress were not interrupted by it
   */
  public boolean stop(Duration drain) throws InterruptedException {
    if (drain.isNegative()) {
      throw new IllegalArgumentException("drain must be >= 0, was " + drain);
    }
    long deadline = System.nanoTime() + drain.toNanos();
    synchronized (this) {
      stopping = true;
      // A run not yet in its task has nothing to lose: it ends now rather than waiting out the drain.
      for (Run r : active) {
        r.interruptBeforeTask();
      }
      long left;
      while (!active.isEmpty() && (left = deadline - System.nanoTime()) > 0) {
        wait(left / 1_000_000, (int) (left % 1_000_000));
      }
      if (active.isEmpty()) {
        return true;
      }
      for (Run r : active) {
        r.interruptUnlessPublishing();
      }
      return false;
    }
  }

  /**
   * Waits at most {@code timeout} until no run is in progress.
   *
   * @return true when none is
   */
  public synchronized boolean awaitStopped(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long left;
    while (!active.isEmpty() && (left = deadline - System.nanoTime()) > 0) {
      wait(left / 1_000_000, (int) (left % 1_000_000));
    }
    return active.isEmpty();
  }

  /** Whether {@link #stop} was called: new runs are refused. */
  public synchronized boolean isStopping() {
    return stopping;
  }

  private synchronized Run begin(RunSpec spec) {
    if (stopping) {
      throw new RejectedExecutionException("the runner is stopped; " + spec.outputKey() + " was not run");
    }
    Run run = new Run(Thread.currentThread());
    active.add(run);
    return run;
  }

  /**
   * Ends {@code run}. A run the runner interrupted before its task that still returned a report (it
   * found the key published) leaves no interrupt behind on the caller's thread: once the run is no
   * longer active, stop can no longer interrupt it, so clearing the status here cannot lose one of ours.
   */
  private synchronized void end(Run run, boolean returned) {
    active.remove(run);
    notifyAll();
    if (returned && run.interrupted) {
      Thread.interrupted();
    }
  }

  /** Where a run is; it moves forward only, and is read and changed under the runner's lock. */
  private enum Phase { BEFORE_TASK, TASK, PUBLISHING }

  /** One run in progress: its thread, its phase, its spool, and whether the runner interrupted it. */
  private final class Run {
    private final Thread thread;
    private Phase phase = Phase.BEFORE_TASK;
    private boolean interrupted;
    private Path spool;
    /** The task's result, once the task returned it and the publish started. */
    private Path result;
    private boolean kept;

    Run(Thread thread) {
      this.thread = thread;
    }

    /** The publisher's task: refuses to start after a stop, spools, runs the task, hands over its file. */
    Payload produce(RunSpec spec, OutputKey key, FileTask task) throws Exception {
      synchronized (Runner.this) {
        if (stopping) {
          throw new InterruptedException("the runner was stopped before the task for " + key + " started");
        }
        phase = Phase.TASK;
      }
      Path dir = createSpool();
      synchronized (Runner.this) {
        spool = dir;
      }
      Path output = dir.resolve("output");
      try {
        task.write(spec, key, output);
      } finally {
        synchronized (Runner.this) {
          if (interrupted) {
            // Past the drain nothing is published, whatever the task did with the interruption.
            throw new InterruptedException("the runner was stopped past its drain while the task for " + key + " ran");
          }
          phase = Phase.PUBLISHING;
        }
      }
      if (!Files.isRegularFile(output)) {
        throw new IOException("the task wrote nothing to " + output + " (an empty result is written as an empty file)");
      }
      synchronized (Runner.this) {
        result = output;
      }
      return Payload.ofFile(output);
    }

    private Path createSpool() throws IOException {
      Path parent = spoolDirectory != null ? spoolDirectory : Path.of(System.getProperty("java.io.tmpdir"));
      boolean posix = parent.getFileSystem().supportedFileAttributeViews().contains("posix");
      FileAttribute<?>[] ownerOnly = posix
          ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))}
          : new FileAttribute<?>[0];
      return Files.createTempDirectory(parent, "idem-run-", ownerOnly);
    }

    /** Called by stop: interrupts this run if it has not started its task. */
    void interruptBeforeTask() {
      if (phase == Phase.BEFORE_TASK) {
        interrupt();
      }
    }

    /** Called by stop at the drain's end: interrupts this run unless its result is being published. */
    void interruptUnlessPublishing() {
      if (phase != Phase.PUBLISHING) {
        interrupt();
      }
    }

    private void interrupt() {
      if (!interrupted) {
        interrupted = true;
        thread.interrupt();
      }
    }

    boolean stopped() {
      synchronized (Runner.this) {
        return interrupted || (stopping && phase == Phase.BEFORE_TASK);
      }
    }

    RunStoppedException stoppedWith(Exception cause) {
      Thread.currentThread().interrupt();
      return new RunStoppedException("the runner was stopped; nothing was published by this run: "
          + cause.getMessage(), cause);
    }

    /** Keeps the task's result when the publish failed after the task succeeded. */
    Path keepResult() {
      synchronized (Runner.this) {
        if (result != null && Files.isRegularFile(result)) {
          kept = true;
          return result;
        }
        return null;
      }
    }

    void deleteSpool() {
      Path dir;
      synchronized (Runner.this) {
        if (spool == null || kept) {
          return;
        }
        dir = spool;
        spool = null;
      }
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path f : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
          Files.deleteIfExists(f);
        }
      } catch (IOException e) {
        // Best effort: a leftover spool is never published, and the next runs do not read it.
      }
    }
  }
}
