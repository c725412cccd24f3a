package dev.idem.store.s3.internal.client;

import dev.idem.store.s3.RequestCounts;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts what a client has asked of its server so far, as {@link RequestCounts} reports it: by call
 * (listing requests and the entries their replies held, HEADs and GETs, once per call when its reply has
 * been read) and by price (every request sent, in the class S3 bills it at).
 *
 * <p>Thread-safe; every view of one client ({@link S3Client#within}) adds to the same counts.
 */
public final class RequestCounter {
  private final LongAdder listRequests = new LongAdder();
  private final LongAdder entriesListed = new LongAdder();
  private final LongAdder heads = new LongAdder();
  private final LongAdder gets = new LongAdder();
  private final LongAdder classA = new LongAdder();
  private final LongAdder classB = new LongAdder();
  private final LongAdder free = new LongAdder();

  RequestCounter() {}

  void listed(int entries) {
    listRequests.increment();
    entriesListed.add(entries);
  }

  void head() {
    heads.increment();
  }

  void get() {
    gets.increment();
  }

  /**
   * One request sent (each attempt of a call): DELETE is free; PUT and POST, and a GET that lists (a
   * bucket GET naming {@code list-type}, {@code versions} or {@code uploads}), are billed at the PUT/LIST
   * rate; everything else at the GET rate.
   */
  void sent(String method, String key, Map<String, String> query) {
    switch (method) {
      case "DELETE" -> free.increment();
      case "PUT", "POST" -> classA.increment();
      default -> {
        boolean listing = "GET".equals(method) && (key == null || key.isEmpty())
            && (query.containsKey("list-type") || query.containsKey("versions") || query.containsKey("uploads"));
        (listing ? classA : classB).increment();
      }
    }
  }

  /** The counts now. */
  public RequestCounts snapshot() {
    return new RequestCounts(listRequests.sum(), entriesListed.sum(), heads.sum(), gets.sum(), classA.sum(),
        classB.sum(), free.sum());
  }
}
