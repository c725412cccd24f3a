package dev.idem.cli;

import dev.idem.core.proof.ProvenStore;
import dev.idem.core.store.ObjectStore;
import dev.idem.store.s3.RequestCounts;
import dev.idem.store.s3.S3ObjectStore;

/**
 * What a command asked of an S3 store, for {@code --json} and the metrics: S3 bills every request, so
 * each command that touches a store says what it sent, in the classes S3 prices them by. Counted from the
 * store's opening (its probe included) to the moment of the report. A filesystem store sends none and
 * reports nothing.
 */
final class StoreRequests {
  private StoreRequests() {}

  /** What {@code st} has sent so far, or {@code null} for a store that sends no requests. */
  static RequestCounts of(ObjectStore st) {
    ObjectStore inner = st instanceof ProvenStore p ? p.store() : st;
    return inner instanceof S3ObjectStore s3 ? s3.requestCounts() : null;
  }

  /** The {@code "requests"} object of a command's {@code --json}; {@code null} for {@code null}. */
  static Json json(RequestCounts c) {
    if (c == null) {
      return null;
    }
    return Json.object()
        .put("sent", c.sent())
        .put("class_a", c.classA())
        .put("class_b", c.classB())
        .put("free", c.free())
        .put("list", c.listRequests())
        .put("entries_listed", c.entriesListed())
        .put("head", c.heads())
        .put("get", c.gets());
  }

  /** The {@code idem_s3_requests} family, one sample per price class; nothing for {@code null}. */
  static void gauges(StringBuilder b, String labels, RequestCounts c) {
    if (c == null) {
      return;
    }
    String name = "idem_s3_requests";
    b.append("# HELP ").append(name).append(" S3 requests this command sent, retries included, by the class S3 bills"
        + " them at: A (PUT, COPY, POST, LIST), B (GET, HEAD and the rest), free (DELETE).\n");
    b.append("# TYPE ").append(name).append(" gauge\n");
    b.append(name).append('{').append(labels).append(",class=\"A\"} ").append(c.classA()).append('\n');
    b.append(name).append('{').append(labels).append(",class=\"B\"} ").append(c.classB()).append('\n');
    b.append(name).append('{').append(labels).append(",class=\"free\"} ").append(c.free()).append('\n');
  }
}
