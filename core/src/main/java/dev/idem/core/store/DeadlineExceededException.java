package dev.idem.core.store;

import java.io.IOException;

/**
 * Store work gave up because a caller's deadline ran out before it succeeded: a {@link Deadline}, or
 * the time a single call was given (a pointer swap's share of its deadline). A retry would have started
 * after it, the request in flight was cut at it, or no time was left to make a request.
 *
 * <p>Exists so the caller learns which wait ran out (B1, B2): the message names the deadline and the
 * work, and {@link #lastFailure()} is what the last attempt met (a 503, a read timeout, a 409
 * ConditionalRequestConflict), so a store can tell a pointer that stayed busy from a server that did not
 * answer, and a scan can tell a deadline from a store failure.
 *
 * <p>State: as for any failed request. A write may have landed on an attempt whose reply was lost.
 */
public final class DeadlineExceededException extends IOException {
  private static final long serialVersionUID = 1L;

  private final transient IOException lastFailure;
  private final int attempts;
  private final transient Deadline deadline;

  /**
   * @param message what ran out and what was waiting for it, one line
   * @param attempts attempts made (zero when no time was left to make one)
   * @param lastFailure what the last attempt met, or {@code null} when none was made
   * @param deadline the {@link Deadline} that ran out, or {@code null} when it was a single call's time
   */
  public DeadlineExceededException(String message, int attempts, IOException lastFailure, Deadline deadline) {
    super(message, lastFailure);
    this.attempts = attempts;
    this.lastFailure = lastFailure;
    this.deadline = deadline;
  }

  /** The {@link Deadline} that ran out, or {@code null} when it was the time a single call was given. */
  public Deadline deadline() {
    return deadline;
  }

  /** What the last attempt met, or {@code null} when no attempt was made. */
  public IOException lastFailure() {
    return lastFailure;
  }

  public int attempts() {
    return attempts;
  }
}
