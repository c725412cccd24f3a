package dev.idem.cli;

import dev.idem.core.Idem;
import dev.idem.core.RunSpec;
import dev.idem.core.publish.ClaimPolicy;
import dev.idem.core.publish.EmptyResultException;
import dev.idem.core.publish.InsufficientSpaceException;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.Publisher;
import dev.idem.core.publish.TaskFailedException;
import dev.idem.core.store.Claim;
import dev.idem.core.store.ClaimWait;
import dev.idem.core.store.Claims;
import dev.idem.core.store.Deadline;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code idem run}: the entrypoint of a scheduled job. The order of skip, produce, publish and
 * advance is core's {@link Publisher}; this class only runs CMD and reports.
 */
@Command(name = "run", mixinStandardHelpOptions = true, versionProvider = IdemCommand.Version.class,
    description = {
        "Run CMD for the newest closed window unless its output is already published, then publish the "
            + "result create-only and advance the pipeline's pointer.",
        "",
        "If the key is already published, CMD is not run (exit 0) and the pointer is still advanced. "
            + "Otherwise CMD runs with IDEM_OUTPUT (write the result there), IDEM_KEY, IDEM_PIPELINE, "
            + "IDEM_WINDOW_START, IDEM_WINDOW_END, IDEM_WINDOW_LENGTH (epoch seconds) and IDEM_SCHEMA in its "
            + "environment; stdin and stderr are inherited, stdout is copied to idem's stdout (to stderr "
            + "with --json). With --stdout, CMD's stdout is the result instead.",
        "",
        "A window that has not closed yet (ending more than --max-clock-skew after now) is refused with exit 2 "
            + "before anything runs. CMD's result must not be empty: 0 bytes is refused with exit 6 (nothing "
            + "published, pointer untouched) unless --allow-empty.",
        "",
        "Before CMD starts, the store must be writable and (a filesystem) have --min-free free; exit 4 "
            + "otherwise, CMD not run. When the publish fails after CMD succeeded (a result larger than the free "
            + "space, a full disk, the store unreachable), CMD's result is not deleted: the error line says where "
            + "it is kept ($TMPDIR/idem-run-*/output, or .../stdout with --stdout; kept_result in --json), to be "
            + "published with 'idem publish --file' and the same spec.",
        "",
        "While CMD runs, idem reports on stderr that it is waiting for it, first after a second, then once a "
            + "minute: 'idem: CMD (pid N) still running for KEY (61s)' (whole lines, since CMD's own stderr "
            + "shares the terminal; --quiet turns them off).",
        "",
        "Claims (advice, never a lock; --no-claims turns them off): before CMD starts, idem writes a claim on the "
            + "key (its writer, start and --expected-duration) and renews it every third of --claim-ttl while CMD "
            + "runs, removing it when the run ends. A replica that finds another writer's fresh claim waits for "
            + "that writer's object, up to --claim-wait, saying on stderr 'idem: waiting for host-a's claim on KEY "
            + "(61s)' (off with --quiet): when the object appears it is SKIPPED (claim=WAITED_SKIPPED names the "
            + "writer); a claim released without an object, or not renewed for --claim-ttl (its writer died), is "
            + "taken over (claim=TAKEN_OVER) and CMD runs; past --claim-wait CMD runs beside it "
            + "(claim=WAIT_EXPIRED). Whatever a claim says, the publish stays create-only: a lost, stale or "
            + "unreadable claim costs at most a second run of CMD. --json reports it in \"claim\".",
        "",
        "pointer=SAME_POSITION_OTHER_KEY (exit 0, a KEYING DRIFT line on stderr) means the pointer already "
            + "names another key for this window and schema: a build declared other inputs without bumping "
            + "--schema. This output stands; readers get the other key's.",
        "",
        "If CMD exits non-zero, nothing is published and idem exits with CMD's code (--cmd-exit N exits N "
            + "instead, so idem's own codes always mean idem); the stderr line says which code CMD gave, or which "
            + "signal killed it. On SIGTERM or SIGINT "
            + "while CMD runs, idem sends SIGTERM to CMD and its descendants, SIGKILLs them after --grace, "
            + "publishes nothing and exits 143 (SIGTERM) or 130 (SIGINT); one that arrives while the result is "
            + "being published ends idem too, leaving the complete object or nothing, never part of one. With "
            + "--on-term finish, a SIGTERM drains instead: CMD runs on unsignalled and its result is published "
            + "(the claim kept fresh, so a new replica waits for it and skips) if that is done within "
            + "--drain-deadline; otherwise, or on a second SIGTERM or a SIGINT, idem aborts as above.",
        ""
    })
final class RunCommand implements Callable<Integer> {
  static final String DEFAULT_DRAIN_DEADLINE = "30s";
  static final String DEFAULT_CLAIM_TTL = "60s";
  static final String DEFAULT_CLAIM_WAIT = "10m";
  static final String DEFAULT_CLAIM_POLL = "5s";

  @Spec
  CommandSpec spec;

  @Mixin
  SpecOptions specOptions;

  @Mixin
  StoreOption store;

  @Mixin
  WriterOption writer;

  @Mixin
  OutputOptions output;

  @Mixin
  PointerTimeoutOption pointerTimeout;

  @Mixin
  MetricsOptions metrics;

  @Option(names = "--stdout", description = "Publish CMD's standard output instead of the file at $IDEM_OUTPUT.")
  boolean stdoutResult;

  @Mixin
  ClockSkewOption skew;

  @Option(names = "--allow-empty",
      description = "Publish a 0-byte result. Without it, an empty result (CMD wrote nothing to $IDEM_OUTPUT, "
          + "or nothing to stdout with --stdout) is refused with exit 6.")
  boolean allowEmpty;

  @Option(names = "--min-free", paramLabel = "SIZE", converter = Sizes.class, defaultValue = "16M",
      description = "Do not start CMD (exit 4) when the store's filesystem has less than SIZE free (0, 4096, "
          + "512K, 16M, 1G: powers of 1024; S3 is not checked). Whatever the reserve, a result larger than "
          + "the free space is refused before any of it is written, and kept. Default: ${DEFAULT-VALUE}")
  long minFree;

  @Option(names = "--grace", paramLabel = "D", converter = Durations.class, defaultValue = "10s",
      description = "After forwarding SIGTERM, how long CMD may take to exit before SIGKILL. Default: ${DEFAULT-VALUE}")
  Duration grace;

  @Option(names = "--cmd-exit", paramLabel = "pass|N", defaultValue = "pass",
      description = "What idem exits with when CMD fails (exits non-zero or is killed by a signal): pass gives "
          + "CMD's own status, like exec; a code N from 1 to 255 gives N for every CMD failure, so that a CMD's "
          + "4 is not read as idem's 'store unavailable'. CMD's own status is on the stderr line and in --json "
          + "(exit_code, signal) either way. Default: ${DEFAULT-VALUE}")
  String cmdExit;

  @Option(names = "--on-term", paramLabel = "finish|abort", defaultValue = "abort",
      description = "What a SIGTERM does while CMD runs. abort: SIGTERM to CMD and its descendants, SIGKILL after "
          + "--grace, nothing published, exit 143. finish (a drain, for a rolling deploy's grace period): CMD is NOT "
          + "signalled and runs on; when it exits 0 its result is published and the pointer advanced as usual (the "
          + "claim kept fresh meanwhile), idem says on stderr that it drained and exits with the publish's code; "
          + "past --drain-deadline, or on a second SIGTERM or a SIGINT, it aborts as above. A SIGTERM before CMD "
          + "started (while waiting for another writer's claim) exits 143 at once either way. CMD is not told of a "
          + "drain; a signal sent to its process group reaches it directly. Default: ${DEFAULT-VALUE}")
  String onTerm;

  @Option(names = "--drain-deadline", paramLabel = "D", converter = Durations.class,
      description = "With --on-term finish: how long after the SIGTERM CMD may take to finish and its result to be "
          + "published before idem aborts. Keep D plus --grace within Kubernetes' terminationGracePeriodSeconds, "
          + "or the kubelet's SIGKILL comes first. Default: " + DEFAULT_DRAIN_DEADLINE)
  Duration drainDeadline;

  @Option(names = "--no-claims",
      description = "Do not claim the key while CMD runs, nor wait for another writer's claim: every replica "
          + "runs CMD, as without claims (publishing stays create-only either way).")
  boolean noClaims;

  @Option(names = "--claim-ttl", paramLabel = "D", converter = Durations.class,
      description = "A claim not renewed for D is stale: its writer is taken to have died, and another replica "
          + "takes it over and runs CMD. This run renews its own every D/3 while CMD runs. Default: "
          + DEFAULT_CLAIM_TTL)
  Duration claimTtl;

  @Option(names = "--claim-wait", paramLabel = "D", converter = Durations.class,
      description = "When another writer's fresh claim is on the key, wait at most D for its object (then SKIPPED, "
          + "naming that writer) before running CMD anyway (claim=WAIT_EXPIRED); 0s looks once. Default: "
          + DEFAULT_CLAIM_WAIT)
  Duration claimWait;

  @Option(names = "--claim-poll", paramLabel = "D", converter = Durations.class,
      description = "While waiting for another writer's claim, look at the claim and the object every D. "
          + "Default: " + DEFAULT_CLAIM_POLL)
  Duration claimPoll;

  @Option(names = "--expected-duration", paramLabel = "D", converter = Durations.class,
      description = "How long CMD usually takes, written in the claim for waiting replicas and operators to read. "
          + "Default: not said")
  Duration expectedDuration;

  @Parameters(paramLabel = "CMD", arity = "1..*",
      description = "The command and its arguments (put them after --, or after the last idem option).")
  List<String> command;

  @Override
  public Integer call() throws IOException, TaskFailedException {
    CliContext ctx = IdemCommand.context(spec);
    Integer cmdExitCode = cmdExitCode(cmdExit);
    TaskProcess.OnTerm term = onTerm(onTerm, drainDeadline);
    ClaimPolicy claims = claimPolicy();
    RunSpec runSpec = specOptions.toSpec(ctx.clock());
    String writerId = writer.resolve(ctx);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    BatchMetrics outcome = metrics.start(ctx, "run", runSpec, writerId, err);
    try (outcome;
        ObjectStore st = store.open(ctx);
        TaskProcess task = new TaskProcess(command, stdoutResult, grace, term,
            drainDeadline != null ? drainDeadline : Durations.parse(DEFAULT_DRAIN_DEADLINE), output.json ? err : out, err,
            !output.quiet, ctx.progressAfter()).arm();
        ClaimWaitProgress waiting = new ClaimWaitProgress(st, runSpec.outputKey().toString(), store.deadline(), err,
            !output.quiet, ctx.progressAfter())) {
      outcome.store(st);
      PublishReport report;
      try {
        Publisher.Builder publisher = Idem.publisher(st).writer(writerId).clock(ctx.clock())
            .pointer(pointerTimeout.advancer(st, store.deadline())).maxClockSkew(skew.maxClockSkew).minFree(minFree)
            .claims(claims.enabled() ? claims.waitingOn(System::nanoTime, waiting) : claims);
        if (allowEmpty) {
          publisher.allowEmptyResults();
        }
        report = publisher.build().publish(runSpec, (s, k) -> {
              waiting.stop();
              // CMD's runtime is its own: the deadline counts only idem's store work, before and after it.
              store.deadline().pause();
              try {
                Payload result = task.produce(s, k);
                store.allowFor(result.size());
                return result;
              } finally {
                store.deadline().resume();
              }
            });
      } catch (InsufficientSpaceException e) {
        Path kept = task.keepResult();
        if (kept != null) {
          throw new ResultKeptException(e, kept);
        }
        throw new InsufficientSpaceException(e.getMessage() + " (--min-free sets the reserve)", e.free(), e.needed());
      } catch (EmptyResultException e) {
        throw new EmptyResultException("CMD exited 0 but its result is empty (0 bytes); nothing published for "
            + runSpec.outputKey() + " (pass --allow-empty if an empty result is a result)");
      } catch (TaskFailedException e) {
        if (e.getCause() instanceof TaskProcess.CommandFailed failed) {
          int code = cmdExitCode != null ? cmdExitCode : failed.code;
          if (output.json) {
            out.println(Json.object().put("status", "TASK_FAILED").put("key", runSpec.outputKey().toString())
                .put("exit_code", failed.code).putIfPresent("signal", failed.signal()).put("idem_exit_code", code));
          } else if (!output.quiet) {
            err.println("idem run: " + failed.getMessage() + "; nothing published for " + runSpec.outputKey()
                + (cmdExitCode != null ? " (idem exits " + code + ": --cmd-exit)" : ""));
          }
          outcome.taskFailed(code);
          return code;
        }
        throw e;
      } catch (IOException | RuntimeException e) {
        // CMD may have run for hours: a publish that fails after it succeeded keeps its result.
        Path kept = task.keepResult();
        if (kept != null) {
          throw new ResultKeptException(e, kept);
        }
        throw e;
      }
      waiting.stop();
      Reports.print(out, err, output, runSpec, report, writerId, pointerTimeout.ranOut(store.deadline()), st);
      if (task.drained()) {
        err.println("idem: drained: CMD finished after SIGTERM and its result is " + report.status() + " at "
            + report.key() + "; exiting " + Reports.exitCode(report) + " (--on-term finish)");
      }
      outcome.published(report, Reports.exitCode(report));
      return Reports.exitCode(report);
    } catch (Exception e) {
      outcome.failed(ExitCodes.codeOf(e));
      throw e;
    }
  }

  /** {@code --on-term} and {@code --drain-deadline}, checked together. */
  private static TaskProcess.OnTerm onTerm(String value, Duration drainDeadline) {
    TaskProcess.OnTerm term = switch (value) {
      case "abort" -> TaskProcess.OnTerm.ABORT;
      case "finish" -> TaskProcess.OnTerm.FINISH;
      default -> throw new UsageException("--on-term must be finish or abort, was '" + value + "'");
    };
    if (drainDeadline != null && term != TaskProcess.OnTerm.FINISH) {
      throw new UsageException("--drain-deadline bounds a drain, which only --on-term finish does");
    }
    if (drainDeadline != null && drainDeadline.isZero()) {
      throw new UsageException("--drain-deadline must be longer than 0s (--on-term abort stops CMD at once)");
    }
    return term;
  }

  /**
   * The claim flags as a policy, each left at {@link ClaimPolicy#defaults()} when not given. A claim flag
   * beside {@code --no-claims} is refused: one of the two is a mistake.
   */
  private ClaimPolicy claimPolicy() {
    if (noClaims) {
      String given = claimTtl != null ? "--claim-ttl" : claimWait != null ? "--claim-wait"
          : claimPoll != null ? "--claim-poll" : expectedDuration != null ? "--expected-duration" : null;
      if (given != null) {
        throw new UsageException(given + " sets how claims are used, and --no-claims turns them off: give one");
      }
      return ClaimPolicy.off();
    }
    ClaimPolicy policy = ClaimPolicy.defaults();
    if (claimTtl != null) {
      if (claimTtl.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new UsageException("--claim-ttl must be at least 1s (the claim is renewed every third of it), was "
            + Durations.format(claimTtl));
      }
      policy = policy.ttl(claimTtl);
    }
    if (claimPoll != null) {
      if (claimPoll.isZero()) {
        throw new UsageException("--claim-poll must be longer than 0s");
      }
      policy = policy.poll(claimPoll);
    }
    if (claimWait != null) {
      policy = policy.waitAtMost(claimWait);
    }
    if (expectedDuration != null) {
      policy = policy.expected(expectedDuration);
    }
    return policy;
  }

  /**
   * While this run waits for another writer's claim, the progress line the help describes: {@code idem:
   * waiting for host-a's claim on KEY (61s)}, first after {@link CliContext#progressAfter()}, then once a
   * minute. It is the claim wait's sleeper, so it starts with the first wait and never for a run that
   * finds no claim; the claimant is read from the store when a line is due (a takeover may change it).
   * The command's deadline ({@code --max-time}) is paused while it sleeps: like CMD's run, a wait for
   * another writer is not idem's store work.
   */
  static final class ClaimWaitProgress implements ClaimWait.Sleeper, AutoCloseable {
    private final ObjectStore store;
    private final String key;
    private final Deadline deadline;
    private final PrintWriter err;
    private final boolean enabled;
    private final Duration after;
    private Progress progress;
    private boolean closed;

    ClaimWaitProgress(ObjectStore store, String key, Deadline deadline, PrintWriter err, boolean enabled,
        Duration after) {
      this.store = store;
      this.key = key;
      this.deadline = deadline;
      this.err = err;
      this.enabled = enabled;
      this.after = after;
    }

    @Override
    public void sleep(Duration d) throws InterruptedException {
      synchronized (this) {
        if (progress == null && !closed) {
          progress = Progress.start(err, enabled, after, 60_000, this::line);
        }
      }
      deadline.pause();
      try {
        Thread.sleep(d.toMillis(), d.toNanosPart() % 1_000_000);
      } finally {
        deadline.resume();
      }
    }

    private String line() {
      String who = "another writer";
      try {
        Optional<Claims> claims = store.claims();
        if (claims.isPresent()) {
          who = claims.get().readClaim(key).map(Claim::writer).orElse(who);
        }
      } catch (IOException | RuntimeException e) {
        // The line still says what idem waits for; the claim is read again at the next look.
      }
      return "waiting for " + who + "'s claim on " + key;
    }

    /** The wait is over (the task starts, or the publish returned): no more lines. */
    synchronized void stop() {
      closed = true;
      if (progress != null) {
        progress.close();
      }
    }

    @Override
    public void close() {
      stop();
    }
  }

  /** {@code --cmd-exit}: {@code null} for pass, else the code every CMD failure exits with. */
  private static Integer cmdExitCode(String value) {
    if ("pass".equals(value)) {
      return null;
    }
    try {
      int code = Integer.parseInt(value);
      if (code >= 1 && code <= 255) {
        return code;
      }
    } catch (NumberFormatException e) {
      // refused below, with the accepted forms
    }
    throw new UsageException("--cmd-exit must be pass or an exit code from 1 to 255, was '" + value + "'");
  }
}
