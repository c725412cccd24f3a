package dev.idem.store.s3;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One set of AWS credentials, as found by a {@link CredentialsProvider}.
 *
 * <p>Exists so that the secret parts travel together and never leak: {@link #toString()}
 * prints the access key id (an identifier, not a secret) and the expiration, but never the
 * secret access key or the session token. The record is immutable.
 *
 * @param accessKeyId the access key id, non-blank
 * @param secretAccessKey the secret access key, non-blank
 * @param sessionToken the session token of temporary credentials, or {@code null}
 * @param expiration when temporary credentials stop working, or {@code null} for never
 */
public record AwsCredentials(
    String accessKeyId, String secretAccessKey, String sessionToken, Instant expiration) {

  /**
   * Validates without ever quoting a value, so a bad secret cannot end up in a stack trace.
   *
   * @throws IllegalArgumentException if a required part is blank or the token is empty
   */
  public AwsCredentials {
    Objects.requireNonNull(accessKeyId, "accessKeyId");
    Objects.requireNonNull(secretAccessKey, "secretAccessKey");
    if (accessKeyId.isBlank()) {
      throw new IllegalArgumentException("access key id must not be blank");
    }
    if (secretAccessKey.isBlank()) {
      throw new IllegalArgumentException("secret access key must not be blank");
    }
    if (sessionToken != null && sessionToken.isBlank()) {
      throw new IllegalArgumentException("session token must be null or non-blank");
    }
  }

  /** Long-lived credentials without a session token or an expiration. */
  public static AwsCredentials of(String accessKeyId, String secretAccessKey) {
    return new AwsCredentials(accessKeyId, secretAccessKey, null, null);
  }

  /**
   * Whether these credentials expire within {@code d} from now; never true for credentials
   * without an expiration.
   *
   * @param d how far ahead to look, not negative
   * @param clock the clock giving "now"
   * @return {@code true} when {@code expiration <= now + d}
   */
  public boolean expiresWithin(Duration d, Clock clock) {
    Objects.requireNonNull(d, "d");
    Objects.requireNonNull(clock, "clock");
    if (d.isNegative()) {
      throw new IllegalArgumentException("duration must not be negative, was " + d);
    }
    return expiration != null && !clock.instant().plus(d).isBefore(expiration);
  }

  /** Whether these credentials are temporary, that is, carry an expiration. */
  public boolean isTemporary() {
    return expiration != null;
  }

  /** Prints the access key id and expiration only; secret and token are redacted. */
  @Override
  public String toString() {
    return "AwsCredentials[accessKeyId=" + accessKeyId
        + ", secretAccessKey=<redacted>"
        + ", sessionToken=" + (sessionToken == null ? "none" : "<redacted>")
        + ", expiration=" + (expiration == null ? "never" : expiration.toString())
        + "]";
  }
}
