package dev.idem.cli;

import dev.idem.core.Names;
import dev.idem.core.OutputKey;
import dev.idem.core.scan.KeyVerdict;
import dev.idem.core.store.Acknowledgement;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.HistoryQuery;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.store.PublishHistory;
import dev.idem.core.store.Retirement;
import dev.idem.core.store.RetirementMarks;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code idem history --pipeline P}: a pipeline's generations, one per line, oldest first, like {@code
 * restic snapshots} or {@code git log}: what an operator reads before a rewind, an acknowledgement or a
 * backfill. Read-only.
 *
 * <p>Each generation is a key the history holds: its window and schema, the stored object's size,
 * writer and time, the scan's verdict on it (CREATED, IDENTICAL, DIVERGENT, ACKNOWLEDGED, REPUBLISHED),
 * how many writes it took, and where it stands against the pointer (the one it names, behind it, ahead
 * of it: after a rewind, or an advance that never landed). The pointer's last rewind closes the list.
 *
 * <p>Cost: one walk of the pipeline's history (as {@code idem scan --pipeline}), holding at most {@code
 * --limit} keys' histories; the pipeline's retirement mark and, when a divergent key is met, its
 * acknowledgements are read once. On S3, a window of one key does not carry its schema in the listing:
 * the schema of each key shown is read then (one HEAD each), and {@code --schema} reads it for every key
 * walked (bound it with {@code --since}).
 *
 * <p>A store without publish history is refused (exit 8); one without retirement marks shows a re-published
 * window as the scan judges it there, one life.
 */
@Command(name = "history", mixinStandardHelpOptions = true, versionProvider = IdemCommand.Version.class,
    description = {
        "List a pipeline's generations, oldest first, and where each stands against its pointer.",
        "Each line: window start, schema, size, writer, publish time, outcome (CREATED, IDENTICAL: the same bytes written again, DIVERGENT with its attempts, "
            + "ACKNOWLEDGED, REPUBLISHED after gc), writes, and where each stands against the pointer (latest, "
            + "behind, ahead, rewound: the key the last rewind moved away from). Then the pointer and its last "
            + "rewind. Read-only.",
        "--json prints one object per generation, then a summary. Exit 7 when the store holds no generation "
            + "and no pointer of the pipeline (with the pipelines it does hold, for a typo).",
        ""
    })
final class HistoryCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--pipeline", paramLabel = "P", required = true, description = "Pipeline name.")
  String pipeline;

  @Option(names = "--since", paramLabel = "D", converter = Durations.class,
      description = "Only windows that started within D before now (e.g. 7d); pushed into the store's listing.")
  Duration since;

  @Option(names = "--schema", paramLabel = "N", description = "Only generations of schema version N.")
  Integer schema;

  @Option(names = "--limit", paramLabel = "N", defaultValue = "20",
      description = "Show the newest N generations (default ${DEFAULT-VALUE}; 0: all). The summary counts all.")
  int limit;

  @Mixin
  StoreOption store;

  @Mixin
  OutputOptions output;

  /** One generation as the history, the scan's verdict and the pointer tell it. */
  private record Generation(KeyHistory history, KeyVerdict verdict, Integer schema, Acknowledgement ack) {}

  @Override
  public Integer call() throws IOException {
    CliContext ctx = IdemCommand.context(spec);
    try {
      Names.requirePipeline(pipeline);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    if (limit < 0) {
      throw new UsageException("--limit must be >= 0, was " + limit);
    }
    if (schema != null && schema < 0) {
      throw new UsageException("--schema must be >= 0, was " + schema);
    }
    PrintWriter out = spec.commandLine().getOut();
    try (ObjectStore st = store.open(ctx)) {
      PublishHistory history = PublishHistory.of(st, "idem history lists what it recorded");
      Pointer pointer = st.readPointer(pipeline).map(PointerState::pointer).orElse(null);
      Retirement mark = mark(st, pipeline);
      HistoryQuery query = since == null ? HistoryQuery.windows(pipeline, 0)
          : HistoryQuery.windows(pipeline, Math.max(0, ctx.clock().instant().minus(since).getEpochSecond()));
      ArrayDeque<Generation> shown = new ArrayDeque<>();
      Map<String, List<Acknowledgement>> acks = new HashMap<>();
      boolean[] acksRead = {false};
      long[] counts = new long[3]; // generations, divergent, acknowledged
      history.history(query, h -> {
        if (!OutputKey.looksLikeKey(h.key())) {
          return true;
        }
        Integer s = h.schema();
        if (schema != null && s == null) {
          s = history.schemaOf(h.key()).orElse(null);
        }
        if (schema != null && !schema.equals(s)) {
          return true;
        }
        KeyVerdict v = KeyVerdict.of(h, mark);
        Acknowledgement ack = null;
        if (v.divergent()) {
          if (!acksRead[0]) {
            for (Acknowledgement a : history.acknowledgements(pipeline + "/")) {
              acks.computeIfAbsent(a.key(), k -> new ArrayList<>()).add(a);
            }
            acksRead[0] = true;
          }
          for (Acknowledgement a : acks.getOrDefault(h.key(), List.of())) {
            if (v.acknowledgedBy(a) && (ack == null || a.at().isAfter(ack.at()))) {
              ack = a;
            }
          }
          counts[ack == null ? 1 : 2]++;
        }
        counts[0]++;
        shown.addLast(new Generation(h, v, s, ack));
        if (limit > 0 && shown.size() > limit) {
          shown.removeFirst();
        }
        return true;
      });
      if (counts[0] == 0 && pointer == null) {
        throw new NotFoundException("no generation and no pointer of pipeline " + pipeline + " in " + st.describe()
            + Pipelines.didYouMean(st, pipeline));
      }
      List<String[]> rows = new ArrayList<>();
      for (Generation g : shown) {
        Integer s = g.schema() != null ? g.schema() : history.schemaOf(g.history().key()).orElse(null);
        HistoryEntry object = lastVersion(g.history());
        String position = position(g.history().key(), s, pointer);
        String outcome = outcome(g.verdict(), g.ack());
        if (output.json) {
          out.println(Json.object().put("type", "generation").put("key", g.history().key())
              .put("window_start", OutputKey.parse(g.history().key()).windowStartEpochSecond())
              .put("schema", s)
              .put("object", g.history().holdsObject())
              .put("size", object == null || object.size() < 0 ? null : object.size())
              .put("sha256", object == null ? null : object.sha256())
              .put("writer", object == null ? null : object.writer())
              .put("published_at", object == null ? null : object.time())
              .put("outcome", outcome)
              .put("writes", g.verdict().writes())
              .put("payloads", g.verdict().payloads())
              .put("divergent_attempts", g.verdict().divergentAttempts())
              .put("pointer", position)
              .putIfPresent("acknowledgement", g.ack() == null ? null : AckCommand.json(g.ack())));
        } else {
          long start = OutputKey.parse(g.history().key()).windowStartEpochSecond();
          rows.add(new String[] {start + " (" + Instant.ofEpochSecond(start) + ")", s == null ? "?" : s.toString(),
              object == null || object.size() < 0 ? "-" : Long.toString(object.size()),
              object == null || object.writer() == null ? "-" : object.writer(),
              object == null || object.time() == null ? "-" : object.time().toString(),
              outcome + (g.verdict().divergentAttempts() > 0 ? "(" + g.verdict().divergentAttempts() + ")" : ""),
              Long.toString(g.verdict().writes()), position, g.history().key()});
        }
      }
      if (output.json) {
        out.println(Json.object().put("type", "summary").put("pipeline", pipeline).put("generations", counts[0])
            .put("shown", shown.size()).put("divergent", counts[1]).put("acknowledged", counts[2])
            .put("pointer", pointer == null ? null : PointerShowCommand.json(pointer)));
      } else if (!output.quiet) {
        printTable(out, rows);
        out.println(pipeline + ": " + counts[0] + " generations" + (shown.size() < counts[0]
            ? " (newest " + shown.size() + " shown; --limit 0 shows all)" : "") + ", " + counts[1] + " divergent, "
            + counts[2] + " acknowledged");
        if (pointer == null) {
          out.println("pointer: none");
        } else {
          out.println("pointer: " + pointer.key() + " (window_start=" + pointer.windowStart() + " schema="
              + pointer.schemaVersion() + ")");
          Pointer.Rewind r = pointer.rewind();
          if (r != null) {
            out.println("rewound: from " + r.from() + " to " + r.to() + " by " + r.by() + " at " + r.at() + ": "
                + r.reason());
          }
        }
      }
      return ExitCodes.OK;
    }
  }

  /**
   * The pipeline's retirement mark, or {@code null} when it has none or the store keeps no marks: keys
   * are then judged as the scan judges them on such a store, a re-publish as one life.
   */
  static Retirement mark(ObjectStore st, String pipeline) throws IOException {
    Optional<RetirementMarks> marks = st.retirementMarks();
    return marks.isPresent() ? marks.get().readRetirement(pipeline).orElse(null) : null;
  }

  private static final String[] HEADER = {"WINDOW_START", "SCHEMA", "SIZE", "WRITER", "PUBLISHED_AT", "OUTCOME",
      "WRITES", "POINTER", "KEY"};

  private static void printTable(PrintWriter out, List<String[]> rows) {
    if (rows.isEmpty()) {
      return;
    }
    int[] widths = new int[HEADER.length];
    List<String[]> all = new ArrayList<>();
    all.add(HEADER);
    all.addAll(rows);
    for (String[] r : all) {
      for (int i = 0; i < r.length; i++) {
        widths[i] = Math.max(widths[i], r[i].length());
      }
    }
    for (String[] r : all) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < r.length; i++) {
        b.append(r[i]);
        if (i < r.length - 1) {
          b.append(" ".repeat(widths[i] - r[i].length() + 2));
        }
      }
      out.println(b);
    }
  }

  /** The scan's verdict in one word, an acknowledgement that still covers the key included. */
  static String outcome(KeyVerdict v, Acknowledgement ack) {
    if (v.divergent()) {
      return ack != null ? "ACKNOWLEDGED" : "DIVERGENT";
    }
    if (v.republished()) {
      return "REPUBLISHED";
    }
    return v.benignDuplicate() ? "IDENTICAL" : "CREATED";
  }

  /**
   * Where a key stands against the pointer: {@code latest} (the key it names), {@code rewound} (the key its
   * last rewind moved away from), {@code behind} or {@code ahead} of its position ({@code (window_start,
   * schema)}), {@code drift} (its position, another key); {@code none} without a pointer, {@code ?} when
   * the key's schema is unknown and its window is the pointer's.
   */
  static String position(String key, Integer schema, Pointer p) {
    if (p == null) {
      return "none";
    }
    if (p.key().equals(key)) {
      return "latest";
    }
    if (p.rewind() != null && p.rewind().from().equals(key)) {
      return "rewound";
    }
    long window = OutputKey.parse(key).windowStartEpochSecond();
    if (window != p.windowStart()) {
      return window < p.windowStart() ? "behind" : "ahead";
    }
    if (schema == null) {
      return "?";
    }
    int c = new Pointer.Position(window, schema).compareTo(p.position());
    return c < 0 ? "behind" : c > 0 ? "ahead" : "drift";
  }

  /** The stored version of the key's last life (the object readers get), or {@code null} when gone. */
  private static HistoryEntry lastVersion(KeyHistory h) {
    for (int i = h.entries().size() - 1; i >= 0; i--) {
      HistoryEntry e = h.entries().get(i);
      if (e.kind() == HistoryEntry.Kind.DELETE_MARKER) {
        return null;
      }
      if (e.kind() == HistoryEntry.Kind.VERSION) {
        return e;
      }
    }
    return null;
  }
}
