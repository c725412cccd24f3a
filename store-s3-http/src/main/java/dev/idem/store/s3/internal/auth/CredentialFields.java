package dev.idem.store.s3.internal.auth;

import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Map;

/**
 * Turns the named fields of a credential reply (STS XML, container or IMDS JSON) into
 * {@link AwsCredentials}.
 *
 * <p>Exists so the three network sources validate alike and fail alike: a missing or blank
 * field is named in the message, a value never is. Expirations are ISO 8601 instants
 * ({@code 2013-05-24T00:00:00Z}, fractions and offsets allowed).
 */
final class CredentialFields {

  private CredentialFields() {}

  /**
   * Builds credentials from {@code fields}.
   *
   * @param source prefix for error messages, such as {@code "IMDS"}
   * @param tokenField name of the session-token field
   * @param expirationRequired whether a missing expiration is an error (STS and IMDS always
   *     send one; some container endpoints do not, and then the credentials never expire)
   * @throws CredentialsException naming the first missing or malformed field
   */
  static AwsCredentials from(Map<String, String> fields, String source, String tokenField,
      boolean expirationRequired) throws CredentialsException {
    String id = require(fields, "AccessKeyId", source);
    String secret = require(fields, "SecretAccessKey", source);
    String token = blankToNull(fields.get(tokenField));
    String expiration = blankToNull(fields.get("Expiration"));
    if (expiration == null && expirationRequired) {
      throw new CredentialsException(source + ": reply has no Expiration");
    }
    return new AwsCredentials(id, secret, token,
        expiration == null ? null : parseInstant(expiration, source));
  }

  private static String require(Map<String, String> fields, String name, String source)
      throws CredentialsException {
    String value = blankToNull(fields.get(name));
    if (value == null) {
      throw new CredentialsException(source + ": reply has no " + name);
    }
    return value;
  }

  static Instant parseInstant(String value, String source) throws CredentialsException {
    try {
      return OffsetDateTime.parse(value.strip()).toInstant();
    } catch (DateTimeParseException e) {
      throw new CredentialsException(source + ": Expiration is not an ISO 8601 timestamp");
    }
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.strip();
  }
}
