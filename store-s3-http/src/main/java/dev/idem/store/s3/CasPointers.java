package dev.idem.store.s3;

import dev.idem.core.store.CasResult;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.store.s3.internal.client.MalformedReplyException;
import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.internal.client.S3Client.Condition;
import dev.idem.store.s3.internal.client.S3Client.ObjectBytes;
import dev.idem.store.s3.internal.client.WriteResult;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;

/**
 * The pointer as one object, {@code _idem/pointers/PIPELINE/latest}, swapped with S3 conditional writes
 * ({@link PointerMode#CAS}).
 *
 * <h2>Protocol</h2>
 *
 * <ul>
 *   <li>Read: GET; the token is the ETag exactly as the server sent it.
 *   <li>Create (expected token {@code null}): PUT with {@code If-None-Match: *}.
 *   <li>Replace: PUT with {@code If-Match: TOKEN}. S3 applies the write only if the object still has
 *       that ETag, atomically against concurrent writers.
 * </ul>
 *
 * 412 (or 404 to an {@code If-Match}: the pointer vanished) is CONFLICT. A 409
 * ConditionalRequestConflict that outlives the client's retries, or the caller's deadline, is BUSY. Under
 * a deadline ({@link S3Client#within}) the PUT, its retries and the re-read below all end by it; a
 * deadline that runs out on anything else (503s, a stalled server) throws {@link
 * dev.idem.core.store.DeadlineExceededException} naming the request and what it last met. A write retried after a lost
 * reply may meet its own success as a 412; the pointer is then re-read and, when it holds exactly the
 * bytes this call wrote, the result is SWAPPED.
 *
 * <h2>Failure states</h2>
 *
 * A PutObject is atomic, so the pointer always holds a whole document, old or new (P1). This mode is
 * only as safe as the server's {@code If-Match}: where it is not atomic (S3Proxy, some MinIO and Ceph
 * releases) two writers can both win; use {@link LogPointers} there.
 */
final class CasPointers implements PointerProtocol {
  private final S3Client client;
  private final String bucket;
  private final KeyLayout layout;

  CasPointers(S3Client client, String bucket, KeyLayout layout) {
    this.client = client;
    this.bucket = bucket;
    this.layout = layout;
  }

  @Override
  public Optional<PointerState> read(String pipeline) throws IOException {
    String key = layout.latest(pipeline);
    Optional<ObjectBytes> got = client.getBytes(bucket, key, MAX_DOCUMENT);
    if (got.isEmpty()) {
      return Optional.empty();
    }
    String etag = got.get().head().etag();
    if (etag == null) {
      throw new MalformedReplyException("GET " + bucket + "/" + key, "no ETag, so the pointer cannot be swapped");
    }
    return Optional.of(new PointerState(parse(got.get(), key, pipeline), etag));
  }

  /**
   * The {@code latest} object's document in one GET, without the token a swap needs: in this mode the
   * pointer, in {@link PointerMode#LOG} the copy kept for plain readers ({@link S3ObjectStore#peekPointer}).
   */
  Optional<Pointer> peek(String pipeline) throws IOException {
    String key = layout.latest(pipeline);
    Optional<ObjectBytes> got = client.getBytes(bucket, key, MAX_DOCUMENT);
    return got.isEmpty() ? Optional.empty() : Optional.of(parse(got.get(), key, pipeline));
  }

  private Pointer parse(ObjectBytes got, String key, String pipeline) throws IOException {
    return Pointer.parse(got.bytes(), "s3://" + bucket + "/" + key, pipeline);
  }

  @Override
  public CasResult compareAndSet(S3Client via, String pipeline, String expectedToken, Pointer next) throws IOException {
    String key = layout.latest(pipeline);
    byte[] doc = next.toBytes();
    Condition condition = expectedToken == null ? Condition.ifNoneMatch() : Condition.ifMatch(expectedToken);
    WriteResult w;
    try {
      w = via.put(bucket, key, RequestBody.ofBytes(doc), condition, Map.of());
    } catch (IOException e) {
      if (PointerProtocol.conditionalConflict(e)) {
        return CasResult.BUSY;
      }
      throw e;
    }
    if (w.status() == WriteResult.Status.WRITTEN) {
      return CasResult.SWAPPED;
    }
    if (w.attempts() > 1) {
      Optional<ObjectBytes> now = via.getBytes(bucket, key, MAX_DOCUMENT);
      if (now.isPresent() && Arrays.equals(now.get().bytes(), doc)) {
        return CasResult.SWAPPED;
      }
    }
    return CasResult.CONFLICT;
  }
}
