package dev.idem.store.s3.client;

import dev.idem.core.Sha256;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.util.Objects;

/**
 * A request body with its length and SHA-256 known before the first byte is sent, as SigV4 requires
 * ({@code x-amz-content-sha256} is signed).
 *
 * <p>Exists so large payloads are streamed from their source on every attempt instead of being held in
 * memory: {@link #ofStream} reopens the source per attempt and checks, while sending, that the bytes
 * still hash to the declared SHA-256 and length. The check runs before the last byte leaves, so a
 * source that changed under the upload fails the request instead of completing it with other bytes
 * (S3 would reject those too, since the hash is signed).
 */
public final class RequestBody {

  /** Opens the body's source; called once per attempt. */
  @FunctionalInterface
  public interface Opener {
    InputStream open() throws IOException;
  }

  private static final RequestBody EMPTY = new RequestBody(0, Sha256.EMPTY, BodyPublishers::noBody);

  private final long length;
  private final String sha256;
  private final java.util.function.Supplier<BodyPublisher> publisher;

  private RequestBody(long length, String sha256, java.util.function.Supplier<BodyPublisher> publisher) {
    this.length = length;
    this.sha256 = sha256;
    this.publisher = publisher;
  }

  public static RequestBody empty() {
    return EMPTY;
  }

  /** A small in-memory body; the array is copied. */
  public static RequestBody ofBytes(byte[] bytes) {
    byte[] copy = bytes.clone();
    return new RequestBody(copy.length, Sha256.of(copy), () -> BodyPublishers.ofByteArray(copy));
  }

  /**
   * A slice of a buffer the caller keeps unchanged until the request returns (multipart parts); not
   * copied, not even into the HTTP client's buffers ({@link SlicePublisher}).
   */
  public static RequestBody ofSlice(byte[] buffer, int offset, int length, String sha256) {
    Objects.checkFromIndexSize(offset, length, buffer.length);
    requireSha(sha256);
    return new RequestBody(length, sha256,
        () -> BodyPublishers.fromPublisher(new SlicePublisher(buffer, offset, length), length));
  }

  /**
   * A body streamed from {@code opener} on each attempt, verified against {@code length} and {@code
   * sha256} as it is sent.
   *
   * @param what names the source in errors (a path, {@code bytes(…)})
   */
  public static RequestBody ofStream(Opener opener, long length, String sha256, String what) {
    Objects.requireNonNull(opener, "opener");
    Objects.requireNonNull(what, "what");
    requireSha(sha256);
    if (length < 0) {
      throw new IllegalArgumentException("length must be >= 0, was " + length);
    }
    return new RequestBody(length, sha256, () -> BodyPublishers.fromPublisher(
        BodyPublishers.ofInputStream(() -> {
          try {
            return new VerifyingInputStream(opener.open(), length, sha256, what);
          } catch (IOException e) {
            throw new UncheckedIOException(new LocalBodyException(e));
          }
        }), length));
  }

  public long length() {
    return length;
  }

  /** Lowercase hex SHA-256 of the content. */
  public String sha256() {
    return sha256;
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
