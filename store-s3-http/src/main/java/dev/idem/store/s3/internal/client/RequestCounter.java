package dev.idem.store.s3.internal.client;

import dev.idem.store.s3.RequestCounts;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts what a client has asked of its server so far, as {@link RequestCounts} reports it: listing
 * requests and the entries their replies held, HEADs and GETs, each counted once per call when its
 * reply has been read.
 *
 * <p>Thread-safe; every view of one client ({@link S3Client#within}) adds to the same counts.
 */
public final class RequestCounter {
  private final LongAdder listRequests = new LongAdder();
  private final LongAdder entriesListed = new LongAdder();
  private final LongAdder heads = new LongAdder();
  private final LongAdder gets = new LongAdder();

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

  /** The counts now. */
  public RequestCounts snapshot() {
    return new RequestCounts(listRequests.sum(), entriesListed.sum(), heads.sum(), gets.sum());
  }
}
