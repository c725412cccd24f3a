package dev.idem.store.s3.internal.client;

import java.io.IOException;

/**
 * A server reply that is not what the S3 API promises (not XML, a required field missing, a listing
 * that claims to continue without saying where): reported as one line naming the request, never as a
 * {@code NullPointerException} further on.
 */
public final class MalformedReplyException extends IOException {
  private static final long serialVersionUID = 1L;

  /**
   * @param what the request, e.g. {@code "GET bucket?list-type=2 at http://host:port"}
   * @param reason what is wrong with the reply
   */
  public MalformedReplyException(String what, String reason) {
    super("malformed reply to " + what + ": " + reason);
  }
}
