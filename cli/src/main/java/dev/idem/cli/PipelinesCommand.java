package dev.idem.cli;

import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code idem pipelines}: what a store holds, by pipeline, with where each pointer stands: the first
 * command to run against an unfamiliar store, and the list a mistyped {@code --pipeline} is checked
 * against. Read-only; never probes or creates anything.
 */
@Command(name = "pipelines", mixinStandardHelpOptions = true, versionProvider = IdemCommand.Version.class,
    description = {
        "List the pipelines a store holds, with where each pointer stands.",
        "One line per pipeline (a pointer, or objects under the pipeline's name) with the key, window and "
            + "schema its pointer names ('no pointer' when it has none). Read-only.",
        "--json prints one object per pipeline. Exit 0, also for a store that holds none.",
        ""
    })
final class PipelinesCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  StoreOption store;

  @Mixin
  OutputOptions output;

  @Override
  public Integer call() throws IOException {
    CliContext ctx = IdemCommand.context(spec);
    PrintWriter out = spec.commandLine().getOut();
    try (ObjectStore st = store.open(ctx)) {
      for (String pipeline : st.pipelines()) {
        Optional<Pointer> p = st.readPointer(pipeline).map(PointerState::pointer);
        if (output.json) {
          out.println(Json.object().put("pipeline", pipeline)
              .put("pointer", p.map(PointerShowCommand::json).orElse(null)));
        } else if (!output.quiet) {
          out.println(pipeline + p.map(x -> " key=" + x.key() + " window_start=" + x.windowStart()
              + " schema=" + x.schemaVersion() + (x.rewind() != null ? " (rewound)" : "")).orElse(" no pointer"));
        }
      }
      return ExitCodes.OK;
    }
  }
}
