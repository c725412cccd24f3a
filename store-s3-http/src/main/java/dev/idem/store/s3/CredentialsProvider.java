package dev.idem.store.s3;

import dev.idem.store.s3.internal.auth.CredentialChain;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Supplies the credentials to sign the next request with.
 *
 * <p>Exists as the seam between the S3 client and wherever credentials come from: the client
 * calls {@link #resolve(Duration)} before every request and never caches the result itself, so a
 * provider that refreshes temporary credentials is honoured. Tests pass a lambda.
 */
@FunctionalInterface
public interface CredentialsProvider extends AutoCloseable {

  /**
   * Returns credentials that are valid now.
   *
   * @return the credentials, never {@code null}
   * @throws CredentialsException when no source yields credentials or a source is broken
   * @throws IOException when fetching credentials fails for another I/O reason
   */
  AwsCredentials resolve() throws IOException;

  /**
   * As {@link #resolve()}, waiting at most {@code maxWait} for work another thread is doing on this
   * provider's behalf (a refresh in progress), so a caller with a deadline is not held past it (B1). A
   * provider that makes callers wait must override this; one that never does need not.
   *
   * @param maxWait {@code >= 0}
   * @throws CredentialsException also when the wait ran out, naming what it waited on
   */
  default AwsCredentials resolve(Duration maxWait) throws IOException {
    return resolve();
  }

  /**
   * Releases what this provider holds: the HTTP client {@link #standard}'s chain made for STS, the
   * container endpoint or IMDS, if it made one, so a process done with it ends at once. Credentials it
   * has cached may still be returned; a fetch that needs that client fails, saying it was released. The
   * default holds nothing.
   */
  @Override
  default void close() {}

  /** A provider that always returns the same credentials. */
  static CredentialsProvider of(AwsCredentials credentials) {
    Objects.requireNonNull(credentials, "credentials");
    return () -> credentials;
  }

  /**
   * The AWS default chain, in an AWS SDK's order: environment variables, the profile files under
   * {@code home}, web identity, the container endpoint, EC2 instance metadata (IMDSv2). The first source
   * that yields credentials wins; one that is configured but broken stops the chain with a {@link
   * CredentialsException} naming it. Nothing is read until the first request; temporary credentials are
   * cached and refreshed before they expire.
   *
   * @param env the environment variables to read (not necessarily {@code System.getenv()}: tests and
   *     embedders pass their own)
   * @param home the user's home directory, for {@code ~/.aws/credentials} and {@code ~/.aws/config}
   * @return the chain, thread-safe; {@link #close} releases the HTTP client it made
   */
  static CredentialsProvider standard(Map<String, String> env, Path home) {
    return CredentialChain.owning(env, home, CredentialChain.defaultHttp(), Clock.systemUTC());
  }
}
