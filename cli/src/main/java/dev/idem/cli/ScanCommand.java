package dev.idem.cli;

import dev.idem.core.Names;
import dev.idem.core.OutputKey;
import dev.idem.core.scan.Basis;
import dev.idem.core.scan.DivergenceScan;
import dev.idem.core.scan.KeyVerdict;
import dev.idem.core.scan.ScanSummary;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.ObjectStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code idem scan}: the deploy gate. Stdout keeps the reference script's lines byte for byte
 * ({@link KeyVerdict#referenceLine()}, {@link ScanSummary#referenceLine()}); everything else goes to
 * stderr, so gates that parse the reference output keep working.
 */
@Command(name = "scan", mixinStandardHelpOptions = true, versionProvider = IdemCommand.Version.class,
    description = {
        "Find keys written with more than one distinct content (two replicas publishing different bytes "
            + "for one window). Read-only; safe against production.",
        "Prints 'DIVERGENT <key> writes=<n> payloads=<m>' per divergent key, then "
            + "'scanned prefix=<p> divergent_keys=<n>'. Exit 0 when clean; 1 when a key diverged, the scan "
            + "was cut short by --max-keys/--max-time, or the pointer of a scanned pipeline names a missing "
            + "object. --json prints one JSON object per line: each divergent key with its versions, then "
            + "a summary.",
        ""
    })
final class ScanCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @ArgGroup(exclusive = true, multiplicity = "0..1")
  Scope scope;

  /** A raw prefix (as the reference script takes), or a pipeline and a time range. */
  static final class Scope {
    @Option(names = "--prefix", paramLabel = "PFX", description = "Scan keys under PFX. Default: the whole store.")
    String prefix;

    @ArgGroup(exclusive = false, multiplicity = "1")
    PipelineScope pipeline;
  }

  static final class PipelineScope {
    @Option(names = "--pipeline", paramLabel = "P", required = true, description = "Scan one pipeline's keys.")
    String pipeline;

    @Option(names = "--since", paramLabel = "D", converter = Durations.class,
        description = "Only windows that started within D before now (e.g. 24h).")
    Duration since;
  }

  @Option(names = "--max-keys", paramLabel = "N", defaultValue = "0",
      description = "Stop after N keys (0: no bound). A cut-short scan is never reported clean.")
  long maxKeys;

  @Option(names = "--max-time", paramLabel = "D", converter = Durations.class,
      description = "Stop after D. A cut-short scan is never reported clean.")
  Duration maxTime;

  @Mixin
  StoreOption store;

  @Mixin
  OutputOptions output;

  private volatile long keysSeen;
  private volatile long entriesSeen;

  @Override
  public Integer call() throws IOException {
    CliContext ctx = IdemCommand.context(spec);
    if (maxKeys < 0) {
      throw new UsageException("--max-keys must be >= 0, was " + maxKeys);
    }
    if (maxTime != null && maxTime.isZero()) {
      throw new UsageException("--max-time must be positive");
    }
    String pipeline = scope != null && scope.pipeline != null ? scope.pipeline.pipeline : null;
    if (pipeline != null) {
      try {
        Names.requirePipeline(pipeline);
      } catch (IllegalArgumentException e) {
        throw new UsageException(e.getMessage());
      }
    }
    String prefix = pipeline != null ? pipeline + "/" : scope != null && scope.prefix != null ? scope.prefix : "";
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (ObjectStore st = store.open(ctx)) {
      Predicate<String> keys = key -> true;
      if (pipeline != null && scope.pipeline.since != null) {
        long min = ctx.clock().instant().minus(scope.pipeline.since).getEpochSecond();
        keys = key -> OutputKey.looksLikeKey(key) && OutputKey.parse(key).windowStartEpochSecond() >= min;
      }
      DivergenceScan scan = new DivergenceScan(ctx.clock(), maxKeys, maxTime);
      ScanSummary summary;
      Progress progress = Progress.start(err, !output.quiet, 5000,
          () -> "scanning " + st.describe() + " prefix=" + prefix + ": " + keysSeen + " keys, " + entriesSeen + " entries");
      try {
        summary = scan.run(st, prefix, keys, pipeline == null ? Set.of() : Set.of(pipeline), new DivergenceScan.Listener() {
          @Override
          public void divergent(KeyVerdict v) {
            if (output.json) {
              out.println(json(v));
            } else if (!output.quiet) {
              out.println(v.referenceLine());
              if (v.basis() != Basis.SHA256) {
                err.println("idem scan: note: " + v.key() + " compared by " + v.basis()
                    + " (ETags are not content hashes for multipart or SSE-KMS objects)");
              }
            }
            out.flush();
          }

          @Override
          public void progress(long keys, long entries) {
            keysSeen = keys;
            entriesSeen = entries;
          }
        });
      } finally {
        progress.close();
      }
      List<String> missing = summary.danglingPointers();
      if (output.json) {
        out.println(Json.object().put("type", "summary").put("prefix", prefix)
            .put("keys", summary.keys()).put("entries", summary.entries())
            .put("benign_duplicate_keys", summary.benignDuplicateKeys())
            .put("divergent_keys", summary.divergentKeys())
            .put("complete", summary.complete())
            .put("pointer_missing_objects", missing)
            .put("clean", summary.clean()));
      } else if (!output.quiet) {
        out.println(summary.referenceLine());
        err.println("idem scan: " + summary.keys() + " keys, " + summary.entries() + " history entries, "
            + summary.benignDuplicateKeys() + " benign duplicate keys (same bytes written again), "
            + summary.divergentKeys() + " divergent");
        if (!summary.complete()) {
          err.println("idem scan: stopped early by --max-keys/--max-time: not a clean result");
        }
        for (String k : missing) {
          err.println("idem scan: POINTER-MISSING " + k.substring(0, k.indexOf('/')) + " names " + k
              + ", which is not in the store");
        }
      }
      return summary.clean() ? ExitCodes.OK : ExitCodes.DIVERGENT;
    }
  }

  static Json json(KeyVerdict v) {
    List<Json> versions = new ArrayList<>();
    for (HistoryEntry e : v.entries()) {
      versions.add(Json.object()
          .put("kind", e.kind().name())
          .putIfPresent("version_id", e.versionId())
          .putIfPresent("time", e.time())
          .put("size", e.size())
          .putIfPresent("sha256", e.sha256())
          .putIfPresent("etag", e.etag())
          .putIfPresent("writer", e.writer()));
    }
    return Json.object()
        .put("type", "divergent")
        .put("key", v.key())
        .put("writes", v.writes())
        .put("payloads", v.payloads())
        .put("basis", v.basis().name())
        .put("divergent_attempts", v.divergentAttempts())
        .put("versions", versions);
  }
}
