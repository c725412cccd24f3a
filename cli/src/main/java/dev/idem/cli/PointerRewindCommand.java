package dev.idem.cli;

import dev.idem.core.Names;
import dev.idem.core.RunSpec;
import dev.idem.core.publish.ClosedWindowGuard;
import dev.idem.core.publish.RewindReport;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code idem pointer rewind}: the one way a pointer moves backwards, an operator's repair (core's
 * {@link dev.idem.core.publish.PointerRewinder}). Exists because the forward-only rule that protects
 * readers from late replicas also keeps a poisoned pointer poisoned forever. The move is a
 * compare-and-swap on the key the operator saw ({@code --expect}), names an object that exists, and is
 * recorded in the pointer (from, to, by, at, why) where {@code pointer show} and {@code scan} print it.
 * The swap waits for the pointer's lock at most {@code --pointer-timeout} (B1).
 *
 * <p>Exit codes: 0 rewound; 2 refused (target not behind the pointer, future window, bad reason;
 * nothing written); 3 the pointer is not at {@code --expect} or moved during the swap, or its lock was
 * not obtained within {@code --pointer-timeout} (nothing written; re-read and decide again, or retry);
 * 7 no pointer, or nothing published for the target spec.
 */
@Command(name = "rewind", mixinStandardHelpOptions = true, versionProvider = IdemCommand.Version.class,
    description = {
        "Move a pipeline's pointer BACK to the object published for a spec: the one way backwards, for an "
            + "operator repairing a pointer that names a generation readers must not get.",
        "The pointer must still name --expect (compare-and-swap: a publisher that moved it in between wins, "
            + "exit 3, nothing written); the target must be published and behind the pointer. The pointer then "
            + "records the rewind (from, to, by, at, reason), which 'pointer show' and 'scan' print and later "
            + "advances keep.",
        ""
    })
final class PointerRewindCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  SpecOptions specOptions;

  @Option(names = "--expect", paramLabel = "KEY", required = true,
      description = "The key the pointer names now (from 'idem pointer show'); anything else refuses the rewind.")
  String expect;

  @Option(names = "--reason", paramLabel = "TEXT", required = true,
      description = "Why, recorded in the pointer: one line, at most " + Pointer.Rewind.MAX_REASON_LENGTH + " characters.")
  String reason;

  @Mixin
  ClockSkewOption skew;

  @Mixin
  PointerTimeoutOption pointerTimeout;

  @Mixin
  StoreOption store;

  @Mixin
  WriterOption writer;

  @Mixin
  OutputOptions output;

  @Override
  public Integer call() throws IOException {
    CliContext ctx = IdemCommand.context(spec);
    RunSpec runSpec = specOptions.toSpec(ctx.clock());
    String operator = writer.resolve(ctx);
    String key = runSpec.outputKey().toString();
    ClosedWindowGuard windows = skew.guard(ctx);
    try {
      Pointer.Rewind.requireReason(reason);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--reason: " + e.getMessage());
    }
    try {
      Names.requireSafeKey(expect);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--expect: " + e.getMessage());
    }
    // Before the store is opened: a future target is refused without reading anything.
    windows.requireClosed(runSpec.window(), "rewind " + runSpec.pipeline() + " to");
    PrintWriter out = spec.commandLine().getOut();
    try (ObjectStore st = store.open(ctx)) {
      ObjectInfo info = st.stat(key).orElseThrow(
          () -> new NotFoundException("nothing is published at " + key + " in " + st.describe() + "; a rewind names a published object"));
      Pointer target = Pointer.to(info, runSpec.window().lengthSeconds(), runSpec.schemaVersion(), operator, ctx.clock().instant());
      RewindReport r = pointerTimeout.rewinder(st, windows, store.deadline()).rewind(target, expect, operator, reason);
      return switch (r.status()) {
        case REWOUND -> {
          Pointer.Rewind rec = r.current().rewind();
          if (output.json) {
            out.println(Json.object().put("status", r.status().name()).put("pipeline", runSpec.pipeline())
                .put("key", key).put("rewind", PointerShowCommand.rewindJson(rec)));
          } else if (!output.quiet) {
            out.println("REWOUND " + runSpec.pipeline() + " from " + rec.from() + " to " + rec.to() + " by " + rec.by()
                + " at " + rec.at());
          }
          yield ExitCodes.OK;
        }
        case NO_POINTER -> throw new NotFoundException("no pointer for pipeline " + runSpec.pipeline() + " in "
            + st.describe() + "; nothing to rewind");
        case POINTER_MOVED -> throw new ContendedException("pointer of " + runSpec.pipeline() + " is at "
            + (r.current() == null ? "nothing" : r.current().key()) + ", not at --expect " + expect
            + "; nothing written (re-read it with 'idem pointer show' and decide again)");
        case BUSY -> throw new ContendedException("the pointer lock of " + runSpec.pipeline()
            + " was not obtained within " + Durations.format(r.elapsed()) + " (" + pointerTimeout.ranOut(store.deadline())
            + "): another writer holds it and has not let go (a stopped or hung process?); nothing written, retry later");
      };
    }
  }
}
