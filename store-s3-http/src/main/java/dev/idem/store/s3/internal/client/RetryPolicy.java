package dev.idem.store.s3.internal.client;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How often and how patiently {@link S3Client} retries a request that failed transiently: exponential
 * backoff with full jitter (the AWS Architecture Blog's "Exponential Backoff and Jitter"), so that
 * replicas that failed together do not retry together.
 *
 * <p>Before attempt {@code n >= 2} the client sleeps a uniformly random time in {@code [0, min(maxDelay,
 * baseDelay * 2^(n-2))]}. What counts as transient is decided by {@link S3Exception#isRetryable()} and,
 * for I/O failures, by the client (connection refused or reset, timeouts).
 *
 * @param maxAttempts attempts in total, {@code >= 1} ({@code 1} disables retries)
 * @param baseDelay backoff ceiling before the second attempt, not negative
 * @param maxDelay cap on every backoff ceiling, not below {@code baseDelay}
 */
public record RetryPolicy(int maxAttempts, Duration baseDelay, Duration maxDelay) {

  /** Six attempts, 50 ms doubling up to 5 s: about 1.6 s of expected waiting in the worst case. */
  public static final RetryPolicy DEFAULT = new RetryPolicy(6, Duration.ofMillis(50), Duration.ofSeconds(5));

  /** One attempt: every failure surfaces at once. */
  public static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO, Duration.ZERO);

  public RetryPolicy {
    Objects.requireNonNull(baseDelay, "baseDelay");
    Objects.requireNonNull(maxDelay, "maxDelay");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
    }
    if (baseDelay.isNegative() || maxDelay.compareTo(baseDelay) < 0) {
      throw new IllegalArgumentException(
          "need 0 <= baseDelay <= maxDelay, was " + baseDelay + " and " + maxDelay);
    }
  }

  /** The backoff ceiling before attempt {@code attempt} ({@code >= 2}). */
  public Duration ceilingBefore(int attempt) {
    if (attempt < 2) {
      throw new IllegalArgumentException("attempt must be >= 2, was " + attempt);
    }
    int doublings = Math.min(attempt - 2, 30);
    long millis = baseDelay.toMillis();
    long ceiling = millis > (Long.MAX_VALUE >> doublings) ? Long.MAX_VALUE : millis << doublings;
    return Duration.ofMillis(Math.min(ceiling, maxDelay.toMillis()));
  }

  /** A full-jitter delay before attempt {@code attempt}: uniform in {@code [0, ceilingBefore(attempt)]}. */
  public Duration delayBefore(int attempt) {
    long ceiling = ceilingBefore(attempt).toMillis();
    return Duration.ofMillis(ThreadLocalRandom.current().nextLong(ceiling + 1));
  }
}
