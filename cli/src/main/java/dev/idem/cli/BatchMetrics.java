package dev.idem.cli;

import dev.idem.core.RunSpec;
import dev.idem.core.publish.ClaimReport;
import dev.idem.core.publish.ClaimReport.ClaimStatus;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.PublishStatus;
import dev.idem.core.store.ObjectStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The outcome of one {@code idem run} or {@code idem publish}, told to Prometheus: batch jobs live too
 * short to be scraped, so the outcome is written as a text-exposition file (for node-exporter's
 * textfile collector) and/or pushed to a Pushgateway when the command ends.
 *
 * <p>Guarantees: the file is replaced atomically (a temporary file in the same directory, renamed over
 * it), so a collector never reads half a file; the push is one HTTP PUT with a total deadline (B1), and
 * PUT replaces the whole group, so no series of an earlier run survives. Neither ever changes the exit
 * code: the job's outcome is the store's, and metrics only report it. A failure to write or push leaves
 * a one-line warning on stderr, the earlier file untouched (its temporary file removed), and the
 * Pushgateway group as it was.
 *
 * <p>Cardinality: the labels are {@code command}, {@code pipeline} (a fixed set per deployment) and a
 * {@code status}/{@code outcome} out of a closed enum. The window is a value ({@code
 * idem_window_start_seconds}), never a label: as a label it would mint a new series every window.
 */
final class BatchMetrics implements AutoCloseable {
  /** Status when idem itself failed before any outcome (bad store, lost credentials, ...). */
  static final String ERROR = "ERROR";
  /** Status when CMD exited non-zero and nothing was published. */
  static final String TASK_FAILED = "TASK_FAILED";

  private final String command;
  private final RunSpec spec;
  private final Path file;
  private final URI pushUri;
  private final Duration pushTimeout;
  private final Clock clock;
  private final PrintWriter err;
  private final long startNanos = System.nanoTime();

  private String status;
  private PublishReport report;
  private Integer exitCode;
  private boolean closed;
  private boolean reported;
  private ObjectStore store;

  BatchMetrics(String command, RunSpec spec, Path file, URI pushUri, Duration pushTimeout, Clock clock, PrintWriter err) {
    this.command = command;
    this.spec = spec;
    this.file = file;
    this.pushUri = pushUri;
    this.pushTimeout = pushTimeout;
    this.clock = clock;
    this.err = err;
  }

  /** The store the command opened: what it sent by the report is in the metrics. */
  void store(ObjectStore opened) {
    this.store = opened;
  }

  /** A publish outcome and the exit code the command returns for it. */
  void published(PublishReport r, int code) {
    report = r;
    status = r.status().name();
    exitCode = code;
  }

  /** CMD failed with {@code code}; nothing was published. */
  void taskFailed(int code) {
    status = TASK_FAILED;
    exitCode = code;
  }

  /**
   * idem failed with {@code code} (the code {@link ExitCodes#codeOf} gives the failure). Commands call it
   * from a catch clause, which runs after the try's resources, this one included, are closed: an outcome
   * still unknown at {@link #close()} is reported here.
   */
  void failed(int code) {
    if (status == null) {
      status = ERROR;
      exitCode = code;
    }
    if (closed) {
      report();
    }
  }

  /** Reports a known outcome now; an unknown one waits for {@link #failed}. */
  @Override
  public void close() {
    closed = true;
    if (status != null) {
      report();
    }
  }

  /** Writes the file and pushes, each as asked, once; warnings only, never an exception. */
  private void report() {
    if (reported || (file == null && pushUri == null)) {
      return;
    }
    reported = true;
    String text = render(Duration.ofNanos(System.nanoTime() - startNanos));
    if (file != null) {
      try {
        writeAtomically(file, text);
      } catch (IOException e) {
        err.println("idem: warning: metrics not written to " + file + ": " + ExitCodes.oneLine(e)
            + " (the exit code is unchanged)");
      }
    }
    if (pushUri != null) {
      String problem = push(pushUri, text, pushTimeout);
      if (problem != null) {
        err.println("idem: warning: metrics not pushed to " + pushUri + ": " + problem + " (the exit code is unchanged)");
      }
    }
  }

  /** The exposition text: HELP and TYPE once per family, then its one sample. */
  String render(Duration elapsed) {
    String base = "command=\"" + escape(command) + "\",pipeline=\"" + escape(spec.pipeline()) + "\"";
    StringBuilder b = new StringBuilder();
    gauge(b, "idem_run_status", "1 for how the last " + command + " of this pipeline ended: SKIPPED, CREATED, "
        + "REPUBLISHED, IDENTICAL, DIVERGENT, TASK_FAILED or ERROR.", base + ",status=\"" + status + "\"", "1");
    gauge(b, "idem_run_skipped", "1 when the output was already published and the task was not run.", base,
        report != null && report.status() == PublishStatus.SKIPPED ? "1" : "0");
    gauge(b, "idem_run_republished", "1 when the window had been removed by idem gc and this run created it again.",
        base, report != null && report.status() == PublishStatus.REPUBLISHED ? "1" : "0");
    if (exitCode != null) {
      gauge(b, "idem_run_exit_code", "The exit code of idem.", base, Integer.toString(exitCode));
    }
    gauge(b, "idem_run_duration_seconds", "Wall-clock time of the command, task and publish included.", base,
        seconds(elapsed));
    if (report != null) {
      gauge(b, "idem_run_bytes", "Size of the object now at the output key.", base, Long.toString(report.stored().size()));
      ClaimReport claim = report.claim();
      if (claim != null) {
        // Counted by claim: sum them over writers and windows for how often replicas waited, took over, skipped.
        gauge(b, "idem_run_claim_status", "1 for what this run did with the key's advisory claim (HELD, TAKEN_OVER, "
            + "WAITED_SKIPPED, WAIT_EXPIRED, FAILED, UNSUPPORTED, OFF); absent when the key was published at the "
            + "first look.", base + ",status=\"" + claim.status().name() + "\"", "1");
        gauge(b, "idem_run_claim_waits", "1 when this run waited for another writer's fresh claim (then skipped, "
            + "ran beside it, or took it over once it went stale or away).", base,
            Reports.waitedForClaim(claim) ? "1" : "0");
        gauge(b, "idem_run_claim_takeovers", "1 when this run took over another writer's stale or released claim.",
            base, claim.status() == ClaimStatus.TAKEN_OVER ? "1" : "0");
        gauge(b, "idem_run_claim_skips", "1 when the claimant's object appeared while this run waited: the task "
            + "was not run.", base, claim.status() == ClaimStatus.WAITED_SKIPPED ? "1" : "0");
        gauge(b, "idem_run_claim_wait_seconds", "How long this run waited for another writer's claim.", base,
            seconds(claim.waited()));
      }
      if (report.pointer() != null) {
        gauge(b, "idem_pointer_outcome", "1 for the pointer advance outcome (ADVANCED, ALREADY_CURRENT, NEWER_PRESENT, "
            + "SAME_POSITION_OTHER_KEY, BUSY, CONFLICT, ...).", base + ",outcome=\"" + report.pointer().status().name()
            + "\"", "1");
      }
    }
    StoreRequests.gauges(b, base, store);
    gauge(b, "idem_window_start_seconds", "Start of the window this command ran for, in epoch seconds.", base,
        Long.toString(spec.window().startEpochSecond()));
    gauge(b, "idem_run_completion_timestamp_seconds", "When the command ended, in epoch seconds.", base,
        seconds(Duration.ofMillis(clock.millis())));
    return b.toString();
  }

  /** One gauge family of one sample: HELP, TYPE, the sample. */
  static void gauge(StringBuilder b, String name, String help, String labels, String value) {
    gaugeFamily(b, name, help);
    b.append(name).append('{').append(labels).append("} ").append(value).append('\n');
  }

  /** The HELP and TYPE lines of a gauge family; its samples follow. */
  static void gaugeFamily(StringBuilder b, String name, String help) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(" gauge\n");
  }

  /** Seconds with millisecond precision, as the exposition format writes a float. */
  static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.3f", d.toMillis() / 1000.0);
  }

  /** Label value escaping of the exposition format: backslash, double quote and newline. */
  static String escape(String v) {
    return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  /** Temporary file beside the target, forced to disk, then renamed over it. */
  static void writeAtomically(Path target, String text) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Path tmp = TempPaths.createFile(dir, "." + target.getFileName() + ".", ".tmp");
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
        ch.force(true);
      }
      // textfile collectors run as another user: the default temp-file mode (0600) would hide it.
      tmp.toFile().setReadable(true, false);
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * PUTs {@code text} to {@code uri}, waiting at most {@code timeout} in all (connect, reply and body).
   *
   * @return null when the Pushgateway accepted it, otherwise what went wrong, in words
   */
  static String push(URI uri, String text, Duration timeout) {
    HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build();
    HttpRequest req = HttpRequest.newBuilder(uri).timeout(timeout)
        .header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        .PUT(HttpRequest.BodyPublishers.ofString(text, StandardCharsets.UTF_8))
        .build();
    CompletableFuture<HttpResponse<String>> f = client.sendAsync(req, HttpResponse.BodyHandlers.ofString());
    try {
      HttpResponse<String> r = f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (r.statusCode() / 100 != 2) {
        String body = r.body().strip();
        int nl = body.indexOf('\n');
        return "HTTP " + r.statusCode() + (body.isEmpty() ? "" : " " + (nl < 0 ? body : body.substring(0, nl)));
      }
      return null;
    } catch (TimeoutException e) {
      f.cancel(true);
      return timedOut(timeout);
    } catch (ExecutionException e) {
      return failed(e.getCause() == null ? e : e.getCause(), timeout);
    } catch (InterruptedException e) {
      f.cancel(true);
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  /**
   * What a failed push says. The client's own request timeout and this method's wait are the same
   * length and race each other: whichever fires first, a timeout reads the same.
   */
  static String failed(Throwable cause, Duration timeout) {
    if (cause instanceof HttpConnectTimeoutException) {
      return "no connection within " + Durations.format(timeout) + " (--push-timeout)";
    }
    if (cause instanceof HttpTimeoutException) {
      return timedOut(timeout);
    }
    return ExitCodes.oneLine(cause);
  }

  private static String timedOut(Duration timeout) {
    return "no complete reply within " + Durations.format(timeout) + " (--push-timeout)";
  }
}
