package example;

import dev.idem.core.Idem;
import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.proof.ProvenStore;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.PublishStatus;
import dev.idem.core.publish.Publisher;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PointerState;
import dev.idem.store.fs.FsObjectStore;
import dev.idem.store.fs.FsStoreProver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scheduled job inside a JVM service, as during a rolling deployment: the old build and the new one
 * both run the export of the last closed minute, at the same moment, against one store. idem derives
 * the output key from the window and the declared inputs, so both target one object: the first to
 * publish creates it, the other finds it and skips its task (or, had it already run, publishes the
 * same bytes as IDENTICAL), and the pipeline's {@code latest} pointer names the one object.
 *
 * <p>Run: {@code mvn -B exec:java} (the store goes to {@code target/idem-store}), or give the store's
 * directory as the only argument. Exits 1 when the two replicas did not end with one CREATED.
 */
public final class ScheduledExport {
  private ScheduledExport() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args.length > 0 ? args[0] : "target/idem-store");
    Files.createDirectories(dir);
    // The last closed minute: both replicas compute the same window, whatever second they fire at.
    Window window = Window.closedAt(Instant.now(), Duration.ofMinutes(1), Duration.ZERO);
    RunSpec spec = RunSpec.of("border-state", window, 3).withInput("snapshot", "2026-12-06");
    AtomicInteger tasksRun = new AtomicInteger();

    try (FsObjectStore fs = FsObjectStore.open(dir);
        // ProvenStore probes the directory for the guarantees idem needs before the first write.
        ObjectStore store = ProvenStore.wrap(fs, FsStoreProver.of(fs), "embedding-example 1.0", Clock.systemUTC())) {
      ExecutorService replicas = Executors.newFixedThreadPool(2);
      List<Future<PublishReport>> runs = new ArrayList<>();
      for (String build : List.of("old-build", "new-build")) {
        Publisher publisher = Idem.publisher(store).writer(build).build();
        runs.add(replicas.submit(() -> publisher.publish(spec, (s, key) -> {
          tasksRun.incrementAndGet();
          return Payload.ofBytes(export(s));
        })));
      }
      List<PublishReport> reports = new ArrayList<>();
      for (Future<PublishReport> run : runs) {
        reports.add(run.get());
      }
      replicas.shutdown();

      for (PublishReport r : reports) {
        System.out.println(r.status() + " " + r.key() + " written by " + r.stored().writer()
            + (r.pointer() == null ? "" : ", pointer " + r.pointer().status()));
      }
      Optional<PointerState> latest = store.readPointer("border-state");
      System.out.println("latest: " + latest.map(p -> p.pointer().key()).orElse("none") + "; the task ran "
          + tasksRun.get() + " time(s)");

      long created = reports.stream().filter(r -> r.status() == PublishStatus.CREATED
          || r.status() == PublishStatus.REPUBLISHED).count();
      boolean oneObject = reports.stream().allMatch(r -> r.key().equals(spec.outputKey()))
          && latest.isPresent() && latest.get().pointer().key().equals(spec.outputKey().toString());
      // Run again within the same minute, the window's object is already there: both replicas skip.
      if (created > 1 || !oneObject || reports.stream().anyMatch(PublishReport::divergent)) {
        System.err.println("expected one object for the window, created once: " + reports);
        System.exit(1);
      }
    }
  }

  /** The job's output: a pure function of the window and the inputs, as a job's must be. */
  private static byte[] export(RunSpec spec) {
    return ("window_start,rows\n" + spec.window().startEpochSecond() + ",42\n").getBytes(StandardCharsets.UTF_8);
  }
}
