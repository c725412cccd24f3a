package dev.idem.cli;

import dev.idem.core.Names;
import dev.idem.core.retention.Retention;
import dev.idem.core.store.Claim;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Retirement;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code idem gc}: core's {@link Retention} for one pipeline (it also removes the pipeline's stale claims
 * and sweeps the store's leftovers). On a store that lacks a capability gc needs for part of its work
 * (publish history, retirement marks, a sweep, claims) it does the rest and prints one {@code skipped:}
 * line per capability missing ({@code skipped} in {@code --json}).
 */
@Command(name = "gc", mixinStandardHelpOptions = true, versionProvider = IdemCommand.Version.class,
    description = {
        "Remove old generations of a pipeline and stale temporaries. Never removes what the pointer names "
            + "or anything newer, nor anything written within --grace; with no pointer, removes no generation. "
            + "Prints what it removed (or, with --dry-run, what it would).",
        "Before removing anything it raises the pipeline's retirement mark (one small record per pipeline, "
            + "only ever moved forward) to the newest window it removes, so that a later publish of a removed "
            + "window is reported as REPUBLISHED and 'idem scan' does not call it divergent. --dry-run writes "
            + "nothing.",
        "It removes the pipeline's stale claims too: claims not renewed within --claim-ttl, whose writers "
            + "stopped (a fresh claim is never removed); the sweep removes the claim directories of a file: store "
            + "left empty for longer than --grace.",
        "gc never creates a store: a file: store whose directory does not exist exits 4, one that holds files "
            + "but no _idem/ exits 9, and on a store idem has not marked (no _idem/store) nothing is probed or "
            + "marked.",
        ""
    })
final class GcCommand implements Callable<Integer> {
  /** The claim ttl publishers use by default ({@link Retention.Policy#DEFAULT_CLAIM_TTL}), as a flag's default. */
  static final String DEFAULT_CLAIM_TTL = "60s";

  @Spec
  CommandSpec spec;

  @Option(names = "--pipeline", paramLabel = "P", required = true, description = "Pipeline name.")
  String pipeline;

  @Option(names = "--keep", paramLabel = "N", required = true,
      description = "Keep the newest N generations, N >= 1 (the pointer's and newer ones are always kept).")
  int keep;

  @Option(names = "--older-than", paramLabel = "D", converter = Durations.class,
      description = "Only remove generations whose window ended at least D ago.")
  Duration olderThan;

  @Option(names = "--grace", paramLabel = "D", converter = Durations.class, defaultValue = "1h",
      description = "Leave alone objects and leftovers (temporaries, incomplete uploads) written within D. Default: ${DEFAULT-VALUE}")
  Duration grace;

  @Option(names = "--claim-ttl", paramLabel = "D", converter = Durations.class, defaultValue = DEFAULT_CLAIM_TTL,
      description = "Remove claims not written or renewed within D (their writers stopped renewing); a claim "
          + "fresher than D is never removed. Give it the ttl the pipeline's runs claim with. Default: ${DEFAULT-VALUE}")
  Duration claimTtl;

  @Option(names = "--dry-run", description = "Print what would be removed; remove nothing.")
  boolean dryRun;

  @Option(names = "--drop-divergent-evidence",
      description = "Also remove the publish records and kept bytes of divergent generations (by default they"
          + " outlive retention, and 'idem scan' keeps reporting the key).")
  boolean dropDivergentEvidence;

  @Mixin
  StoreOption store;

  @Mixin
  OutputOptions output;

  @Override
  public Integer call() throws IOException {
    CliContext ctx = IdemCommand.context(spec);
    Retention.Policy policy;
    try {
      Names.requirePipeline(pipeline);
      policy = new Retention.Policy(keep, olderThan, grace, dryRun, dropDivergentEvidence, claimTtl);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (ObjectStore st = store.open(ctx)) {
      // A mistyped file: store is a missing directory (or one of someone else's files): gc never creates
      // a store, nor sweeps what is not one.
      ScanCommand.requireIdemStore(st);
      Retention.Report report;
      Progress progress = Progress.start(err, !output.quiet, ctx.progressAfter(), 5000, () -> "retention for " + pipeline + " in " + st.describe());
      try {
        report = new Retention(st, ctx.clock(), "idem " + IdemCommand.Version.version()).run(pipeline, policy);
      } finally {
        progress.close();
      }
      long kept = report.generations() - report.deleted().size();
      if (output.json) {
        out.println(Json.object().put("pipeline", pipeline).put("dry_run", dryRun)
            .put("pointer_key", report.pointer() == null ? null : report.pointer().key())
            .put("generations", report.generations()).put("kept", kept)
            .put("removed", report.deleted()).put("records_removed", report.records())
            .put("records_only_removed", report.recordsOnly()).put("evidence_kept", report.evidenceKept())
            .put("swept", report.swept()).put("retired", retiredJson(report.retirement()))
            .put("claims_removed", report.claimsRemoved().stream().map(ScanCommand::claimJson).toList())
            .putIfPresent("skipped", report.skipped().isEmpty() ? null : report.skipped())
            .putIfPresent("requests", StoreRequests.json(st)));
      } else if (!output.quiet) {
        if (report.pointer() == null) {
          err.println("idem gc: pipeline " + pipeline + " has no pointer yet; no generation removed");
        }
        for (String k : report.deleted()) {
          out.println((dryRun ? "would remove " : "removed ") + k);
        }
        for (String k : report.evidenceKept()) {
          out.println("kept the records and evidence of " + k + " (divergent; --drop-divergent-evidence removes them)");
        }
        for (String k : report.recordsOnly()) {
          out.println((dryRun ? "would remove the records of " : "removed the records of ") + k);
        }
        for (Claim c : report.claimsRemoved()) {
          out.println((dryRun ? "would remove the stale claim " : "removed the stale claim ") + ScanCommand.describe(c));
        }
        for (String s : report.swept()) {
          out.println((dryRun ? "would sweep " : "swept ") + s);
        }
        if (report.retirement() != null) {
          out.println((dryRun ? "would mark " : "retired ") + "windows up to window_start="
              + report.retirement().windowStart() + " (at " + report.retirement().retiredAt() + " by "
              + report.retirement().retiredBy() + ")");
        }
        for (String s : report.skipped()) {
          out.println("skipped: " + s);
        }
        out.println("gc pipeline=" + pipeline + " generations=" + report.generations() + " kept=" + kept
            + " removed=" + report.deleted().size() + " records=" + report.records()
            + " evidence_kept=" + report.evidenceKept().size() + " swept=" + report.swept().size()
            + " claims_removed=" + report.claimsRemoved().size() + (dryRun ? " (dry run)" : ""));
      }
      return ExitCodes.OK;
    }
  }

  /** The retirement mark as the JSON reports of gc, publish and scan show it; {@code null} for none. */
  static Json retiredJson(Retirement r) {
    return r == null ? null : Json.object().put("window_start", r.windowStart())
        .put("retired_at", r.retiredAt()).put("retired_by", r.retiredBy());
  }
}
