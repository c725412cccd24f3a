package dev.idem.cli;

import dev.idem.core.Idem;
import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.PublishStatus;
import dev.idem.core.scan.DivergenceScan;
import dev.idem.core.scan.KeyVerdict;
import dev.idem.core.scan.ScanSummary;
import dev.idem.core.store.ListedObject;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code idem demo}: a rolling deployment in three acts on a fresh store, told as it happens. Every
 * outcome printed is what the store really returned; the replicas of act 1 really race (two threads
 * released together), so either one skips or both publish and one gets IDENTICAL.
 *
 * <p>The demo leaves a real divergence behind, so it plays only on an empty store (a {@code --store}
 * that holds objects is refused before anything is written) and in a pipeline of its own, {@value
 * #PIPELINE}, never one a real job or the documentation's examples use: a later {@code idem scan} of
 * such a pipeline does not fail on the staged divergence.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, versionProvider = IdemCommand.Version.class,
    description = {
        "Play a rolling deployment on a fresh temporary filesystem store (or --store): an old and a new "
            + "replica overlapping on one window converge to one object; a replica whose keying misses an "
            + "input publishes different bytes (DIVERGENT); the scan shows it; then the store's final state.",
        "It plays in pipeline '" + DemoCommand.PIPELINE + "', a name of its own. A --store that already holds "
            + "objects is refused (exit 2, nothing written): the demo leaves a real divergence behind.",
        "Exits 0: the divergence is staged on purpose (a real 'idem scan' would exit 1).",
        ""
    })
final class DemoCommand implements Callable<Integer> {
  static final String PIPELINE = "idem-demo";
  /** A fixed clock for the story, so every run prints the same windows and keys. */
  static final Instant STORY_TIME = Instant.parse("2024-09-10T20:27:30Z");

  @Spec
  CommandSpec spec;

  @Option(names = "--store", paramLabel = "URI",
      description = "Play on this store instead of a fresh temporary one; it must hold no objects.")
  String storeUri;

  @Option(names = "--keep-store", description = "Keep the temporary store afterwards and print how to look at it.")
  boolean keepStore;

  @Mixin
  OutputOptions output;

  private PrintWriter out;

  @Override
  public Integer call() throws IOException, InterruptedException, ExecutionException {
    CliContext ctx = IdemCommand.context(spec);
    out = output.human() ? spec.commandLine().getOut() : new PrintWriter(PrintWriter.nullWriter());
    Path tmp = storeUri == null ? Files.createTempDirectory("idem-demo-") : null;
    String uri = storeUri != null ? storeUri : "file:" + tmp.resolve("store");
    try (ObjectStore store = ctx.openStore(uri)) {
      if (storeUri != null) {
        requireEmpty(store);
      }
      Json summary = play(store);
      if (output.json) {
        spec.commandLine().getOut().println(summary.put("store", store.describe()));
      }
      if (tmp != null && keepStore) {
        out.println("The store is kept at " + tmp.resolve("store") + "; look around:");
        out.println("  idem pointer show --store " + uri + " --pipeline " + PIPELINE);
        out.println("  idem scan --store " + uri);
      }
    } finally {
      if (tmp != null && !keepStore) {
        deleteTree(tmp);
      }
    }
    return ExitCodes.OK;
  }

  /** The demo stages a divergence: it writes only where nothing is, so it never fails a real store's gate. */
  private static void requireEmpty(ObjectStore store) throws IOException {
    List<String> found = new ArrayList<>();
    store.list("", o -> !found.add(o.key()));
    if (!found.isEmpty()) {
      throw new UsageException(store.describe() + " holds objects (" + found.get(0) + ", ...): the demo leaves a "
          + "divergence behind, so it plays only on an empty store; nothing written (omit --store for a temporary one)");
    }
  }

  private Json play(ObjectStore store) throws IOException, InterruptedException, ExecutionException {
    Window w1 = Window.closedAt(STORY_TIME, Duration.ofSeconds(60), Duration.ZERO);
    RunSpec first = RunSpec.of(PIPELINE, w1, 3);
    out.println("idem demo: a rolling deployment, played on " + store.describe());
    out.println();
    out.println("The job: pipeline '" + PIPELINE + "', 60s windows, output schema 3. Each run summarizes the last");
    out.println("closed window, so replicas that fire seconds apart compute the same key:");
    out.println("  window " + w1 + " -> " + first.outputKey());
    out.println();

    out.println("Act 1. Deploy in progress: the old replica (build 41) and the new one (build 42) fire on the");
    out.println("same window at the same moment. Both build identical bytes.");
    List<PublishReport> act1 = race(store, first, "build-41", "build-42");
    out.println("  -> " + act1.stream().filter(r -> r.status() == PublishStatus.CREATED).count()
        + " CREATED: one object at the key; the other replica " + (act1.stream().anyMatch(r -> r.status() == PublishStatus.SKIPPED)
            ? "found it published and never ran the task." : "wrote nothing new (IDENTICAL)."));
    out.println();

    Window w2 = w1.next();
    RunSpec second = RunSpec.of(PIPELINE, w2, 3);
    out.println("Act 2. Build 43 adds a column to the output but its keying misses that input: for the next");
    out.println("window it computes the same key as build 42, with different bytes. Both had finished their");
    out.println("work when they published (the slow overlap a rolling deploy causes).");
    PublishReport ok = Idem.publisher(store).writer("build-42").build().publish(second, payload(second, "build-42", false));
    line("build-42", ok);
    PublishReport bad = Idem.publisher(store).writer("build-43").build().publish(second, payload(second, "build-43", true));
    line("build-43", bad);
    out.println("  -> the first bytes stay (no clobber); build 43's attempt is recorded as evidence,");
    out.println("     and readers following the pointer still get one complete generation.");
    out.println();

    out.println("Act 3. The deploy gate: idem scan --pipeline " + PIPELINE);
    List<String> divergent = new ArrayList<>();
    ScanSummary summary = new DivergenceScan().run(store, PIPELINE + "/", (KeyVerdict v) -> {
      divergent.add(v.key());
      out.println("  " + v.referenceLine());
    });
    out.println("  " + summary.referenceLine());
    out.println("  -> a real 'idem scan' exits 1 here and blocks the rollout. The fix: declare the input");
    out.println("     (--input columns=v2) or bump --schema, so different output gets a different key.");
    out.println();

    out.println("The store now:");
    printTree(store);
    Pointer p = store.readPointer(PIPELINE).map(PointerState::pointer).orElse(null);
    if (p != null) {
      out.println("  pointer " + PIPELINE + " -> " + p.key() + " (window_start=" + p.windowStart()
          + ", schema " + p.schemaVersion() + ", by " + p.writer() + ")");
    }
    out.println();
    out.println("The demo exits 0: the divergence above was staged on purpose.");

    List<Json> outcomes = new ArrayList<>();
    for (PublishReport r : List.of(act1.get(0), act1.get(1), ok, bad)) {
      outcomes.add(Json.object().put("key", r.key().toString()).put("status", r.status().name()));
    }
    return Json.object().put("outcomes", outcomes).put("divergent_keys", divergent)
        .put("pointer_key", p == null ? null : p.key());
  }

  /** Two replicas released together by one latch; both run the full publisher (skip check included). */
  private List<PublishReport> race(ObjectStore store, RunSpec spec, String a, String b)
      throws InterruptedException, ExecutionException {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<PublishReport>> futures = new ArrayList<>();
      for (String writer : List.of(a, b)) {
        futures.add(pool.submit(() -> {
          go.await();
          return Idem.publisher(store).writer(writer).build().publish(spec, (s, k) -> payload(s, writer, false));
        }));
      }
      go.countDown();
      List<PublishReport> reports = new ArrayList<>();
      for (int i = 0; i < futures.size(); i++) {
        PublishReport r = futures.get(i).get();
        line(i == 0 ? a : b, r);
        reports.add(r);
      }
      return reports;
    } finally {
      pool.shutdownNow();
    }
  }

  private void line(String who, PublishReport r) {
    String what = switch (r.status()) {
      case CREATED -> "published the object";
      case REPUBLISHED -> "published the object again, in a window idem gc had removed";
      case SKIPPED -> "found it published, did not run the task";
      case IDENTICAL -> "same bytes already there, wrote nothing";
      case DIVERGENT -> "DIFFERENT bytes already there: kept them, recorded this attempt";
    };
    String sha = r.put() != null ? r.put().attemptSha256() : r.stored().sha256();
    out.printf("  %-9s %-9s sha256=%s  pointer=%-15s %s%n", who, r.status(), sha.substring(0, 12), Reports.pointerWord(r.pointer()), what);
    if (r.put() != null && r.put().evidenceKey() != null) {
      out.printf("  %-9s %-9s evidence kept at %s%n", "", "", r.put().evidenceKey());
    }
  }

  /** The task's output: a function of the spec (and, for the buggy build, of an undeclared input). */
  static Payload payload(RunSpec spec, String writer, boolean extraColumn) {
    StringBuilder b = new StringBuilder("window_start,window_end,crossings,wait_p50_s");
    if (extraColumn) {
      b.append(",wait_p95_s");
    }
    b.append('\n').append(spec.window().startEpochSecond()).append(',').append(spec.window().endEpochSecond())
        .append(",412,38");
    if (extraColumn) {
      b.append(",95");
    }
    b.append('\n');
    return Payload.ofBytes(b.toString().getBytes(StandardCharsets.UTF_8));
  }

  private void printTree(ObjectStore store) throws IOException {
    List<ListedObject> objects = new ArrayList<>();
    store.list("", o -> objects.add(o) || true);
    String lastDir = null;
    for (ListedObject o : objects) {
      int slash = o.key().lastIndexOf('/');
      String dir = slash < 0 ? "" : o.key().substring(0, slash + 1);
      if (!dir.equals(lastDir)) {
        out.println("  " + dir);
        lastDir = dir;
      }
      out.println("    " + o.key().substring(slash + 1) + "  (" + o.size() + " bytes)");
    }
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // A leftover temporary directory is harmless.
    }
  }
}
