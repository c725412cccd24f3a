package dev.idem.cli;

import dev.idem.core.RunSpec;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code idem key}: the key a spec maps to, without touching any store. {@code --store} is accepted
 * like on every other command (so a job can pass one set of flags to each), checked for form and
 * otherwise unused.
 */
@Command(name = "key", mixinStandardHelpOptions = true, versionProvider = IdemCommand.Version.class,
    description = {
        "Print the output key for a spec: {pipeline}/{window_start}/state-{sha256}. Two replicas with "
            + "equal specs print the same key on any machine.",
        "With --json, also the window bounds and the declared input names. --store is accepted and "
            + "checked for form, but no store is opened: the key depends on the spec alone."
    })
final class KeyCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  SpecOptions specOptions;

  @Mixin
  StoreOption store;

  @Mixin
  OutputOptions output;

  @Override
  public Integer call() {
    if (store.uri != null) {
      StoreUris.parse(store.uri);
    }
    RunSpec runSpec = specOptions.toSpec(IdemCommand.context(spec).clock());
    PrintWriter out = spec.commandLine().getOut();
    if (output.json) {
      out.println(json(runSpec));
    } else if (!output.quiet) {
      out.println(runSpec.outputKey());
    }
    return ExitCodes.OK;
  }

  static Json json(RunSpec s) {
    return Json.object()
        .put("key", s.outputKey().toString())
        .put("pipeline", s.pipeline())
        .put("window_start", s.window().startEpochSecond())
        .put("window_end", s.window().endEpochSecond())
        .put("window_length", s.window().lengthSeconds())
        .put("window_start_time", s.window().start())
        .put("window_end_time", s.window().end())
        .put("schema_version", s.schemaVersion())
        .put("inputs", new ArrayList<>(s.inputs().keySet()));
  }
}
