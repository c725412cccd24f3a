package dev.idem.store.s3.internal.auth;

import dev.idem.core.store.DeadlineExceededException;
import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Temporary credentials of the EC2 instance role, from the instance metadata service (IMDSv2):
 * the last link of the chain.
 *
 * <p>Protocol, on every call:
 *
 * <ol>
 *   <li>{@code PUT /latest/api/token} with {@code X-aws-ec2-metadata-token-ttl-seconds: 21600}
 *       gives a session token;
 *   <li>{@code GET /latest/meta-data/iam/security-credentials/} with
 *       {@code X-aws-ec2-metadata-token} gives the role name (first line);
 *   <li>{@code GET /latest/meta-data/iam/security-credentials/<role>} gives a flat JSON object
 *       with {@code Code} ({@code Success}), {@code AccessKeyId}, {@code SecretAccessKey},
 *       {@code Token} and {@code Expiration}.
 * </ol>
 *
 * <p>The endpoint is {@code AWS_EC2_METADATA_SERVICE_ENDPOINT}, else
 * {@code http://[fd00:ec2::254]} when {@code AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE=IPv6},
 * else {@code http://169.254.169.254}. {@code AWS_EC2_METADATA_DISABLED=true} turns the source
 * off. Each request is bounded by a short timeout ({@value #TIMEOUT_SECONDS} s, or {@code
 * AWS_METADATA_SERVICE_TIMEOUT} seconds; with the 1 s connect timeout of {@link
 * CredentialChain#fromSystem()}'s client) so a machine that is not on EC2 fails fast, and cut where
 * the caller's budget ends ({@link #load(Duration)}).
 *
 * <p>Outcomes: the default endpoint unreachable, or no role attached (HTTP 404 on the role
 * list), means "not configured" and the chain reports that it found nothing; an endpoint set
 * explicitly that cannot be reached, any other HTTP status, or a malformed reply is a
 * {@link CredentialsException} starting with {@code IMDS:}. A request cut by the caller's budget is
 * neither: it throws {@link DeadlineExceededException}. IMDSv1 (token-less) fallback is
 * left out on purpose: it is the variant AWS recommends disabling.
 */
final class InstanceMetadataCredentials implements CredentialSource {

  static final String DISABLED = "AWS_EC2_METADATA_DISABLED";
  static final String ENDPOINT = "AWS_EC2_METADATA_SERVICE_ENDPOINT";
  static final String ENDPOINT_MODE = "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE";

  /** The IPv4 IMDS endpoint. */
  static final URI DEFAULT_ENDPOINT = URI.create("http://169.254.169.254");
  private static final URI IPV6_ENDPOINT = URI.create("http://[fd00:ec2::254]");

  static final int TIMEOUT_SECONDS = 2;
  private static final Duration TIMEOUT = Duration.ofSeconds(TIMEOUT_SECONDS);
  private static final String TOKEN_PATH = "/latest/api/token";
  private static final String ROLES_PATH = "/latest/meta-data/iam/security-credentials/";
  private static final Pattern ROLE_NAME = Pattern.compile("[A-Za-z0-9+=,.@_-]{1,128}");

  private final EnvVars env;
  private final HttpClient http;
  private final URI defaultEndpoint;

  InstanceMetadataCredentials(EnvVars env, HttpClient http, URI defaultEndpoint) {
    this.env = Objects.requireNonNull(env, "env");
    this.http = Objects.requireNonNull(http, "http");
    this.defaultEndpoint = Objects.requireNonNull(defaultEndpoint, "defaultEndpoint");
  }

  @Override
  public String name() {
    return "IMDS";
  }

  @Override
  public String triedLabel() {
    return env.isTrue(DISABLED) ? "IMDS (disabled by " + DISABLED + ")" : name();
  }

  @Override
  public Optional<SourcedCredentials> load() throws IOException {
    return load(null);
  }

  @Override
  public Optional<SourcedCredentials> load(Duration budget) throws IOException {
    if (env.isTrue(DISABLED)) {
      return Optional.empty();
    }
    CredentialHttp.Wait wait = CredentialHttp.metadataWait(env, TIMEOUT, name(), budget);
    boolean explicit = env.get(ENDPOINT) != null;
    String base = endpoint().toString().replaceAll("/+$", "");

    CredentialHttp.Reply token;
    try {
      token = CredentialHttp.send(http, HttpRequest.newBuilder(URI.create(base + TOKEN_PATH))
          .header("X-aws-ec2-metadata-token-ttl-seconds", "21600")
          .PUT(HttpRequest.BodyPublishers.noBody()), wait, name());
    } catch (InterruptedIOException | DeadlineExceededException e) {
      throw e;
    } catch (IOException e) {
      if (!explicit) {
        return Optional.empty();
      }
      throw new CredentialsException(name() + ": cannot reach "
          + CredentialHttp.origin(URI.create(base)) + " (set by " + ENDPOINT + "; "
          + CredentialHttp.reason(e) + ")", e);
    }
    requireOk(token, "token request");
    String sessionToken = token.body().strip();
    if (sessionToken.isEmpty() || sessionToken.chars().anyMatch(c -> c < 0x20)) {
      throw new CredentialsException(name() + ": token reply is empty or malformed");
    }

    CredentialHttp.Reply roles = get(base + ROLES_PATH, sessionToken, wait);
    if (roles.status() == 404) {
      return Optional.empty();
    }
    requireOk(roles, "role list");
    String role = roles.body().strip().lines().findFirst().orElse("").strip();
    if (role.isEmpty()) {
      return Optional.empty();
    }
    if (!ROLE_NAME.matcher(role).matches()) {
      throw new CredentialsException(name() + ": role list reply is not a role name");
    }

    CredentialHttp.Reply reply = get(base + ROLES_PATH + role, sessionToken, wait);
    requireOk(reply, "credentials for role " + role);
    Map<String, String> fields;
    try {
      fields = FlatJson.parse(reply.body());
    } catch (IllegalArgumentException e) {
      throw new CredentialsException(name() + ": credentials reply is not a flat JSON object ("
          + e.getMessage() + ")");
    }
    String code = fields.get("Code");
    if (code != null && !code.equals("Success")) {
      throw new CredentialsException(name() + ": credentials reply has Code " + code);
    }
    AwsCredentials credentials = CredentialFields.from(fields, name(), "Token", true);
    return Optional.of(new SourcedCredentials(credentials, name() + " (role " + role + ")"));
  }

  private URI endpoint() throws CredentialsException {
    String override = env.get(ENDPOINT);
    if (override != null) {
      URI uri;
      try {
        uri = new URI(override);
      } catch (URISyntaxException e) {
        throw new CredentialsException(name() + ": " + ENDPOINT + " is not a valid URL");
      }
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
        throw new CredentialsException(name() + ": " + ENDPOINT + " must be an http or https URL");
      }
      return uri;
    }
    String mode = env.get(ENDPOINT_MODE);
    return mode != null && mode.equalsIgnoreCase("IPv6") ? IPV6_ENDPOINT : defaultEndpoint;
  }

  private CredentialHttp.Reply get(String uri, String sessionToken, CredentialHttp.Wait wait) throws IOException {
    try {
      return CredentialHttp.send(http, HttpRequest.newBuilder(URI.create(uri))
          .header("X-aws-ec2-metadata-token", sessionToken)
          .GET(), wait, name());
    } catch (InterruptedIOException | DeadlineExceededException e) {
      throw e;
    } catch (IOException e) {
      throw new CredentialsException(name() + ": request to "
          + CredentialHttp.origin(URI.create(uri)) + " failed after the token was issued ("
          + CredentialHttp.reason(e) + ")", e);
    }
  }

  private void requireOk(CredentialHttp.Reply reply, String what) throws CredentialsException {
    if (reply.status() != 200) {
      throw new CredentialsException(name() + ": " + what + " answered HTTP " + reply.status());
    }
  }
}
