package dev.idem.cli;

import dev.idem.core.Idem;
import dev.idem.core.RunSpec;
import dev.idem.core.publish.EmptyResultException;
import dev.idem.core.publish.InsufficientSpaceException;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.Publisher;
import dev.idem.core.publish.TaskFailedException;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
        "pointer=SAME_POSITION_OTHER_KEY (exit 0, a KEYING DRIFT line on stderr) means the pointer already "
            + "names another key for this window and schema: a build declared other inputs without bumping "
            + "--schema. This output stands; readers get the other key's.",
        "",
        "If CMD exits non-zero, nothing is published and idem exits with CMD's code (--cmd-exit N exits N "
            + "instead, so idem's own codes always mean idem); the stderr line says which code CMD gave, or which "
            + "signal killed it. On SIGTERM or SIGINT "
            + "while CMD runs, idem sends SIGTERM to CMD and its descendants, SIGKILLs them after --grace, "
            + "publishes nothing and exits 143 (SIGTERM) or 130 (SIGINT); one that arrives while the result is "
            + "being published ends idem too, leaving the complete object or nothing, never part of one.",
        ""
    })
final class RunCommand implements Callable<Integer> {
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

  @Parameters(paramLabel = "CMD", arity = "1..*",
      description = "The command and its arguments (put them after --, or after the last idem option).")
  List<String> command;

  @Override
  public Integer call() throws IOException, TaskFailedException {
    CliContext ctx = IdemCommand.context(spec);
    Integer cmdExitCode = cmdExitCode(cmdExit);
    RunSpec runSpec = specOptions.toSpec(ctx.clock());
    String writerId = writer.resolve(ctx);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    BatchMetrics outcome = metrics.start(ctx, "run", runSpec, writerId, err);
    try (outcome;
        ObjectStore st = store.open(ctx);
        TaskProcess task = new TaskProcess(command, stdoutResult, grace, output.json ? err : out, err, !output.quiet,
            ctx.progressAfter()).arm()) {
      PublishReport report;
      try {
        Publisher.Builder publisher = Idem.publisher(st).writer(writerId).clock(ctx.clock())
            .pointer(pointerTimeout.advancer(st, store.deadline())).maxClockSkew(skew.maxClockSkew).minFree(minFree);
        if (allowEmpty) {
          publisher.allowEmptyResults();
        }
        report = publisher.build().publish(runSpec, (s, k) -> {
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
      Reports.print(out, err, output, runSpec, report, writerId, pointerTimeout.ranOut(store.deadline()));
      outcome.published(report, Reports.exitCode(report));
      return Reports.exitCode(report);
    } catch (Exception e) {
      outcome.failed(ExitCodes.codeOf(e));
      throw e;
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
