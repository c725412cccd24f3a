package dev.idem.store.s3.auth;

import java.io.IOException;
import java.util.Objects;

/**
 * Supplies the credentials to sign the next request with.
 *
 * <p>Exists as the seam between the S3 client and wherever credentials come from: the client
 * calls {@link #resolve()} before every request and never caches the result itself, so a
 * provider that refreshes temporary credentials is honoured. Tests pass a lambda.
 */
@FunctionalInterface
public interface CredentialsProvider {

  /**
   * Returns credentials that are valid now.
   *
   * @return the credentials, never {@code null}
   * @throws CredentialsException when no source yields credentials or a source is broken
   * @throws IOException when fetching credentials fails for another I/O reason
   */
  AwsCredentials resolve() throws IOException;

  /** A provider that always returns the same credentials. */
  static CredentialsProvider of(AwsCredentials credentials) {
    Objects.requireNonNull(credentials, "credentials");
    return () -> credentials;
  }
}
