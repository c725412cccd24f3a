package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.proof.ProbeResult;
import dev.idem.core.proof.ProvenStore;
import dev.idem.core.proof.StoreMarker;
import dev.idem.core.proof.StoreProver;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Long work says so on stderr after {@link CliContext#progressAfter()}, and only then: the delay is
 * the context's, so these tests (and every other in-process test, whose harness sets a day) do not
 * depend on how fast a loaded machine runs them.
 */
class ProgressCommandTest {
  @TempDir
  Path dir;

  /** A publish whose put waits until a progress line has been printed: slow work, without a sleep. */
  @Test
  void publish_slowerThanTheProgressDelay_reportsOnStderrThenSucceeds() throws Exception {
    StringWriter err = new StringWriter();
    ForwardingObjectStore slow = new ForwardingObjectStore(new InMemoryObjectStore()) {
      @Override
      public PutOutcome putIfAbsent(String key, Payload payload, String writerId) throws IOException {
        long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!progressPrinted(err)) {
          if (System.nanoTime() > until) {
            throw new IOException("no progress line within 60 s: " + err);
          }
          try {
            Thread.sleep(5);
          } catch (InterruptedException e) {
            throw new InterruptedIOException();
          }
        }
        return super.putIfAbsent(key, payload, writerId);
      }
    };
    int code = run(err, slow, Duration.ofMillis(20));

    assertEquals(0, code, err.toString());
    assertTrue(err.toString().contains("idem: publishing border-state/1725999960/state-"), err.toString());
  }

  /** A put that reads the whole payload, then waits for a progress line counting all of it: bytes, total and rate. */
  @Test
  void publish_longUpload_reportsBytesSentOfTotalAndRate() throws Exception {
    StringWriter err = new StringWriter();
    ForwardingObjectStore uploading = new ForwardingObjectStore(new InMemoryObjectStore()) {
      @Override
      public PutOutcome putIfAbsent(String key, Payload payload, String writerId) throws IOException {
        try (java.io.InputStream in = payload.openRange(0, payload.size())) {
          in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        // The line that counts every byte: one printed while the read was still going (a slow
        // machine) says less, and the publish would return before the full count is printed.
        while (!err.toString().contains(": 1.0 of 1.0 MiB sent, ")) {
          if (System.nanoTime() > until) {
            throw new IOException("no byte progress within 60 s: " + err);
          }
          try {
            Thread.sleep(5);
          } catch (InterruptedException e) {
            throw new InterruptedIOException();
          }
        }
        return super.putIfAbsent(key, payload, writerId);
      }
    };
    int code = run(err, uploading, Duration.ofMillis(20), new byte[1024 * 1024]);

    assertEquals(0, code, err.toString());
    assertTrue(err.toString().matches("(?s).*idem: publishing border-state/1725999960/state-\\S+ to \\S+: "
        + "1\\.0 of 1\\.0 MiB sent, [0-9.]+ MiB/s \\([0-9]+s\\)\\n.*"), err.toString());
  }

  /**
   * A publish whose store is still being probed (a slow server, a first write) says so, rather than
   * "0.0 of 0.0 MiB sent": the probe waits until a progress line has been printed.
   */
  @Test
  void publish_whileTheStoreIsProbed_saysSoInsteadOfBytesSent() throws Exception {
    StringWriter err = new StringWriter();
    StoreProver slowProbe = new StoreProver() {
      private final java.util.concurrent.atomic.AtomicReference<StoreMarker> marker =
          new java.util.concurrent.atomic.AtomicReference<>();

      @Override
      public List<ProbeResult> probe() throws IOException {
        awaitProgress(err, "idem: publishing ");
        return List.of(ProbeResult.held("create-only", "put twice", true, "refused the second", "publish"));
      }

      @Override
      public String kind() {
        return "mem";
      }

      @Override
      public String pointerMode() {
        return "cas";
      }

      @Override
      public String markerLocation() {
        return "mem:_idem/store";
      }

      @Override
      public Optional<StoreMarker> readMarker() {
        return Optional.ofNullable(marker.get());
      }

      @Override
      public boolean createMarker(StoreMarker m) {
        return marker.compareAndSet(null, m);
      }

      @Override
      public Map<String, String> environment() {
        return Map.of();
      }
    };
    ProvenStore store = ProvenStore.wrap(new InMemoryObjectStore(), slowProbe, "idem test", Clock.systemUTC());

    int code = run(err, store, Duration.ofMillis(20));

    assertEquals(0, code, err.toString());
    assertTrue(err.toString().matches("(?s)idem: publishing border-state/1725999960/state-\\S+ to \\S+: probing the"
        + " store's guarantees before its first write \\([0-9]+s\\)\\n.*"), err.toString());
    assertFalse(err.toString().contains(" sent"), err.toString());
  }

  @Test
  void status_smallTotals_inTheirOwnUnit() {
    assertEquals("0 of 5 bytes sent, 0 bytes/s (3s)", CountingPayload.status(0, 5, 3000));
    assertEquals("0.5 of 2.0 KiB sent, 0.5 KiB/s (1s)", CountingPayload.status(512, 2048, 1000));
  }

  @Test
  void status_bytesTotalAndAverageRate() {
    assertEquals("48.0 of 160.0 MiB sent, 9.6 MiB/s (5s)",
        CountingPayload.status(48L * 1024 * 1024, 160L * 1024 * 1024, 5000));
    assertEquals("0.0 of 1.0 MiB sent, 0.0 MiB/s (0s)", CountingPayload.status(0, 1024 * 1024, 0));
  }

  @Test
  void countingPayload_countsUploadReadsNotTheHash() throws IOException {
    CountingPayload p = new CountingPayload(Payload.ofBytes(new byte[1000]).withSchema(2));
    assertEquals(dev.idem.core.Sha256.of(new byte[1000]), p.sha256());
    assertEquals(0, p.bytesRead(), "the hash reads the payload itself");
    long[] observed = {0};
    assertEquals(dev.idem.core.Sha256.of(new byte[1000]), p.sha256((b, off, len) -> observed[0] += len));
    assertEquals(1000, observed[0], "the store's hash pass sees every byte");
    assertEquals(0, p.bytesRead(), "and is not counted as sent");
    try (java.io.InputStream in = p.open()) {
      assertEquals(0, in.read());
      assertEquals(10, in.skip(10), "skipped bytes are not sent");
      assertEquals(100, in.readNBytes(100).length);
    }
    try (java.io.InputStream in = p.openRange(900, 500)) {
      assertEquals(100, in.readAllBytes().length);
      assertEquals(-1, in.read());
    }
    assertEquals(201, p.bytesRead());
    assertEquals(1000, p.size());
    assertEquals(Integer.valueOf(2), p.schema());
    assertTrue(p.readsRanges());
    assertEquals("bytes(1000)", p.toString());
  }

  @Test
  void publish_quickerThanTheProgressDelay_printsNoProgress() throws Exception {
    StringWriter err = new StringWriter();
    int code = run(err, new InMemoryObjectStore(), Duration.ofDays(1));
    assertEquals(0, code, err.toString());
    assertFalse(progressPrinted(err), err.toString());
  }

  /**
   * The heartbeat of a long CMD: a whole line naming CMD's pid and key, in a log as on a terminal (CMD's
   * own stderr shares the terminal), and documented in the help. CMD waits until the line is printed.
   */
  @Test
  void run_cmdStillRunning_heartbeatOnStderrAsDocumented() throws Exception {
    StringWriter err = new StringWriter();
    Path go = dir.resolve("go");
    CliContext ctx = new CliContext(new ByteArrayInputStream(new byte[0]), new ByteArrayOutputStream(), Map.of(),
        Clock.systemUTC(), null).withProgressAfter(Duration.ofMillis(20));
    java.util.concurrent.CompletableFuture<Integer> code = java.util.concurrent.CompletableFuture.supplyAsync(
        () -> Main.execute(ctx, new PrintWriter(new StringWriter()), new PrintWriter(err, true), "run", "--pipeline",
            "p", "--window", "60s", "--at", "1726000030", "--schema", "3", "--store", "file:" + dir.resolve("store"),
            "--", "sh", "-c", "while [ ! -e '" + go + "' ]; do sleep 0.01; done; printf r > \"$IDEM_OUTPUT\""));
    try {
      awaitProgress(err, " still running for ");
    } finally {
      Files.createFile(go);
    }
    assertEquals(0, code.get(60, java.util.concurrent.TimeUnit.SECONDS), err.toString());
    assertTrue(err.toString().matches("(?s)idem: CMD \\(pid [0-9]+\\) still running for p/1725999960/state-[0-9a-f]{64}"
        + " \\([0-9]+s\\)\n.*"), err.toString());
    String help = new Cli().run("run", "--help").out();
    assertTrue(help.contains("idem: CMD (pid N) still running for KEY"), "the heartbeat is documented: " + help);
  }

  @Test
  void withProgressAfter_notPositive_refused() {
    CliContext ctx = new CliContext(new ByteArrayInputStream(new byte[0]), new ByteArrayOutputStream(), Map.of(),
        Clock.systemUTC(), null);
    assertEquals(CliContext.PROGRESS_AFTER, ctx.progressAfter());
    try {
      ctx.withProgressAfter(Duration.ZERO);
      throw new AssertionError("a zero delay was accepted");
    } catch (IllegalArgumentException expected) {
      assertTrue(expected.getMessage().contains("positive"), expected.getMessage());
    }
  }

  /** Waits (at most a minute) until stderr holds {@code text}. */
  private static void awaitProgress(StringWriter err, String text) throws IOException {
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!err.toString().contains(text)) {
      if (System.nanoTime() > until) {
        throw new IOException("no progress line within 60 s: " + err);
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        throw new InterruptedIOException();
      }
    }
  }

  private static boolean progressPrinted(StringWriter err) {
    return err.toString().contains("idem: publishing ");
  }

  private int run(StringWriter err, dev.idem.core.store.ObjectStore store, Duration after) throws IOException {
    return run(err, store, after, "rows\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  private int run(StringWriter err, dev.idem.core.store.ObjectStore store, Duration after, byte[] content)
      throws IOException {
    Path f = Files.write(dir.resolve("rows"), content);
    CliContext ctx = new CliContext(new ByteArrayInputStream(new byte[0]), new ByteArrayOutputStream(), Map.of(),
        Clock.systemUTC(), uri -> store).withProgressAfter(after);
    return Main.execute(ctx, new PrintWriter(new StringWriter()), new PrintWriter(err, true), "publish", "--file",
        f.toString(), "--pipeline", "border-state", "--window", "60s", "--at", "1726000030", "--schema", "3",
        "--store", "mem:", "--writer", "ci");
  }
}
