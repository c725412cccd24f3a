package dev.idem.store.s3.internal.client;

import dev.idem.core.Sha256;
import dev.idem.store.s3.internal.auth.SigV4Signer;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;

/**
 * A request body with its length, and what is signed for it, known before the first byte is sent, as
 * SigV4 requires ({@code x-amz-content-sha256} is signed).
 *
 * <p>Exists so large payloads are streamed from their source on every attempt instead of being held in
 * memory, and so the bytes sent are checked against the bytes hashed without hashing them again:
 *
 * <ul>
 *   <li>{@link #ofStream} (a single PUT) signs the content's SHA-256, so S3 rejects a body that does not
 *       match it, and checks while sending, with the CRC32C taken in the same pass as that SHA-256, that
 *       the source still holds those bytes and that length (read in large chunks, {@link
 *       StreamPublisher}); the check runs before the last byte leaves,
 *       so a source that changed fails the request instead of completing it, on a server that checks
 *       nothing too.
 *   <li>{@link #ofStreamWithChecksum} is the same stream and the same check, sent {@code UNSIGNED-PAYLOAD}
 *       with the SHA-256 in a signed {@code x-amz-checksum-sha256} header instead: a server that verifies
 *       that header refuses other bytes just as it would refuse a body that does not match a signed
 *       payload hash, and some servers (S3Proxy) check it as the body arrives where they buffer a signed
 *       body whole before checking it. Only for servers proven to verify the header: on one that ignores
 *       it nothing but TLS would protect the body in transit.
 *   <li>{@link #ofPart} (a multipart part, already read into memory and checked by the caller) is sent
 *       {@code UNSIGNED-PAYLOAD} with its CRC32C in a signed {@code x-amz-checksum-crc32c} header, which
 *       S3 (and S3Proxy) verify against the bytes received: the transfer is checked without a SHA-256 of
 *       the part; {@link #ofSignedPart} signs its SHA-256 as the payload hash as well, for plain-http
 *       endpoints.
 * </ul>
 */
public final class RequestBody {

  /** Opens the body's source; called once per attempt. */
  @FunctionalInterface
  public interface Opener {
    InputStream open() throws IOException;
  }

  /** The header a part's CRC32C travels in ({@link #ofPart}); S3 verifies it when the upload declared CRC32C. */
  public static final String CHECKSUM_CRC32C = "x-amz-checksum-crc32c";

  /** The header a single PUT's SHA-256 travels in when the payload is not signed ({@link #ofStreamWithChecksum}). */
  public static final String CHECKSUM_SHA256 = "x-amz-checksum-sha256";

  private static final RequestBody EMPTY =
      new RequestBody(0, Sha256.EMPTY, Map.of(), BodyPublishers::noBody);

  private final long length;
  private final String payloadHash;
  private final Map<String, String> headers;
  private final java.util.function.Supplier<BodyPublisher> publisher;

  private RequestBody(long length, String payloadHash, Map<String, String> headers,
      java.util.function.Supplier<BodyPublisher> publisher) {
    this.length = length;
    this.payloadHash = payloadHash;
    this.headers = headers;
    this.publisher = publisher;
  }

  public static RequestBody empty() {
    return EMPTY;
  }

  /** A small in-memory body; the array is copied. */
  public static RequestBody ofBytes(byte[] bytes) {
    byte[] copy = bytes.clone();
    return new RequestBody(copy.length, Sha256.of(copy), Map.of(), () -> BodyPublishers.ofByteArray(copy));
  }

  /**
   * A multipart part: a slice of a buffer the caller keeps unchanged until the request returns, sent
   * {@code UNSIGNED-PAYLOAD} with {@code crc32c} (of exactly these bytes) in {@value #CHECKSUM_CRC32C}; not
   * copied, not even into the HTTP client's buffers ({@link SlicePublisher}).
   *
   * @param crc32c {@link java.util.zip.CRC32C#getValue()} of the slice, as an int
   */
  public static RequestBody ofPart(byte[] buffer, int offset, int length, int crc32c) {
    Objects.checkFromIndexSize(offset, length, buffer.length);
    return new RequestBody(length, SigV4Signer.UNSIGNED_PAYLOAD, Map.of(CHECKSUM_CRC32C, crc32cBase64(crc32c)),
        () -> BodyPublishers.fromPublisher(new SlicePublisher(buffer, offset, length), length));
  }

  /**
   * A multipart part as {@link #ofPart}, but with {@code sha256} (of exactly these bytes, lowercase hex)
   * signed in {@code x-amz-content-sha256} too, for a plain-http endpoint: there nothing authenticates the
   * body in transit, and a CRC32C is no defence against someone who rewrites it (a CRC is not a MAC),
   * where the signed hash makes the server refuse any other bytes.
   */
  public static RequestBody ofSignedPart(byte[] buffer, int offset, int length, int crc32c, String sha256) {
    Objects.checkFromIndexSize(offset, length, buffer.length);
    requireSha(sha256);
    return new RequestBody(length, sha256, Map.of(CHECKSUM_CRC32C, crc32cBase64(crc32c)),
        () -> BodyPublishers.fromPublisher(new SlicePublisher(buffer, offset, length), length));
  }

  /**
   * A body streamed from {@code opener} on each attempt, its {@code sha256} signed, checked while sent
   * against {@code length} and {@code crc32c} (the CRC32C of the bytes {@code sha256} describes).
   *
   * @param what names the source in errors (a path, {@code bytes(…)})
   */
  public static RequestBody ofStream(Opener opener, long length, String sha256, int crc32c, String what) {
    return stream(opener, length, sha256, crc32c, what, sha256, Map.of());
  }

  /**
   * The body of {@link #ofStream}, checked the same way while it is sent, but {@code UNSIGNED-PAYLOAD} with
   * {@code sha256} in {@value #CHECKSUM_SHA256} (base64 of its 32 bytes), a signed header. Use only where
   * the server is known to verify that header (the S3 store's {@code put-checksum-sha256} probe).
   */
  public static RequestBody ofStreamWithChecksum(Opener opener, long length, String sha256, int crc32c, String what) {
    requireSha(sha256);
    String base64 = Base64.getEncoder().encodeToString(java.util.HexFormat.of().parseHex(sha256));
    return stream(opener, length, sha256, crc32c, what, SigV4Signer.UNSIGNED_PAYLOAD, Map.of(CHECKSUM_SHA256, base64));
  }

  private static RequestBody stream(Opener opener, long length, String sha256, int crc32c, String what,
      String payloadHash, Map<String, String> headers) {
    Objects.requireNonNull(opener, "opener");
    Objects.requireNonNull(what, "what");
    requireSha(sha256);
    if (length < 0) {
      throw new IllegalArgumentException("length must be >= 0, was " + length);
    }
    return new RequestBody(length, payloadHash, headers, () -> BodyPublishers.fromPublisher(new StreamPublisher(() -> {
      try {
        return new VerifyingInputStream(opener.open(), length, sha256, crc32c, what);
      } catch (IOException e) {
        throw new LocalBodyException(e);
      }
    }, length), length));
  }

  /** S3's form of a CRC32C: its 4 bytes, big-endian, in base64. */
  public static String crc32cBase64(int crc32c) {
    return Base64.getEncoder().encodeToString(
        new byte[] {(byte) (crc32c >>> 24), (byte) (crc32c >>> 16), (byte) (crc32c >>> 8), (byte) crc32c});
  }

  public long length() {
    return length;
  }

  /** What {@code x-amz-content-sha256} signs: the lowercase hex SHA-256 of the content, or {@code UNSIGNED-PAYLOAD}. */
  public String payloadHash() {
    return payloadHash;
  }

  /** Headers the body travels with ({@value #CHECKSUM_CRC32C}, {@value #CHECKSUM_SHA256}); signed with the request. */
  public Map<String, String> headers() {
    return headers;
  }

  /** A fresh publisher for one attempt. */
  BodyPublisher publisher() {
    return length == 0 ? BodyPublishers.noBody() : publisher.get();
  }

  private static void requireSha(String sha256) {
    if (!Sha256.isHex(sha256)) {
      throw new IllegalArgumentException("sha256 must be 64 lowercase hex digits, was " + sha256);
    }
  }

  /**
   * Marks a failure that happened reading the local body source, not on the network: never retried,
   * its cause is rethrown as is.
   */
  static final class LocalBodyException extends IOException {
    private static final long serialVersionUID = 1L;

    LocalBodyException(IOException cause) {
      super(cause.getMessage(), cause);
    }
  }
}
