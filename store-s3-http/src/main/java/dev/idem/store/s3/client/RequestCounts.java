package dev.idem.store.s3.client;

import java.util.concurrent.atomic.LongAdder;

/**
 * What a client has asked of its server so far: listing requests and the entries their replies held,
 * HEADs and GETs. Counted per call (a retried call counts once), when the reply has been read, so a
 * count is what the caller received, and the scan's cost model ({@code HistoryWalk}) can be checked
 * against it and shown to users.
 *
 * <p>Thread-safe; every view of one client ({@link S3Client#within}) adds to the same counts.
 */
public final class RequestCounts {
  private final LongAdder listRequests = new LongAdder();
  private final LongAdder entriesListed = new LongAdder();
  private final LongAdder heads = new LongAdder();
  private final LongAdder gets = new LongAdder();

  /**
   * The counts at one moment.
   *
   * @param listRequests ListObjectVersions and ListObjectsV2 calls
   * @param entriesListed versions, delete markers, common prefixes and objects in their replies
   * @param heads HeadObject calls
   * @param gets GetObject calls
   */
  public record Snapshot(long listRequests, long entriesListed, long heads, long gets) {
    /** What was counted between {@code earlier} and this snapshot. */
    public Snapshot since(Snapshot earlier) {
      return new Snapshot(listRequests - earlier.listRequests, entriesListed - earlier.entriesListed,
          heads - earlier.heads, gets - earlier.gets);
    }
  }

  RequestCounts() {}

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
  public Snapshot snapshot() {
    return new Snapshot(listRequests.sum(), entriesListed.sum(), heads.sum(), gets.sum());
  }
}
