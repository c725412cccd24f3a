package dev.idem.store.s3.client;

import java.io.IOException;
import java.time.Duration;

/**
 * A request made under a caller's deadline ({@link S3Client#within}) gave up because that deadline ran
 * out before the request succeeded: a retry would have started after it, or no time was left to send.
 *
 * <p>Exists so the caller learns which wait ran out (B1): the deadline, not the client's attempt count
 * or its request timeout, and what the last attempt met ({@link #lastFailure()}, e.g. 503 SlowDown, a
 * stalled reply, 409 ConditionalRequestConflict), so a store can tell a pointer that stayed busy from a
 * server that did not answer.
 *
 * <p>State: as for any failed request. A write may have landed on an attempt whose reply was lost.
 */
public final class DeadlineExceededException extends IOException {
  private static final long serialVersionUID = 1L;

  private final transient IOException lastFailure;
  private final int attempts;

  /**
   * @param request the request, as the client describes it
   * @param maxWait the deadline the caller gave
   * @param attempts attempts made (zero when no time was left to make one)
   * @param lastFailure what the last attempt met, or {@code null} when none was made
   */
  DeadlineExceededException(String request, Duration maxWait, int attempts, IOException lastFailure) {
    super(request + ": the " + format(maxWait) + " deadline ran out after " + attempts
        + (attempts == 1 ? " attempt" : " attempts")
        + (lastFailure == null ? ", no time left to send it" : "; last: " + lastFailure.getMessage()), lastFailure);
    this.lastFailure = lastFailure;
    this.attempts = attempts;
  }

  /** What the last attempt met, or {@code null} when no attempt was made. */
  public IOException lastFailure() {
    return lastFailure;
  }

  public int attempts() {
    return attempts;
  }

  /** Whole seconds as {@code 30s}, anything finer in milliseconds. */
  private static String format(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }
}
