package dev.idem.cli;

import dev.idem.core.RunSpec;
import dev.idem.core.publish.EmptyResultException;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.Publisher;
import dev.idem.core.publish.TaskFailedException;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import java.io.IOException;
import java.io.PrintWriter;
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
        "pointer=SAME_POSITION_OTHER_KEY (exit 0, a KEYING DRIFT line on stderr) means the pointer already "
            + "names another key for this window and schema: a build declared other inputs without bumping "
            + "--schema. This output stands; readers get the other key's.",
        "",
        "If CMD exits non-zero, nothing is published and idem exits with CMD's code. On SIGTERM or SIGINT "
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

  @Option(names = "--grace", paramLabel = "D", converter = Durations.class, defaultValue = "10s",
      description = "After forwarding SIGTERM, how long CMD may take to exit before SIGKILL. Default: ${DEFAULT-VALUE}")
  Duration grace;

  @Parameters(paramLabel = "CMD", arity = "1..*",
      description = "The command and its arguments (put them after --, or after the last idem option).")
  List<String> command;

  @Override
  public Integer call() throws IOException, TaskFailedException {
    CliContext ctx = IdemCommand.context(spec);
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
        report = Publisher.create(st, writerId, ctx.clock(), pointerTimeout.advancer(st, store.deadline()), true)
            .withMaxClockSkew(skew.maxClockSkew)
            .withEmptyResults(allowEmpty)
            .publish(runSpec, (s, k) -> {
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
      } catch (EmptyResultException e) {
        throw new EmptyResultException("CMD exited 0 but its result is empty (0 bytes); nothing published for "
            + runSpec.outputKey() + " (pass --allow-empty if an empty result is a result)");
      } catch (TaskFailedException e) {
        if (e.getCause() instanceof TaskProcess.CommandFailed failed) {
          if (output.json) {
            out.println(Json.object().put("status", "TASK_FAILED").put("key", runSpec.outputKey().toString())
                .put("exit_code", failed.code));
          } else if (!output.quiet) {
            err.println("idem run: CMD exited with code " + failed.code + "; nothing published for " + runSpec.outputKey());
          }
          outcome.taskFailed(failed.code);
          return failed.code;
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
}
