package dev.idem.store.s3;

import java.net.URI;

/**
 * How one payload is written to S3, decided once per publish ({@link #choose}) from explicit inputs:
 * whether the key is looked up first, one PUT or a multipart upload, how the server authenticates the
 * body, where part SHA-256s come from, and whether the versions under the write are checked after it.
 * It exists so that the store ({@link S3ObjectStore#putIfAbsent}), the hash pass ({@link
 * ContentChecksums}), the upload ({@link CreateOnlyUpload}) and its parts ({@link PartUploads}) follow
 * one decision instead of each deriving its own from the size, the endpoint or the server's answers; the
 * divergence evidence of a publish is written by the same plan as its object. A plan is a value: nothing
 * changes it after it is chosen, and a probe's answers reach it only as {@link ProbeAnswers}.
 *
 * <h2>Decision table</h2>
 *
 * Inputs: the payload's size, whether it {@linkplain dev.idem.core.store.Payload#readsRanges() reads
 * ranges}, whether the endpoint is {@code https}, the server's {@link ProbeAnswers}, and the {@link
 * S3StoreOptions} thresholds, part size and parallelism.
 *
 * <table>
 *   <caption>Shape and body of the write</caption>
 *   <tr><th>size</th><th>endpoint</th><th>server verifies {@code x-amz-checksum-sha256}</th>
 *       <th>payload</th><th>shape</th><th>{@link #body}</th><th>{@link #partSha256}</th></tr>
 *   <tr><td>&le; multipart threshold</td><td>any</td><td>no</td><td>any</td><td>one PUT</td>
 *       <td>{@link Body#SIGNED_SHA256}</td><td>{@link PartSha256#NONE}</td></tr>
 *   <tr><td>&le; multipart threshold</td><td>any</td><td>yes</td><td>any</td><td>one PUT</td>
 *       <td>{@link Body#CHECKSUM_SHA256}</td><td>{@link PartSha256#NONE}</td></tr>
 *   <tr><td>&gt; multipart threshold</td><td>https</td><td>any</td><td>any</td><td>parts</td>
 *       <td>{@link Body#CRC32C_OVER_TLS}</td><td>{@link PartSha256#NONE}</td></tr>
 *   <tr><td>&gt; multipart threshold</td><td>http</td><td>any</td><td>reads ranges</td><td>parts</td>
 *       <td>{@link Body#SIGNED_SHA256}</td><td>{@link PartSha256#IN_HASH_PASS}</td></tr>
 *   <tr><td>&gt; multipart threshold</td><td>http</td><td>any</td><td>stream</td><td>parts</td>
 *       <td>{@link Body#SIGNED_SHA256}</td><td>{@link PartSha256#AS_SENT}</td></tr>
 * </table>
 *
 * <table>
 *   <caption>Before and after the write</caption>
 *   <tr><th>decision</th><th>when</th></tr>
 *   <tr><td>{@link #headFirst}: HEAD the key before any byte is sent</td>
 *       <td>size &ge; head-first threshold</td></tr>
 *   <tr><td>{@link #checksVersions}: list the versions under the write's own</td>
 *       <td>parts, or the server applies racing creates</td></tr>
 *   <tr><td>{@link #requiresVersion}: a first reply naming no version fails the publish</td>
 *       <td>the server applies racing creates</td></tr>
 * </table>
 *
 * <p>Every body, whatever its row, is also checked while it is read against the CRC32C the hash pass
 * took of the same slice ({@link #partSize}: the whole content for one PUT), so a payload that changed
 * after it was hashed is refused on a server that checks nothing.
 *
 * @param size the payload's size in bytes
 * @param headFirst HEAD the key before the upload, so an existing object costs no upload
 * @param multipart a multipart upload in parts of {@code partSize}; else one PUT
 * @param partSize the slice each CRC32C of the hash pass covers: the part size for a multipart upload,
 *     the whole content (at least 1) for one PUT
 * @param parallelism parts of one multipart upload in flight at once
 * @param body how the server is made to refuse bytes other than those hashed
 * @param partSha256 where the SHA-256 each part is signed with comes from
 * @param checksVersions after a successful write, list the versions under it and give way to an earlier
 *     one ({@link KeyLife}): a multipart completion may land on another on some servers, and on a server
 *     that applies racing creates any write may
 * @param requiresVersion a successful first reply that names no version fails the publish, since only
 *     versions show whether it landed on another publisher's object
 */
record UploadPlan(long size, boolean headFirst, boolean multipart, long partSize, int parallelism, Body body,
    PartSha256 partSha256, boolean checksVersions, boolean requiresVersion) {

  /** How the server is made to refuse a body other than the bytes hashed. */
  enum Body {
    /**
     * The body's SHA-256 signed in {@code x-amz-content-sha256}: one PUT (the whole content's SHA-256, which
     * the object is recorded under), or each part over plain http (the part's), where nothing else would
     * stop a rewrite in transit; parts carry their CRC32C in {@code x-amz-checksum-crc32c} too.
     */
    SIGNED_SHA256,
    /**
     * One PUT sent {@code UNSIGNED-PAYLOAD}, the content's SHA-256 in the signed {@code x-amz-checksum-sha256}
     * header: only on a server proven to verify that header, which then refuses other bytes as it would a
     * signed payload hash, checking them as they arrive.
     */
    CHECKSUM_SHA256,
    /**
     * Each part sent {@code UNSIGNED-PAYLOAD} with its CRC32C in the signed {@code x-amz-checksum-crc32c}
     * header: over TLS, which authenticates the body, so no SHA-256 of a part is taken.
     */
    CRC32C_OVER_TLS
  }

  /** Where the SHA-256 a part is signed with comes from. */
  enum PartSha256 {
    /** None is taken: one PUT, or parts over TLS. */
    NONE,
    /**
     * Taken in the hash pass, on a second thread from a second read of the payload's ranges, beside the
     * whole content's SHA-256 ({@link ContentChecksums#withPartSha256}): the upload hashes nothing.
     */
    IN_HASH_PASS,
    /** Taken of each part's buffer before it is sent: a stream payload, which is read once, in order. */
    AS_SENT
  }

  /**
   * The plan for a payload of {@code size} bytes.
   *
   * @param readsRanges whether the payload reads ranges ({@link dev.idem.core.store.Payload#readsRanges()})
   * @param endpoint the server's endpoint: {@code https} (any case) is TLS, anything else is not
   * @param answers what the store's trusted marker records about the server
   */
  static UploadPlan choose(long size, boolean readsRanges, URI endpoint, ProbeAnswers answers,
      S3StoreOptions options) {
    boolean tls = "https".equalsIgnoreCase(endpoint.getScheme());
    boolean multipart = size > options.multipartThreshold();
    Body body;
    PartSha256 partSha256;
    if (!multipart) {
      body = answers.verifiesChecksumSha256() ? Body.CHECKSUM_SHA256 : Body.SIGNED_SHA256;
      partSha256 = PartSha256.NONE;
    } else if (tls) {
      body = Body.CRC32C_OVER_TLS;
      partSha256 = PartSha256.NONE;
    } else {
      body = Body.SIGNED_SHA256;
      partSha256 = readsRanges ? PartSha256.IN_HASH_PASS : PartSha256.AS_SENT;
    }
    // A part is one byte array, so the part size is bounded by the largest array too.
    long partSize = multipart ? Math.min(options.partSize(), Integer.MAX_VALUE - 16) : Math.max(size, 1);
    return new UploadPlan(size, size >= options.headFirstThreshold(), multipart, partSize,
        options.uploadParallelism(), body, partSha256, multipart || answers.appliesRacingCreates(),
        answers.appliesRacingCreates());
  }

  /** How many parts, or CRC32C slices for one PUT, the content has: 1 even when it is empty. */
  int parts() {
    return size == 0 ? 1 : Math.toIntExact((size + partSize - 1) / partSize);
  }
}
