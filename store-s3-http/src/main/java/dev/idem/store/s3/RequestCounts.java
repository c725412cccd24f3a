package dev.idem.store.s3;

/**
 * What an S3 store has asked of its server up to one moment. Two views of the same traffic:
 *
 * <ul>
 *   <li>By call, for the scan's cost model: listing requests and the entries their replies held, HEADs
 *       and GETs, each counted once per call (a retried call counts once) when its reply has been read.
 *   <li>By price, for what the traffic costs: every request sent, retries included, in the classes S3
 *       bills by. {@code classA} is what AWS prices as "PUT, COPY, POST, LIST requests" (PutObject,
 *       CopyObject, the multipart calls, ListObjectsV2, ListObjectVersions, ListMultipartUploads);
 *       {@code classB} is "GET, SELECT, and all other requests" (GetObject, HeadObject, bucket reads);
 *       {@code free} is DELETE, which AWS does not bill (DeleteObject, AbortMultipartUpload).
 * </ul>
 *
 * Read with {@link S3ObjectStore#requestCounts()}; {@link #since} gives what one operation cost.
 *
 * @param listRequests ListObjectVersions and ListObjectsV2 calls
 * @param entriesListed versions, delete markers, common prefixes and objects in their replies
 * @param heads HeadObject calls
 * @param gets GetObject calls
 * @param classA requests sent that AWS bills at the PUT/LIST rate
 * @param classB requests sent that AWS bills at the GET rate
 * @param free requests sent that AWS does not bill (DELETE)
 */
public record RequestCounts(long listRequests, long entriesListed, long heads, long gets, long classA, long classB,
    long free) {
  /** Every request sent, retries included. */
  public long sent() {
    return classA + classB + free;
  }

  /**
   * What was counted between {@code earlier} and these counts.
   *
   * @param earlier counts taken before these, from the same store
   * @return the difference, field by field
   */
  public RequestCounts since(RequestCounts earlier) {
    return new RequestCounts(listRequests - earlier.listRequests, entriesListed - earlier.entriesListed,
        heads - earlier.heads, gets - earlier.gets, classA - earlier.classA, classB - earlier.classB,
        free - earlier.free);
  }
}
