package dev.idem.store.s3;

/**
 * What an S3 store has asked of its server up to one moment: listing requests and the entries their
 * replies held, HEADs and GETs. Counted per call (a retried call counts once), when the reply has been
 * read, so a count is what the store received, and the scan's cost model can be checked against it and
 * shown to users ({@link S3ObjectStore#requestCounts()}).
 *
 * @param listRequests ListObjectVersions and ListObjectsV2 calls
 * @param entriesListed versions, delete markers, common prefixes and objects in their replies
 * @param heads HeadObject calls
 * @param gets GetObject calls
 */
public record RequestCounts(long listRequests, long entriesListed, long heads, long gets) {
  /**
   * What was counted between {@code earlier} and these counts.
   *
   * @param earlier counts taken before these, from the same store
   * @return the difference, field by field
   */
  public RequestCounts since(RequestCounts earlier) {
    return new RequestCounts(listRequests - earlier.listRequests, entriesListed - earlier.entriesListed,
        heads - earlier.heads, gets - earlier.gets);
  }
}
