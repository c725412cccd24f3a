package dev.idem.cli;

import dev.idem.core.Names;
import dev.idem.core.scan.PointerTarget;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code idem pointer show}: the pointer document, and whether the object it names is there. */
@Command(name = "show", mixinStandardHelpOptions = true, versionProvider = IdemCommand.Version.class,
    description = {
        "Print a pipeline's pointer: the key it names, window, schema, SHA-256, size, writer, time, the last "
            + "operator rewind if there was one (rewound_from, rewound_to, rewound_by, rewound_at, rewind_reason), "
            + "and whether the object is present with the pointer's SHA-256 and size (exit 7 when there is no "
            + "pointer, or its object is missing or holds other bytes).",
        ""
    })
final class PointerShowCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--pipeline", paramLabel = "P", required = true, description = "Pipeline name.")
  String pipeline;

  @Mixin
  StoreOption store;

  @Mixin
  OutputOptions output;

  @Override
  public Integer call() throws IOException {
    try {
      Names.requirePipeline(pipeline);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    CliContext ctx = IdemCommand.context(spec);
    PrintWriter out = spec.commandLine().getOut();
    try (ObjectStore st = store.open(ctx)) {
      PointerState state = st.readPointer(pipeline)
          .orElseThrow(() -> new NotFoundException("no pointer for pipeline " + pipeline + " in " + st.describe()
              + Pipelines.didYouMean(st, pipeline)));
      Pointer p = state.pointer();
      PointerTarget target = PointerTarget.check(st, p);
      boolean present = target.matches();
      if (output.json) {
        out.println(json(p).put("object_present", present).put("object_status", target.status().name()));
      } else if (!output.quiet) {
        for (String line : lines(p)) {
          out.println(line);
        }
        // MISSING: nothing at the key; DIFFERENT: an object whose SHA-256 or size is not the pointer's.
        out.println("object=" + (present ? "present" : target.status().name()));
      }
      if (!present) {
        spec.commandLine().getErr().println("idem pointer show: " + target.describe(st.describe()));
        return ExitCodes.NOT_FOUND;
      }
      return ExitCodes.OK;
    }
  }

  static List<String> lines(Pointer p) {
    List<String> lines = new ArrayList<>(List.of(
        "pipeline=" + p.pipeline(),
        "key=" + p.key(),
        "window_start=" + p.windowStart() + " (" + Instant.ofEpochSecond(p.windowStart()) + ")",
        "window_length=" + p.windowLength(),
        "schema_version=" + p.schemaVersion(),
        "sha256=" + p.sha256(),
        "size=" + p.size(),
        "writer=" + p.writer(),
        "published_at=" + p.publishedAt()));
    Pointer.Rewind r = p.rewind();
    if (r != null) {
      lines.addAll(List.of(
          "rewound_from=" + r.from(),
          "rewound_to=" + r.to(),
          "rewound_by=" + r.by(),
          "rewound_at=" + r.at(),
          "rewind_reason=" + r.reason()));
    }
    return lines;
  }

  static Json json(Pointer p) {
    return Json.object()
        .put("pipeline", p.pipeline())
        .put("key", p.key())
        .put("window_start", p.windowStart())
        .put("window_length", p.windowLength())
        .put("schema_version", p.schemaVersion())
        .put("sha256", p.sha256())
        .put("size", p.size())
        .put("writer", p.writer())
        .put("published_at", p.publishedAt())
        .put("last_rewind", rewindJson(p.rewind()));
  }

  /** The rewind record as JSON, or {@code null} for a pointer never rewound. */
  static Json rewindJson(Pointer.Rewind r) {
    if (r == null) {
      return null;
    }
    return Json.object()
        .put("from", r.from())
        .put("to", r.to())
        .put("by", r.by())
        .put("at", r.at())
        .put("reason", r.reason());
  }
}
