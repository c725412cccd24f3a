package dev.idem.store.s3;

import dev.idem.core.store.Payload;
import dev.idem.core.store.WriteProgress;
import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.internal.client.S3Client.Condition;
import dev.idem.store.s3.internal.client.WriteResult;
import java.io.FilterInputStream;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;

/**
 * Uploads a payload to a key only if the key holds nothing: the S3 half of the no-clobber publish.
 *
 * <h2>Protocol</h2>
 *
 * The upload follows the {@link UploadPlan} its payload was hashed for ({@link ContentChecksums.Digest#plan}),
 * and decides nothing of its own about the shape or the body:
 *
 * <ul>
 *   <li>First, before this class is called, one pass over the payload ({@link ContentChecksums}): its
 *       SHA-256, the hash the object is recorded under, and in the same read a CRC32C of each part the
 *       upload will send (the whole content for a single PUT). It is the only SHA-256 of the whole
 *       payload idem computes.
 *   <li>One PUT: PutObject with {@code If-None-Match: *}, that SHA-256 signed in {@code
 *       x-amz-content-sha256} ({@link RequestBody#ofStream}), or, where the plan says the server verifies
 *       it, in the signed {@code x-amz-checksum-sha256} header with the payload {@code UNSIGNED-PAYLOAD}
 *       ({@link RequestBody#ofStreamWithChecksum}): either way the server refuses other bytes. The body is
 *       streamed from the payload on each attempt, its length and CRC32C checked before the last byte
 *       leaves, so a changed payload is refused on a server that checks nothing too.
 *   <li>Parts: CreateMultipartUpload (carrying the metadata, declaring CRC32C part checksums), then parts
 *       of exactly the plan's part size (the last one shorter), sent by {@link PartUploads} as the plan
 *       says. The parts' checks cover every byte and the payload must end where it did, so no
 *       whole-content hash is taken again before CompleteMultipartUpload is sent with {@code
 *       If-None-Match: *}, the ETags and CRC32Cs in part order. Fixed part boundaries make the multipart
 *       ETag a function of the bytes, however many parts were in flight; nothing in idem compares ETags
 *       of content (IDENTICAL compares the recorded {@code idem-sha256}).
 * </ul>
 *
 * <h2>Failure states</h2>
 *
 * S3 makes an object visible only when PutObject or CompleteMultipartUpload succeeds, so every failure
 * leaves the key either untouched or holding the complete object (P1). A failed multipart upload is
 * aborted on every path (an I/O error in any part, a changed payload, a lost race, an interrupt), after the
 * parts in flight have ended; if the abort
 * itself fails (the server is gone) the incomplete upload is invisible to readers and {@code sweep}
 * removes it later. A payload that changes while it is read fails the upload with {@link
 * Payload.ChangedWhileReadingException} and nothing is published.
 *
 * <p>A completion refused with 412 leaves its upload open in the {@link Sent} it returns ({@link #send}),
 * to be aborted once the caller has read the object it lost to: a server that deletes the object at the
 * key when an upload of that key is aborted (Adobe S3Mock) would otherwise take it away before it is
 * read. {@link #upload} aborts it at once, for callers that read nothing after a refusal.
 */
final class CreateOnlyUpload {

  /** What the upload found. */
  enum Outcome {
    /** This call created the object. */
    CREATED,
    /** The key already held an object (possibly this call's own, written by an attempt whose reply was lost). */
    EXISTS
  }

  /**
   * One create-only write as sent: its outcome, the version it created, and a refused multipart upload
   * still open. Closing it aborts that upload unless {@link #abort} or {@link #keep} already settled it.
   */
  final class Sent implements AutoCloseable {
    private final Outcome outcome;
    private final String versionId;
    private final boolean retried;
    private final String objectKey;
    private String openUploadId;

    private Sent(Outcome outcome, String versionId, String objectKey, String openUploadId) {
      this(outcome, versionId, false, objectKey, openUploadId);
    }

    private Sent(Outcome outcome, String versionId, boolean retried, String objectKey, String openUploadId) {
      this.outcome = outcome;
      this.versionId = versionId;
      this.retried = retried;
      this.objectKey = objectKey;
      this.openUploadId = openUploadId;
    }

    /**
     * Whether the write was sent more than once: its reply may then name no version even in a versioned
     * bucket (S3Proxy answers a completion repeated after its first reply was lost so).
     */
    boolean retried() {
      return retried;
    }

    Outcome outcome() {
      return outcome;
    }

    /** The version the write created, when the server named one (a versioned bucket); else {@code null}. */
    String versionId() {
      return versionId;
    }

    /**
     * Aborts the refused upload still open, if there is one; a failed abort is logged (sweep removes the
     * upload later).
     *
     * @return whether an abort was sent
     */
    boolean abort() {
      String id = openUploadId;
      openUploadId = null;
      if (id == null) {
        return false;
      }
      abortQuietly(objectKey, id);
      return true;
    }

    /**
     * Leaves the refused upload alone: the object at the key is this call's own (an earlier attempt of
     * the completion landed), and on a server that deletes the key's object on abort, aborting would
     * take it away.
     */
    void keep() {
      openUploadId = null;
    }

    @Override
    public void close() {
      abort();
    }
  }

  private final S3Client client;
  private final String bucket;
  private final ExecutorService executor;

  /**
   * @param executor runs the parts and the second read of the hash pass; it must start each task without
   *     waiting for another to end (an unbounded pool: {@link PartUploads} bounds the parts itself)
   */
  CreateOnlyUpload(S3Client client, String bucket, ExecutorService executor) {
    this.client = client;
    this.bucket = bucket;
    this.executor = executor;
  }

  /**
   * Uploads create-only and settles the upload at once: a refused multipart upload is aborted before
   * this returns.
   *
   * @param digest {@code payload}'s hash pass ({@link ContentChecksums#of}), whose plan the upload follows
   */
  Outcome upload(String objectKey, Payload payload, ContentChecksums.Digest digest, Map<String, String> metadata)
      throws IOException {
    try (Sent sent = send(objectKey, payload, digest, metadata)) {
      return sent.outcome();
    }
  }

  /**
   * Uploads create-only; a multipart upload whose completion was refused with 412 stays open in the
   * result until it is closed, aborted or kept. Every other failure aborts the upload before this throws.
   *
   * @param digest {@code payload}'s hash pass ({@link ContentChecksums#of}), whose plan the upload follows
   */
  Sent send(String objectKey, Payload payload, ContentChecksums.Digest digest, Map<String, String> metadata)
      throws IOException {
    UploadPlan plan = digest.plan();
    WriteProgress progress = payload.progress();
    progress.phase(WriteProgress.Phase.UPLOADING);
    if (plan.multipart()) {
      return multipart(objectKey, payload, digest, metadata);
    }
    // The request reads the body as it writes it to the connection: what it read, it sent.
    RequestBody.Opener sending = () -> new FilterInputStream(payload.open()) {
      @Override
      public int read() throws IOException {
        int b = in.read();
        if (b >= 0) {
          progress.sent(1);
        }
        return b;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n = in.read(b, off, len);
        if (n > 0) {
          progress.sent(n);
        }
        return n;
      }
    };
    RequestBody body = plan.body() == UploadPlan.Body.CHECKSUM_SHA256
        ? RequestBody.ofStreamWithChecksum(sending, plan.size(), digest.sha256(), digest.crc32c(1), payload.toString())
        : RequestBody.ofStream(sending, plan.size(), digest.sha256(), digest.crc32c(1), payload.toString());
    WriteResult w = client.put(bucket, objectKey, body, Condition.ifNoneMatch(), metadata);
    return switch (w.status()) {
      case WRITTEN -> new Sent(Outcome.CREATED, w.versionId(), w.attempts() > 1, objectKey, null);
      case PRECONDITION_FAILED -> new Sent(Outcome.EXISTS, null, objectKey, null);
      case NOT_FOUND -> throw new IOException("PUT " + bucket + "/" + objectKey + " with If-None-Match answered 404");
    };
  }

  private Sent multipart(String objectKey, Payload payload, ContentChecksums.Digest digest,
      Map<String, String> metadata) throws IOException {
    UploadPlan plan = digest.plan();
    if (plan.parts() > S3StoreOptions.MAX_PARTS) {
      throw new IllegalArgumentException("payload of " + plan.size() + " bytes needs " + plan.parts() + " parts of "
          + plan.partSize() + " bytes; S3 allows " + S3StoreOptions.MAX_PARTS + ": raise the part size");
    }
    String uploadId = client.createMultipartUpload(bucket, objectKey, metadata);
    boolean settled = false;
    try {
      PartUploads uploads = new PartUploads(client, bucket, objectKey, uploadId, executor, digest);
      // A payload that grew, shrank or changed since its hash was taken fails a part's check here.
      uploads.send(payload);
      List<String> etags = uploads.etags();
      WriteResult w = client.completeMultipartUpload(bucket, objectKey, uploadId, etags, uploads.checksums(),
          Condition.ifNoneMatch());
      settled = true;
      return switch (w.status()) {
        case WRITTEN -> new Sent(Outcome.CREATED, w.versionId(), w.attempts() > 1, objectKey, null);
        // The upload is gone: an earlier attempt of this Complete succeeded (its reply was lost), or
        // someone aborted it. The caller reads the key to tell which.
        case NOT_FOUND -> new Sent(Outcome.EXISTS, null, w.attempts() > 1, objectKey, null);
        // Refused: the upload stays open until the caller has read what it lost to.
        case PRECONDITION_FAILED -> new Sent(Outcome.EXISTS, null, objectKey, uploadId);
      };
    } finally {
      if (!settled) {
        abortQuietly(objectKey, uploadId);
      }
    }
  }

  private void abortQuietly(String objectKey, String uploadId) {
    // An interrupted publish must still abort: clear the flag for the abort, then restore it.
    boolean interrupted = Thread.interrupted();
    try {
      client.abortMultipartUpload(bucket, objectKey, uploadId);
    } catch (IOException | RuntimeException e) {
      // The upload stays incomplete and invisible; sweep removes it. The original failure matters more.
      System.getLogger(CreateOnlyUpload.class.getName()).log(System.Logger.Level.WARNING,
          "could not abort multipart upload of " + bucket + "/" + objectKey + " (sweep will): " + e.getMessage());
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
