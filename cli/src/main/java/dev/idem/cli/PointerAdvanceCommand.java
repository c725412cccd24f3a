package dev.idem.cli;

import dev.idem.core.RunSpec;
import dev.idem.core.publish.AdvanceReport;
import dev.idem.core.publish.AdvanceStatus;
import dev.idem.core.publish.ClosedWindowGuard;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code idem pointer advance}: move the pointer to a spec's published object, forward only (G2). */
@Command(name = "advance", mixinStandardHelpOptions = true, versionProvider = IdemCommand.Version.class,
    description = {
        "Advance a pipeline's pointer to the object published for a spec. The pointer only moves forward "
            + "in (window start, schema version) order: an older or equal spec leaves it alone "
            + "(NEWER_PRESENT / ALREADY_CURRENT, exit 0). SAME_POSITION_OTHER_KEY (exit 0, and a line on stderr) "
            + "means the pointer stands at this window and schema but names another key: keying drift. BUSY (exit 3) means the pointer's lock was not "
            + "obtained within --pointer-timeout; CONFLICT (exit 3) means other writers moved the pointer on "
            + "every attempt; either way nothing was written. A window that has not closed yet (ending more than "
            + "--max-clock-skew after now) is refused with exit 2: the pointer would stay ahead of every later "
            + "generation.",
        ""
    })
final class PointerAdvanceCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  SpecOptions specOptions;

  @Mixin
  ClockSkewOption skew;

  @Mixin
  StoreOption store;

  @Mixin
  WriterOption writer;

  @Mixin
  OutputOptions output;

  @Mixin
  PointerTimeoutOption pointerTimeout;

  @Override
  public Integer call() throws IOException {
    CliContext ctx = IdemCommand.context(spec);
    RunSpec runSpec = specOptions.toSpec(ctx.clock());
    String writerId = writer.resolve(ctx);
    String key = runSpec.outputKey().toString();
    ClosedWindowGuard windows = skew.guard(ctx);
    // Before the store is opened: a future window is refused without reading anything.
    windows.requireClosed(runSpec.window(), "point " + runSpec.pipeline() + " at");
    PrintWriter out = spec.commandLine().getOut();
    try (ObjectStore st = store.open(ctx)) {
      ObjectInfo info = st.stat(key).orElseThrow(
          () -> new NotFoundException("nothing is published at " + key + " in " + st.describe() + "; publish it first"));
      Pointer next = Pointer.to(info, runSpec.window().lengthSeconds(), runSpec.schemaVersion(), writerId, ctx.clock().instant());
      AdvanceReport r = pointerTimeout.advancer(st, store.deadline()).withClosedWindowGuard(windows).advance(next);
      if (output.json) {
        out.println(Json.object().put("pipeline", runSpec.pipeline()).put("key", key)
            .put("pointer", Reports.pointerJson(r)).putIfPresent("requests", StoreRequests.json(st)));
      } else if (!output.quiet) {
        out.println(r.status().name() + " " + runSpec.pipeline() + " key=" + key
            + ((r.status() == AdvanceStatus.NEWER_PRESENT || r.status() == AdvanceStatus.SAME_POSITION_OTHER_KEY)
                && r.current() != null ? " (pointer stays at " + r.current().key() + ")" : ""));
      }
      if (r.status() == AdvanceStatus.SAME_POSITION_OTHER_KEY && !output.quiet) {
        spec.commandLine().getErr().println("idem pointer advance: " + Reports.driftLine(r));
      }
      if (r.status().gaveUp()) {
        // An outcome, not a failure: the report above already said it (one JSON object under --json).
        if (!output.quiet) {
          spec.commandLine().getErr().println("idem pointer advance: " + Reports.whyGaveUp(r, pointerTimeout.ranOut(store.deadline()))
              + "; nothing was written, retry later");
        }
        return ExitCodes.CONTENDED;
      }
      return ExitCodes.OK;
    }
  }
}
