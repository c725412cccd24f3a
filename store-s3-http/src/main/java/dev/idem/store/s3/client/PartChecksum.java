package dev.idem.store.s3.client;

/**
 * The checksum a multipart upload declares at CreateMultipartUpload ({@code x-amz-checksum-algorithm})
 * and every part then carries in its own header, which the server verifies against the bytes it
 * receives and CompleteMultipartUpload must repeat per part. S3 allows one algorithm per upload.
 *
 * <p>Exists so the three places that must agree (the declaration, each part's header, the completion's
 * element) take their names from one value.
 */
public enum PartChecksum {
  /** CRC32C, 4 bytes: cheap, and enough against corruption, but not against someone who rewrites a part. */
  CRC32C(RequestBody.CHECKSUM_CRC32C, "ChecksumCRC32C"),
  /** SHA-256, 32 bytes: a server that verifies it refuses any other bytes, as for a signed payload hash. */
  SHA256(RequestBody.CHECKSUM_SHA256, "ChecksumSHA256");

  private final String header;
  private final String element;

  PartChecksum(String header, String element) {
    this.header = header;
    this.element = element;
  }

  /** The value of {@code x-amz-checksum-algorithm}. */
  public String algorithm() {
    return name();
  }

  /** The request header a part's checksum travels in (base64 of its bytes). */
  public String header() {
    return header;
  }

  /** The element of a part in CompleteMultipartUpload's body. */
  public String element() {
    return element;
  }
}
