package dev.idem.cli;

import dev.idem.core.scan.ScanSummary;
import dev.idem.store.s3.RequestCounts;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * The outcome of one {@code idem scan}, told to Prometheus the way {@link BatchMetrics} tells a publish:
 * a deploy gate or a scheduled scan lives too short to be scraped, so its verdict, its size and what it
 * cost (the S3 requests and listed entries of the cost model) are written as a text-exposition file
 * and/or pushed to a Pushgateway when the scan ends. An alert on the completion timestamp catches a
 * scan that stopped running; one on the divergent keys or the exit code catches what it found.
 *
 * <p>Guarantees, as {@link BatchMetrics}: the file is replaced atomically, the push is one PUT with a
 * total deadline that replaces its group, and neither changes the exit code; a failure leaves a
 * one-line warning. Claims held and stale are told when the store keeps claims and they were listed.
 * Labels are {@code store} and {@code prefix}, a fixed set per deployment; counts are
 * values, never labels.
 */
final class ScanMetrics {
  private final String store;
  private final String prefix;
  private final Path file;
  private final URI pushUri;
  private final Duration pushTimeout;
  private final Clock clock;
  private final PrintWriter err;
  private final long startNanos = System.nanoTime();

  ScanMetrics(String store, String prefix, Path file, URI pushUri, Duration pushTimeout, Clock clock, PrintWriter err) {
    this.store = store;
    this.prefix = prefix;
    this.file = file;
    this.pushUri = pushUri;
    this.pushTimeout = pushTimeout;
    this.clock = clock;
    this.err = err;
  }

  /** Reports a scan that reached a verdict; {@code requests} is null for a store that does not count them. */
  void completed(ScanSummary summary, int exitCode, RequestCounts requests) {
    report(render(summary, exitCode, requests, Duration.ofNanos(System.nanoTime() - startNanos)));
  }

  /** Reports a scan that ended in an error, with the exit code it gets: no verdict, no counts. */
  void failed(int exitCode) {
    report(render(null, exitCode, null, Duration.ofNanos(System.nanoTime() - startNanos)));
  }

  private void report(String text) {
    if (file != null) {
      try {
        BatchMetrics.writeAtomically(file, text);
      } catch (IOException e) {
        err.println("idem: warning: metrics not written to " + file + ": " + ExitCodes.oneLine(e)
            + " (the exit code is unchanged)");
      }
    }
    if (pushUri != null) {
      String problem = BatchMetrics.push(pushUri, text, pushTimeout);
      if (problem != null) {
        err.println("idem: warning: metrics not pushed to " + pushUri + ": " + problem + " (the exit code is unchanged)");
      }
    }
  }

  /** The exposition text: HELP and TYPE once per family; counts only when the scan reached a verdict. */
  String render(ScanSummary s, int exitCode, RequestCounts requests, Duration elapsed) {
    String base = "store=\"" + BatchMetrics.escape(store) + "\",prefix=\"" + BatchMetrics.escape(prefix) + "\"";
    StringBuilder b = new StringBuilder();
    BatchMetrics.gauge(b, "idem_scan_exit_code", "The exit code of the scan: 0 clean, 1 divergent or cut short, 9 nothing "
        + "examined, others an error (see idem --help).", base, Integer.toString(exitCode));
    BatchMetrics.gauge(b, "idem_scan_duration_seconds", "Wall-clock time of the scan.", base, BatchMetrics.seconds(elapsed));
    BatchMetrics.gauge(b, "idem_scan_completion_timestamp_seconds", "When the scan ended, in epoch seconds.", base,
        BatchMetrics.seconds(Duration.ofMillis(clock.millis())));
    if (s != null) {
      BatchMetrics.gauge(b, "idem_scan_complete", "1 when the scan examined every key in its scope, 0 when a limit cut it short.",
          base, s.complete() ? "1" : "0");
      BatchMetrics.gauge(b, "idem_scan_keys", "Keys examined.", base, Long.toString(s.keys()));
      BatchMetrics.gauge(b, "idem_scan_entries", "Versions and publish records examined.", base, Long.toString(s.entries()));
      BatchMetrics.gauge(b, "idem_scan_divergent_keys", "Keys written with more than one content, not acknowledged.", base,
          Long.toString(s.divergentKeys()));
      BatchMetrics.gauge(b, "idem_scan_acknowledged_keys", "Divergent keys an operator acknowledged.", base,
          Long.toString(s.acknowledgedKeys()));
      BatchMetrics.gauge(b, "idem_scan_drift_positions", "Positions (window and schema) holding more than one key.", base,
          Long.toString(s.driftPositions()));
      BatchMetrics.gauge(b, "idem_scan_republished_keys", "Keys published again after gc removed them.", base,
          Long.toString(s.republishedKeys()));
      if (s.claims() != null && s.claims().notListed() == null) {
        BatchMetrics.gauge(b, "idem_scan_claims_held", "Claims held under the prefix: replicas at work on keys not yet "
            + "published (advice, never the verdict).", base, Long.toString(s.claims().held()));
        BatchMetrics.gauge(b, "idem_scan_claims_stale", "Claims under the prefix not renewed within --claim-ttl: what gc "
            + "removes.", base, Long.toString(s.claims().stale()));
      }
      BatchMetrics.gauge(b, "idem_scan_pointer_problems", "Pointers naming an object that is missing or holds other bytes.", base,
          Integer.toString(s.pointerProblems().size()));
    }
    if (requests != null) {
      BatchMetrics.gauge(b, "idem_scan_list_requests", "S3 listing requests the scan made.", base,
          Long.toString(requests.listRequests()));
      BatchMetrics.gauge(b, "idem_scan_head_requests", "S3 HEAD requests the scan made.", base, Long.toString(requests.heads()));
      BatchMetrics.gauge(b, "idem_scan_get_requests", "S3 GET requests the scan made.", base, Long.toString(requests.gets()));
      BatchMetrics.gauge(b, "idem_scan_entries_listed", "Entries the scan's S3 listings returned: versions, delete markers, "
          + "common prefixes and objects.", base, Long.toString(requests.entriesListed()));
      StoreRequests.OnS3.gauges(b, base, requests);
    }
    return b.toString();
  }
}
