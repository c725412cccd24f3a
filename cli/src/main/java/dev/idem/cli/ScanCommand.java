package dev.idem.cli;

import dev.idem.core.Names;
import dev.idem.core.proof.ProvenStore;
import dev.idem.core.scan.Basis;
import dev.idem.core.scan.DivergenceScan;
import dev.idem.core.scan.KeyVerdict;
import dev.idem.core.scan.PointerTarget;
import dev.idem.core.scan.ScanSummary;
import dev.idem.core.scan.SchemaOverlap;
import dev.idem.core.scan.WindowDrift;
import dev.idem.core.store.Acknowledgement;
import dev.idem.core.store.Claim;
import dev.idem.core.store.DeadlineExceededException;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.HistoryQuery;
import dev.idem.core.store.ObjectStore;
import dev.idem.store.fs.FsObjectStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code idem scan}: the deploy gate. Stdout keeps the reference script's lines byte for byte
 * ({@link KeyVerdict#referenceLine()}, {@link ScanSummary#referenceLine()}); everything else goes to
 * stderr, so gates that parse the reference output keep working. Stderr stays a few lines however many
 * keys the scan notes something about: one line per kind of note with a count and an example ({@link
 * ScanNotes}); {@code -v} lists each note, and {@code --json} has every one.
 *
 * <p>The gate fails closed (E2): a {@code file:} root that does not exist is a store failure (exit 4),
 * a directory with files but no {@code _idem/} is not scanned as if its files were keys (exit 9), and
 * a scan that met no key and no pointer exits 9 unless {@code --allow-empty}. S3 buckets are not
 * required to hold idem's files, so legacy buckets stay scannable; a missing bucket fails the listing
 * (exit 4). A store without publish history (an embedder's store) has nothing to judge and is refused
 * (exit 8), never passed. Read-only: nothing is created or written whatever the outcome.
 *
 * <p>The store's claims under the scanned prefix (one listing) are reported as notes, held or stale by
 * {@code --claim-ttl}, and counted in the summary; they never change the exit code (advice, A1).
 */
@Command(name = "scan", mixinStandardHelpOptions = true, versionProvider = IdemCommand.Version.class,
    description = {
        "Find keys written with more than one distinct content (two replicas publishing different bytes "
            + "for one window). Read-only; safe against production.",
        "Prints 'DIVERGENT <key> writes=<n> payloads=<m>' per divergent key, then "
            + "'scanned prefix=<p> divergent_keys=<n>'. Exit 0 when clean; 1 when a key diverged, the scan "
            + "was cut short by --max-keys/--max-time, or the pointer of a scanned pipeline names an object "
            + "that is missing or holds other bytes (SHA-256 or size) than the pointer says. Exit 9 when the "
            + "scan examined nothing (no key and no pointer: a typo in --store, --pipeline or --prefix), or "
            + "the file: directory holds files but no _idem/ (not an idem store); exit 4 when the file: "
            + "directory or the bucket does not exist. --json prints one JSON object per line: each divergent "
            + "key with its versions, then a summary. A pointer an operator rewound ('idem pointer rewind') is "
            + "shown (POINTER-REWOUND on stderr, pointer_rewinds in --json); it does not fail the gate.",
        "A position (window and schema) holding more than one key is drift (type drift in --json): two "
            + "builds that declared different inputs for one window without bumping --schema (keying drift), or "
            + "several outputs of one window published under one pipeline; the pointer names one of them. "
            + "Stores record each key's schema, so the overlap of a --schema bump (one key per schema) is not "
            + "drift (type schema_overlap). A window with a key whose schema is not known (written by an older "
            + "idem or another tool) is judged whole: schema=unknown. --fail-on-drift makes drift exit 1, and "
            + "only with it does the scan read the schemas S3 listings do not show (a HEAD for each of at most "
            + "three keys a window of several keys); without it such windows on S3 are judged whole.",
        "A key published again after 'idem gc' removed it is compared life by life (a delete marker, or the "
            + "pipeline's retirement mark, separates the lives) and reported as republished (a note on stderr; type "
            + "republished in --json; republished_keys in the summary), not as divergent; it does not fail the "
            + "gate. Different bytes within one life still do.",
        "A divergent key an operator acknowledged ('idem ack') is listed as ACKNOWLEDGED (stderr; type "
            + "acknowledged in --json; acknowledged_keys in the summary) and passes, until a new content or "
            + "divergent attempt is written there.",
        "Claims still held under the prefix (replicas at work on keys not yet published: writer, key, age, start, "
            + "expected duration) and stale ones (not renewed within --claim-ttl: 'idem gc' removes them) are "
            + "reported (claims: on stderr; type claim in --json; claims_held and claims_stale in the summary). They are "
            + "advice and never change the exit code. A store that keeps no claims reports none.",
        "Stderr gives one line per kind of note (divergent keys compared by ETag, drift, windows judged whole, "
            + "schema bumps' overlaps, republished keys, claims) with how many and one example, so a gate's log stays "
            + "short on a million keys; -v also lists every one as it is found (note:, DRIFT, SCHEMA-OVERLAP, "
            + "REPUBLISHED, CLAIM lines); --json always has every one.",
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
        description = "Only windows that started within D before now (e.g. 24h). Pushed into the store's "
            + "listing: keys of older windows are not listed where the layout allows, and never HEADed or hashed.")
    Duration since;
  }

  @Option(names = "--max-keys", paramLabel = "N", defaultValue = "0",
      description = "Stop after N keys (0: no bound). A cut-short scan is never reported clean.")
  long maxKeys;

  @Option(names = "--list-parallelism", paramLabel = "N", defaultValue = "16",
      description = "Listing requests in flight at once (1-64, default ${DEFAULT-VALUE}). S3 lists the key "
          + "ranges of pipelines, windows and directories concurrently, output still in key order; memory grows "
          + "with N (two listing pages per request). 1: one sequential listing. The filesystem store ignores it.")
  int listParallelism;

  @Option(names = "--progress-every", paramLabel = "D", converter = Durations.class, defaultValue = "10s",
      description = "How often a progress line (keys, versions, rate, elapsed) goes to stderr when it is not a "
          + "terminal (default ${DEFAULT-VALUE}); on a terminal one live line is redrawn every second. Stdout, "
          + "--json included, is never written; -q turns it off.")
  Duration progressEvery;

  @Option(names = "--allow-empty",
      description = "Pass (exit 0) when the scan examines nothing, e.g. the first rollout of a new pipeline. "
          + "Without it a scan that met no key and no pointer exits 9.")
  boolean allowEmpty;

  @Option(names = "--fail-on-drift",
      description = "Exit 1 when a position (window and schema) holds more than one key (keying drift: an input "
          + "changed without a --schema bump), or a window of several keys has one whose schema is not recorded. "
          + "On S3 it reads the schemas of at most three keys a window of several keys (a HEAD each), which "
          + "a scan without it skips.")
  boolean failOnDrift;

  @Option(names = "--claim-ttl", paramLabel = "D", converter = Durations.class,
      defaultValue = GcCommand.DEFAULT_CLAIM_TTL,
      description = "Report claims not written or renewed within D as stale ('idem gc' removes them) and younger "
          + "ones as held. Claims never change the exit code. Default: ${DEFAULT-VALUE}")
  Duration claimTtl;

  @Option(names = {"-v", "--verbose"},
      description = "Also list every note on stderr as it is found: each divergent key compared by ETag, each "
          + "DRIFT position, each SCHEMA-OVERLAP window, each REPUBLISHED key and each CLAIM. Without it stderr gives one "
          + "line per kind of note with its count and one example. --json always has every one.")
  boolean verbose;

  @Mixin
  StoreOption store;

  @Mixin
  OutputOptions output;

  @Mixin
  MetricsOptions metrics;

  private volatile long keysSeen;
  private volatile long entriesSeen;

  @Override
  public Integer call() throws IOException {
    CliContext ctx = IdemCommand.context(spec);
    if (maxKeys < 0) {
      throw new UsageException("--max-keys must be >= 0, was " + maxKeys);
    }
    if (claimTtl.isZero()) {
      throw new UsageException("--claim-ttl must be positive");
    }
    if (progressEvery.isZero()) {
      throw new UsageException("--progress-every must be positive");
    }
    if (listParallelism < 1 || listParallelism > HistoryQuery.MAX_LIST_PARALLELISM) {
      throw new UsageException("--list-parallelism must be 1-" + HistoryQuery.MAX_LIST_PARALLELISM + ", was "
          + listParallelism);
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
    ScanMetrics told = metrics.startScan(ctx, StoreUris.choose(store.uri, ctx.env()), prefix, err);
    try {
      return scan(ctx, pipeline, prefix, out, err, told);
    } catch (IOException | RuntimeException e) {
      told.failed(ExitCodes.codeOf(e));
      throw e;
    }
  }

  private int scan(CliContext ctx, String pipeline, String prefix, PrintWriter out, PrintWriter err, ScanMetrics told)
      throws IOException {
    try (ObjectStore st = store.open(ctx)) {
      requireIdemStore(st);
      // The store lists only what the query accepts: --since is not a filter applied after the work.
      HistoryQuery query = HistoryQuery.under(prefix);
      if (pipeline != null && scope.pipeline.since != null) {
        long min = Math.max(0, ctx.clock().instant().minus(scope.pipeline.since).getEpochSecond());
        query = HistoryQuery.windows(pipeline, min);
      }
      query = query.until(ctx.clock(), null).withListParallelism(listParallelism);
      if (!failOnDrift) {
        // Only the drift verdict needs the schemas a listing does not show (S3: HEADs in windows of several
        // keys); a gate that does not fail on drift does not pay for them.
        query = query.withoutSchemaReads();
      }
      // --max-time (the store's deadline) is a hard limit: a listing request it cuts ends the scan incomplete.
      DivergenceScan scan = new DivergenceScan(ctx.clock(), maxKeys, null).within(store.deadline()).withClaimTtl(claimTtl);
      List<String> cutBy = new ArrayList<>();
      ScanSummary summary;
      ScanNotes notes = new ScanNotes(err, verbose);
      String where = st.describe() + " prefix=" + prefix;
      Progress progress = Progress.start(err, !output.quiet, Progress.onTerminal(), ctx.progressAfter(), progressEvery.toMillis(),
          elapsed -> status(where, keysSeen, entriesSeen, elapsed));
      try {
        summary = scan.run(st, query, pointersToCheck(pipeline, prefix), new DivergenceScan.Listener() {
          private String lastDriftWindow;

          @Override
          public void divergent(KeyVerdict v) {
            if (output.json) {
              out.println(json(v));
            } else if (!output.quiet) {
              out.println(v.referenceLine());
              if (v.basis() != Basis.SHA256) {
                notes.add(ScanNotes.Kind.ETAG_DIVERGENT, v.key(), () -> "idem scan: note: " + v.key() + " compared by "
                    + v.basis() + " (ETags are not content hashes for multipart or SSE-KMS objects)");
              }
            }
            out.flush();
          }

          @Override
          public void republished(KeyVerdict v) {
            if (output.json) {
              out.println(json(v, "republished").put("lives", v.lives()));
              out.flush();
            } else if (!output.quiet) {
              notes.add(ScanNotes.Kind.REPUBLISHED, v.key() + " lives=" + v.lives() + " payloads=" + v.payloads(),
                  () -> "idem scan: " + v.republishedLine() + " (published again after idem gc removed it)");
            }
          }

          @Override
          public void acknowledged(KeyVerdict v, Acknowledgement a) {
            if (output.json) {
              out.println(json(v, "acknowledged").put("acknowledgement", AckCommand.json(a)));
              out.flush();
            } else if (!output.quiet) {
              err.println("idem scan: ACKNOWLEDGED " + v.key() + " writes=" + v.writes() + " payloads=" + v.payloads()
                  + " by " + a.by() + " at " + a.at() + ": " + a.reason());
            }
          }

          @Override
          public void drift(WindowDrift w) {
            if (output.json) {
              out.println(Json.object().put("type", "drift").put("pipeline", w.pipeline())
                  .put("window_start", w.windowStart()).put("schema", w.schema()).put("keys", w.keys())
                  .put("keys_of_unknown_schema", w.unplaced()));
              out.flush();
              return;
            }
            if (output.quiet) {
              return;
            }
            Supplier<String> line = () -> "idem scan: DRIFT " + w.pipeline() + " window_start=" + w.windowStart()
                + " schema=" + (w.schemaUnknown() ? "unknown" : w.schema()) + " holds " + w.keys().size() + " keys: "
                + String.join(" ", w.keys())
                + (w.schemaUnknown() ? " (a key's schema is not known: the window is judged whole)"
                    : w.unplaced().isEmpty() ? "" : " (the window's keys of unknown schema, which may hold it too: "
                        + String.join(" ", w.unplaced()) + ")");
            String window = w.pipeline() + "/" + w.windowStart();
            if (window.equals(lastDriftWindow)) {
              notes.detail(line); // another position of a window already counted
              return;
            }
            lastDriftWindow = window;
            notes.add(w.schemaUnknown() ? ScanNotes.Kind.DRIFT_WHOLE : ScanNotes.Kind.DRIFT, w.pipeline()
                + " window_start=" + w.windowStart() + " schema=" + (w.schemaUnknown() ? "unknown" : w.schema()) + ": "
                + ScanNotes.someKeys(w.keys()), line);
          }

          @Override
          public void schemaOverlap(SchemaOverlap w) {
            if (output.json) {
              out.println(Json.object().put("type", "schema_overlap").put("pipeline", w.pipeline())
                  .put("window_start", w.windowStart()).put("schemas", w.schemas()).put("keys", w.keys()));
              out.flush();
            } else if (!output.quiet) {
              notes.add(ScanNotes.Kind.SCHEMA_OVERLAP, w.pipeline() + " window_start=" + w.windowStart() + " schemas "
                  + w.schemas().stream().sorted().map(String::valueOf).collect(Collectors.joining(" ")),
                  () -> "idem scan: SCHEMA-OVERLAP " + w.pipeline() + " window_start=" + w.windowStart()
                      + " holds one key per schema: " + overlapKeys(w) + " (a --schema bump's overlap, not drift)");
            }
          }

          @Override
          public void claim(Claim c, boolean stale) {
            if (output.json) {
              out.println(claimJson(c).put("stale", stale));
              out.flush();
            } else if (!output.quiet) {
              notes.add(stale ? ScanNotes.Kind.CLAIM_STALE : ScanNotes.Kind.CLAIM_HELD, describe(c),
                  () -> "idem scan: " + (stale ? "CLAIM-STALE " : "CLAIM ") + describe(c));
            }
          }

          @Override
          public void progress(long keys, long entries) {
            keysSeen = keys;
            entriesSeen = entries;
          }

          @Override
          public void stopped(DeadlineExceededException cause) {
            cutBy.add(ExitCodes.oneLine(cause));
          }
        });
      } finally {
        progress.close();
      }
      boolean passEmpty = summary.examinedNothing() && allowEmpty;
      boolean driftFails = failOnDrift && summary.driftPositions() > 0;
      int code = (summary.clean() && !driftFails) || passEmpty ? ExitCodes.OK
          : summary.examinedNothing() ? ExitCodes.NOTHING_EXAMINED : ExitCodes.DIVERGENT;
      told.completed(summary, code, StoreRequests.OnS3.counts(st));
      if (output.json) {
        out.println(summaryJson(summary, code).putIfPresent("requests", StoreRequests.json(st)));
      } else if (!output.quiet) {
        out.println(summary.referenceLine());
        err.println("idem scan: examined " + summary.keys() + " keys (" + summary.entries()
            + " versions and publish records) and " + summary.pointersExamined() + " pointers; "
            + summary.benignDuplicateKeys() + " benign duplicate keys (same bytes written again), "
            + summary.divergentKeys() + " divergent, " + summary.driftPositions()
            + " positions with more than one key" + (driftFails ? " (failing: --fail-on-drift)" : "")
            + ", " + summary.republishedKeys() + " republished after gc"
            + (summary.acknowledgedKeys() > 0 ? ", " + summary.acknowledgedKeys() + " acknowledged divergent" : "")
            + claimsSummary(summary.claims()));
        notes.summarize();
        if (!summary.complete()) {
          boolean byKeys = maxKeys > 0 && summary.keys() >= maxKeys;
          err.println("idem scan: stopped early by " + (byKeys ? "--max-keys " + maxKeys : store.deadline().describe())
              + ": not a clean result"
              + (cutBy.isEmpty() ? "" : "; the request in flight was cut: " + cutBy.get(0)));
        }
        summary.pointerRewinds().forEach((p, r) -> err.println("idem scan: POINTER-REWOUND " + p
            + " from " + r.from() + " to " + r.to() + " by " + r.by() + " at " + r.at() + ": " + r.reason()));
        for (PointerTarget t : summary.pointerProblems()) {
          err.println("idem scan: POINTER-" + (t.status() == PointerTarget.Status.MISSING ? "MISSING " : "MISMATCH ")
              + t.describe(st.describe()));
        }
        if (passEmpty) {
          err.println("idem scan: nothing examined under prefix=" + prefix + " in " + st.describe()
              + "; passed because of --allow-empty");
        }
      }
      if (code == ExitCodes.NOTHING_EXAMINED) {
        // A failure, so said even under --quiet: the one line a gate's log shows.
        err.println("idem scan: nothing examined: no key under prefix=" + prefix
            + (pipeline != null ? " and no pointer for " + pipeline : "") + " in " + st.describe()
            + "; a gate never passes on nothing (check --store, --pipeline, --prefix; --allow-empty passes "
            + "the first rollout of a new pipeline)" + (pipeline != null ? Pipelines.didYouMean(st, pipeline) : ""));
      }
      return code;
    }
  }

  /**
   * The claims' part of the totals line: empty when the store keeps none or none was found, so a gate's
   * log is unchanged until a claim is there.
   */
  private static String claimsSummary(ScanSummary.ClaimCounts c) {
    if (c == null) {
      return "";
    }
    if (c.notListed() != null) {
      return "; claims could not be listed (" + c.notListed() + "), which changes no verdict";
    }
    if (c.held() + c.stale() == 0) {
      return "";
    }
    return "; claims: " + c.held() + " held, " + c.stale() + " stale (advice, never the verdict)";
  }

  /**
   * A claim as the scan's and gc's lines show it: key, writer, how long ago it was written or renewed,
   * when its writer started, and the duration it expected.
   */
  static String describe(Claim c) {
    return c.key() + " by " + c.writer() + ", renewed " + Durations.format(c.age()) + " ago (started " + c.started()
        + c.expectedDuration().map(d -> ", expected " + Durations.format(d)).orElse("") + ")";
  }

  /** A claim as {@code --json} of scan and gc shows it. */
  static Json claimJson(Claim c) {
    return Json.object().put("type", "claim").put("key", c.key()).put("id", c.id()).put("writer", c.writer())
        .put("started", c.started())
        .put("expected_seconds", c.expectedDuration().map(Duration::toSeconds).orElse(null))
        .put("age_seconds", c.age().toSeconds());
  }

  /** An overlap's keys, each after its schema: {@code 1=KEY 2=KEY}. */
  private static String overlapKeys(SchemaOverlap w) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < w.keys().size(); i++) {
      out.add(w.schemas().get(i) + "=" + w.keys().get(i));
    }
    return String.join(" ", out);
  }

  /** The progress line: keys and versions seen, the rate, and the time since the scan started. */
  static String status(String where, long keys, long versions, long elapsedMillis) {
    long rate = elapsedMillis <= 0 ? 0 : versions * 1000 / elapsedMillis;
    return String.format(java.util.Locale.ROOT, "scan %s: %,d keys, %,d versions, %,d versions/s, %ds elapsed",
        where, keys, versions, rate, elapsedMillis / 1000);
  }

  /**
   * Pointers to read besides those of the pipelines met: the one asked for, or the one a prefix like
   * {@code border-state/} names, so a pipeline whose keys are all gone still has its pointer checked.
   */
  private static Set<String> pointersToCheck(String pipeline, String prefix) {
    if (pipeline != null) {
      return Set.of(pipeline);
    }
    int slash = prefix.indexOf('/');
    if (slash > 0 && Names.isValidName(prefix.substring(0, slash))) {
      return Set.of(prefix.substring(0, slash));
    }
    return Set.of();
  }

  /**
   * A {@code file:} store must exist and look like one idem wrote before its files are judged as keys
   * (a scan of {@code /sys/kernel} would otherwise report thousands of "keys" and pass). An empty
   * directory is let through: it is an empty store, and the scan then examines nothing.
   */
  static void requireIdemStore(ObjectStore st) throws IOException {
    ObjectStore bare = st instanceof ProvenStore proven ? proven.store() : st;
    if (!(bare instanceof FsObjectStore fs)) {
      return;
    }
    Path root = fs.root();
    if (!Files.isDirectory(root)) {
      throw new IOException("no idem store at " + st.describe() + ": the directory does not exist");
    }
    // The store's own directory: created by the first publish, before any object is visible.
    if (Files.isDirectory(root.resolve("_idem"), LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    List<String> names = new ArrayList<>();
    long count;
    try (Stream<Path> entries = Files.list(root)) {
      count = entries.peek(e -> {
        if (names.size() < 3) {
          names.add(e.getFileName().toString());
        }
      }).count();
    }
    if (count > 0) {
      throw new NothingExaminedException(st.describe() + " is not an idem store: found " + count
          + " entries (" + String.join(", ", names) + (count > names.size() ? ", ..." : "")
          + ") but no _idem/ directory; an idem store holds <pipeline>/<window_start>/state-<sha256> objects "
          + "and _idem/ (created by the first publish)");
    }
  }

  private static Json summaryJson(ScanSummary summary, int code) {
    List<Json> problems = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (PointerTarget t : summary.pointerProblems()) {
      if (t.status() == PointerTarget.Status.MISSING) {
        missing.add(t.pointer().key());
      }
      problems.add(Json.object()
          .put("pipeline", t.pointer().pipeline())
          .put("key", t.pointer().key())
          .put("status", t.status().name())
          .put("pointer_sha256", t.pointer().sha256())
          .put("pointer_size", t.pointer().size())
          .putIfPresent("stored_sha256", t.stored() == null ? null : t.stored().sha256())
          .putIfPresent("stored_size", t.stored() == null ? null : t.stored().size()));
    }
    return Json.object().put("type", "summary").put("prefix", summary.prefix())
        .put("keys", summary.keys()).put("entries", summary.entries())
        .put("pointers", summary.pointersExamined())
        .put("benign_duplicate_keys", summary.benignDuplicateKeys())
        .put("divergent_keys", summary.divergentKeys())
        .put("complete", summary.complete())
        .put("pointer_missing_objects", missing)
        .put("pointer_problems", problems)
        .put("pointer_rewinds", rewindsJson(summary))
        .put("nothing_examined", summary.examinedNothing())
        .put("drift_positions", summary.driftPositions())
        .put("republished_keys", summary.republishedKeys())
        .put("acknowledged_keys", summary.acknowledgedKeys())
        .put("claims_held", summary.claims() == null ? null : summary.claims().held())
        .put("claims_stale", summary.claims() == null ? null : summary.claims().stale())
        .putIfPresent("claims_not_listed", summary.claims() == null ? null : summary.claims().notListed())
        .put("clean", summary.clean())
        .put("exit_code", code);
  }

  /** The last rewind of each scanned pipeline's pointer, with the pipeline named. */
  static List<Json> rewindsJson(ScanSummary summary) {
    List<Json> list = new ArrayList<>();
    summary.pointerRewinds().forEach((pipeline, r) -> list.add(PointerShowCommand.rewindJson(r).put("pipeline", pipeline)));
    return list;
  }

  static Json json(KeyVerdict v) {
    return json(v, "divergent");
  }

  /** A judged key with its history, as one JSON object of the given type. */
  static Json json(KeyVerdict v, String type) {
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
        .put("type", type)
        .put("key", v.key())
        .put("writes", v.writes())
        .put("payloads", v.payloads())
        .put("basis", v.basis().name())
        .put("divergent_attempts", v.divergentAttempts())
        .put("versions", versions);
  }
}
