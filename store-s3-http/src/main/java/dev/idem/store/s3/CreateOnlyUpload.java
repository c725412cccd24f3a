package dev.idem.store.s3;

import dev.idem.core.store.Payload;
import dev.idem.store.s3.client.RequestBody;
import dev.idem.store.s3.client.S3Client;
import dev.idem.store.s3.client.S3Client.Condition;
import dev.idem.store.s3.client.WriteResult;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;

/**
 * Uploads a payload to a key only if the key holds nothing: the S3 half of the no-clobber publish.
 *
 * <h2>Protocol</h2>
 *
 * <ul>
 *   <li>Up to the multipart threshold: one PutObject with {@code If-None-Match: *}, the content's
 *       SHA-256 signed in {@code x-amz-content-sha256} (S3 rejects bytes that do not match) and the
 *       body streamed from the payload on each attempt.
 *   <li>Above it: CreateMultipartUpload (carrying the metadata), then parts of exactly {@code partSize}
 *       bytes (the last one shorter), up to {@code parallelism} at once ({@link PartUploads}: a file's
 *       parts each read their own range, a stream is read in order; each part is hashed and its SHA-256
 *       signed). The bytes read are hashed in order into the whole content's SHA-256, which must equal
 *       the payload's declared one before CompleteMultipartUpload is sent with {@code If-None-Match: *}
 *       and the ETags in part order. Fixed part boundaries make the multipart ETag a function of the
 *       bytes, however many parts were in flight.
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
   * @param outcome what happened
   * @param retried whether a request was retried, so an EXISTS may be this call's own earlier write
   */
  record Result(Outcome outcome, boolean retried) {}

  private final S3Client client;
  private final String bucket;
  private final long threshold;
  private final int partSize;
  private final int parallelism;
  private final ExecutorService executor;

  /**
   * @param parallelism parts of one upload in flight at once
   * @param executor runs the parts; it must start each task without waiting for another to end (an
   *     unbounded pool: {@link PartUploads} bounds the parts itself)
   */
  CreateOnlyUpload(S3Client client, String bucket, long threshold, long partSize, int parallelism,
      ExecutorService executor) {
    this.client = client;
    this.bucket = bucket;
    this.threshold = threshold;
    this.partSize = Math.toIntExact(Math.min(partSize, Integer.MAX_VALUE - 16));
    this.parallelism = parallelism;
    this.executor = executor;
  }

  Result upload(String objectKey, Payload payload, String sha256, long size, Map<String, String> metadata)
      throws IOException {
    if (size > threshold) {
      return multipart(objectKey, payload, sha256, size, metadata);
    }
    RequestBody body = RequestBody.ofStream(payload::open, size, sha256, payload.toString());
    WriteResult w = client.put(bucket, objectKey, body, Condition.ifNoneMatch(), metadata);
    return switch (w.status()) {
      case WRITTEN -> new Result(Outcome.CREATED, w.attempts() > 1);
      case PRECONDITION_FAILED -> new Result(Outcome.EXISTS, w.attempts() > 1);
      case NOT_FOUND -> throw new IOException("PUT " + bucket + "/" + objectKey + " with If-None-Match answered 404");
    };
  }

  private Result multipart(String objectKey, Payload payload, String sha256, long size, Map<String, String> metadata)
      throws IOException {
    long parts = (size + partSize - 1) / partSize;
    if (parts > S3StoreOptions.MAX_PARTS) {
      throw new IllegalArgumentException("payload of " + size + " bytes needs " + parts + " parts of " + partSize
          + " bytes; S3 allows " + S3StoreOptions.MAX_PARTS + ": raise the part size");
    }
    String uploadId = client.createMultipartUpload(bucket, objectKey, metadata);
    boolean done = false;
    try {
      PartUploads uploads = new PartUploads(client, bucket, objectKey, uploadId, executor, parallelism, partSize, size);
      // A payload that grew, shrank or changed since its hash was taken hashes differently now.
      String actual = uploads.send(payload);
      if (!actual.equals(sha256)) {
        throw new Payload.ChangedWhileReadingException(payload.toString(), sha256, actual);
      }
      List<String> etags = uploads.etags();
      WriteResult w = client.completeMultipartUpload(bucket, objectKey, uploadId, etags, Condition.ifNoneMatch());
      switch (w.status()) {
        case WRITTEN -> {
          done = true;
          return new Result(Outcome.CREATED, w.attempts() > 1);
        }
        case NOT_FOUND -> {
          // The upload is gone: an earlier attempt of this Complete succeeded (its reply was lost), or
          // someone aborted it. The caller reads the key to tell which.
          done = true;
          return new Result(Outcome.EXISTS, true);
        }
        default -> {
          return new Result(Outcome.EXISTS, w.attempts() > 1);
        }
      }
    } finally {
      if (!done) {
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
