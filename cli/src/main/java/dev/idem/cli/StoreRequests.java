package dev.idem.cli;

import dev.idem.core.proof.ProvenStore;
import dev.idem.core.store.ObjectStore;
import dev.idem.store.s3.RequestCounts;
import dev.idem.store.s3.S3ObjectStore;

/**
 * What a command asked of an S3 store, for {@code --json} and the metrics: S3 bills every request, so
 * each command that touches a store says what it sent, in the classes S3 prices them by. Counted from the
 * store's opening (its probe included) to the moment of the report. A filesystem store sends none and
 * reports nothing, and loads no S3 class: the store is told by its class name, and every S3 type is
 * used only in {@link OnS3}, which the JVM loads the first time an S3 store reports.
 */
final class StoreRequests {
  private static final String S3_STORE = "dev.idem.store.s3.S3ObjectStore";

  private StoreRequests() {}

  private static ObjectStore inner(ObjectStore st) {
    return st instanceof ProvenStore p ? p.store() : st;
  }

  private static boolean onS3(ObjectStore st) {
    return st != null && inner(st).getClass().getName().equals(S3_STORE);
  }

  /** The {@code "requests"} object of a command's {@code --json}; {@code null} for a store that sends none. */
  static Json json(ObjectStore st) {
    return onS3(st) ? OnS3.json(OnS3.counts(st)) : null;
  }

  /** The {@code idem_s3_requests} family, one sample per price class; nothing for a store that sends none. */
  static void gauges(StringBuilder b, String labels, ObjectStore st) {
    if (onS3(st)) {
      OnS3.gauges(b, labels, OnS3.counts(st));
    }
  }

  /** The S3 side: loaded only for an S3 store. */
  static final class OnS3 {
    private OnS3() {}

    /** What {@code st}, an S3 store, has sent so far; {@code null} for any other store. */
    static RequestCounts counts(ObjectStore st) {
      ObjectStore inner = inner(st);
      return inner instanceof S3ObjectStore s3 ? s3.requestCounts() : null;
    }

    static Json json(RequestCounts c) {
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

    static void gauges(StringBuilder b, String labels, RequestCounts c) {
      String name = "idem_s3_requests";
      BatchMetrics.gaugeFamily(b, name, "S3 requests this command sent, retries included, by the class S3 bills"
          + " them at: A (PUT, COPY, POST, LIST), B (GET, HEAD and the rest), free (DELETE).");
      b.append(name).append('{').append(labels).append(",class=\"A\"} ").append(c.classA()).append('\n');
      b.append(name).append('{').append(labels).append(",class=\"B\"} ").append(c.classB()).append('\n');
      b.append(name).append('{').append(labels).append(",class=\"free\"} ").append(c.free()).append('\n');
    }
  }
}
