package dev.idem.store.s3.internal.auth;

import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsException;
import java.util.Objects;
import java.util.Optional;

/**
 * Credentials from {@code AWS_ACCESS_KEY_ID}, {@code AWS_SECRET_ACCESS_KEY} and, optionally,
 * {@code AWS_SESSION_TOKEN}: the first link of the chain.
 *
 * <p>Guarantees: none of the three set means "not configured"; a key id without a secret, a
 * secret without a key id, or a session token without both is a {@link CredentialsException}
 * naming the missing variable, because a half-set environment is a mistake the user should
 * hear about rather than have some other source silently win. Credentials from here carry no
 * expiration: nothing in the environment says when a session token ends, so the chain keeps
 * them for the life of the process, like the environment itself.
 */
final class EnvironmentCredentials implements CredentialSource {

  static final String ACCESS_KEY_ID = "AWS_ACCESS_KEY_ID";
  static final String SECRET_ACCESS_KEY = "AWS_SECRET_ACCESS_KEY";
  static final String SESSION_TOKEN = "AWS_SESSION_TOKEN";

  private final EnvVars env;

  EnvironmentCredentials(EnvVars env) {
    this.env = Objects.requireNonNull(env, "env");
  }

  @Override
  public String name() {
    return "environment";
  }

  @Override
  public Optional<SourcedCredentials> load() throws CredentialsException {
    String id = env.get(ACCESS_KEY_ID);
    String secret = env.get(SECRET_ACCESS_KEY);
    String token = env.get(SESSION_TOKEN);
    if (id == null && secret == null) {
      if (token != null) {
        throw new CredentialsException(name() + ": " + SESSION_TOKEN + " is set but "
            + ACCESS_KEY_ID + " and " + SECRET_ACCESS_KEY + " are not");
      }
      return Optional.empty();
    }
    if (secret == null) {
      throw new CredentialsException(
          name() + ": " + ACCESS_KEY_ID + " is set but " + SECRET_ACCESS_KEY + " is not");
    }
    if (id == null) {
      throw new CredentialsException(
          name() + ": " + SECRET_ACCESS_KEY + " is set but " + ACCESS_KEY_ID + " is not");
    }
    return Optional.of(new SourcedCredentials(
        new AwsCredentials(id, secret, token, null), name()));
  }
}
