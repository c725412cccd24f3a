package dev.idem.store.s3.internal.client;

import java.util.Objects;

/**
 * The outcome of a conditional write (PutObject or CompleteMultipartUpload with {@code If-None-Match}
 * or {@code If-Match}). A failed condition is a value, not an exception: it is the normal way a race
 * is lost.
 *
 * @param status what happened
 * @param etag the new object's ETag with quotes, for {@link Status#WRITTEN}; else {@code null}
 * @param attempts how many attempts the client made; {@code > 1} means an earlier attempt may have
 *     landed without its reply arriving, so a failed condition may be this caller's own write
 * @param versionId the version the write created ({@code x-amz-version-id}), for {@link Status#WRITTEN} in a
 *     versioned bucket; {@code null} when the server named none (an unversioned bucket, where S3 sends no
 *     header and some servers send the literal {@code null})
 */
public record WriteResult(Status status, String etag, int attempts, String versionId) {
  public WriteResult {
    Objects.requireNonNull(status, "status");
  }

  /** A result that names no version. */
  public WriteResult(Status status, String etag, int attempts) {
    this(status, etag, attempts, null);
  }

  public enum Status {
    /** The object was written. */
    WRITTEN,
    /** 412: the condition did not hold (the key exists, or its ETag differs). Nothing was written. */
    PRECONDITION_FAILED,
    /** 404 to an {@code If-Match} write or to completing an upload that no longer exists. */
    NOT_FOUND
  }
}
