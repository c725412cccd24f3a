package dev.idem.store.s3.internal.auth;

import dev.idem.store.s3.AwsCredentials;
import java.util.Objects;

/**
 * Credentials together with a human-readable account of where they came from.
 *
 * <p>Exists so {@link CredentialChain#describeSource()} can say "profile default
 * (~/.aws/credentials)" without the chain knowing each source's details. The description
 * never contains a secret; {@link AwsCredentials#toString()} redacts the rest.
 *
 * @param credentials the credentials
 * @param description where they came from, such as {@code "environment"}
 */
record SourcedCredentials(AwsCredentials credentials, String description) {

  SourcedCredentials {
    Objects.requireNonNull(credentials, "credentials");
    Objects.requireNonNull(description, "description");
  }
}
