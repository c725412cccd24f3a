package dev.idem.store.s3.internal.auth;

import dev.idem.core.store.DeadlineExceededException;
import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Temporary credentials from a container credentials endpoint: the fourth link of the chain,
 * used on ECS tasks, EKS Pod Identity and local emulators.
 *
 * <p>Configured by {@code AWS_CONTAINER_CREDENTIALS_RELATIVE_URI} (resolved against
 * {@code http://169.254.170.2}; it wins when both are set) or
 * {@code AWS_CONTAINER_CREDENTIALS_FULL_URI}. The request is a GET carrying an
 * {@code Authorization} header when {@code AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE} (re-read on
 * every call, and preferred) or {@code AWS_CONTAINER_AUTHORIZATION_TOKEN} is set. The reply is
 * a flat JSON object with {@code AccessKeyId}, {@code SecretAccessKey}, {@code Token} and
 * {@code Expiration} (an endpoint that omits {@code Expiration} yields credentials that never
 * expire). The request waits at most 5 s ({@code AWS_METADATA_SERVICE_TIMEOUT} seconds when set),
 * and no longer than the caller's budget ({@link #load(Duration)}).
 *
 * <p>Safety: the authorization token and the credentials must not travel in clear text to a
 * host an attacker could stand in for, so a full URI must be {@code https}, or {@code http}
 * to a literal loopback address ({@code 127.0.0.0/8}, {@code [::1]}, or {@code localhost}), or
 * to the ECS/EKS link-local endpoints {@code 169.254.170.2}, {@code 169.254.170.23} and
 * {@code [fd00:ec2::23]}. Anything else is refused with a {@link CredentialsException} before
 * any connection is made. Host names other than {@code localhost} are not resolved to decide
 * this, so DNS cannot turn a refusal into an acceptance.
 */
final class ContainerCredentials implements CredentialSource {

  static final String RELATIVE_URI = "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI";
  static final String FULL_URI = "AWS_CONTAINER_CREDENTIALS_FULL_URI";
  static final String AUTH_TOKEN = "AWS_CONTAINER_AUTHORIZATION_TOKEN";
  static final String AUTH_TOKEN_FILE = "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE";

  /** The ECS agent's endpoint, which relative URIs are resolved against. */
  static final URI DEFAULT_BASE = URI.create("http://169.254.170.2");

  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final Pattern IPV4 = Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
  private static final Set<String> LINK_LOCAL_ENDPOINTS =
      Set.of("169.254.170.2", "169.254.170.23", "fd00:ec2:0:0:0:0:0:23");

  private final EnvVars env;
  private final Path home;
  private final HttpClient http;
  private final URI relativeBase;

  ContainerCredentials(EnvVars env, Path home, HttpClient http, URI relativeBase) {
    this.env = Objects.requireNonNull(env, "env");
    this.home = Objects.requireNonNull(home, "home");
    this.http = Objects.requireNonNull(http, "http");
    this.relativeBase = Objects.requireNonNull(relativeBase, "relativeBase");
  }

  @Override
  public String name() {
    return "container";
  }

  @Override
  public Optional<SourcedCredentials> load() throws IOException {
    return load(null);
  }

  @Override
  public Optional<SourcedCredentials> load(Duration budget) throws IOException {
    String relative = env.get(RELATIVE_URI);
    String full = env.get(FULL_URI);
    if (relative == null && full == null) {
      return Optional.empty();
    }
    URI uri = relative != null ? relativeUri(relative) : fullUri(full);
    CredentialHttp.Wait wait = CredentialHttp.metadataWait(env, TIMEOUT, name(), budget);
    HttpRequest.Builder request = HttpRequest.newBuilder(uri)
        .header("Accept", "application/json")
        .GET();
    String token = authorizationToken();
    if (token != null) {
      request.header("Authorization", token);
    }
    CredentialHttp.Reply reply;
    try {
      reply = CredentialHttp.send(http, request, wait, name());
    } catch (InterruptedIOException | DeadlineExceededException e) {
      throw e;
    } catch (IOException e) {
      throw new CredentialsException(name() + ": cannot reach " + CredentialHttp.origin(uri)
          + " (" + CredentialHttp.reason(e) + ")", e);
    }
    if (reply.status() != 200) {
      throw new CredentialsException(name() + ": " + CredentialHttp.origin(uri)
          + " answered HTTP " + reply.status());
    }
    Map<String, String> fields;
    try {
      fields = FlatJson.parse(reply.body());
    } catch (IllegalArgumentException e) {
      throw new CredentialsException(name() + ": reply is not a flat JSON object ("
          + e.getMessage() + ")");
    }
    AwsCredentials credentials = CredentialFields.from(fields, name(), "Token", false);
    return Optional.of(new SourcedCredentials(
        credentials, name() + " (" + CredentialHttp.origin(uri) + ")"));
  }

  private URI relativeUri(String relative) throws CredentialsException {
    if (!relative.startsWith("/")) {
      throw new CredentialsException(name() + ": " + RELATIVE_URI + " must start with '/'");
    }
    try {
      return new URI(relativeBase.toString().replaceAll("/+$", "") + relative);
    } catch (URISyntaxException e) {
      throw new CredentialsException(name() + ": " + RELATIVE_URI + " is not a valid URI path");
    }
  }

  /**
   * Parses and vets a full URI.
   *
   * @throws CredentialsException if it is malformed or its scheme and host are not allowed
   */
  URI fullUri(String full) throws CredentialsException {
    URI uri;
    try {
      uri = new URI(full);
    } catch (URISyntaxException e) {
      throw new CredentialsException(name() + ": " + FULL_URI + " is not a valid URL");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (uri.getHost() == null || !(scheme.equals("http") || scheme.equals("https"))) {
      throw new CredentialsException(name() + ": " + FULL_URI + " must be an http or https URL");
    }
    if (scheme.equals("http") && !isAllowedPlainHttpHost(uri.getHost())) {
      throw new CredentialsException(name() + ": " + FULL_URI + " must use https, or http to"
          + " a loopback address or 169.254.170.2/169.254.170.23; refusing "
          + CredentialHttp.origin(uri));
    }
    return uri;
  }

  /** Whether plain http to {@code host} (as {@link URI#getHost()} gives it) is allowed. */
  static boolean isAllowedPlainHttpHost(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    if (h.equals("localhost")) {
      return true;
    }
    boolean ipv6 = h.startsWith("[") && h.endsWith("]");
    if (!ipv6 && !isIpv4Literal(h)) {
      return false;
    }
    InetAddress address;
    try {
      // A literal address: getByName parses it without any DNS lookup.
      address = InetAddress.getByName(ipv6 ? h.substring(1, h.length() - 1) : h);
    } catch (UnknownHostException e) {
      return false;
    }
    return address.isLoopbackAddress()
        || LINK_LOCAL_ENDPOINTS.contains(address.getHostAddress());
  }

  /** Four dotted decimal octets, each at most 255, so that no DNS lookup can follow. */
  private static boolean isIpv4Literal(String host) {
    if (!IPV4.matcher(host).matches()) {
      return false;
    }
    for (String octet : host.split("\\.")) {
      if (Integer.parseInt(octet) > 255) {
        return false;
      }
    }
    return true;
  }

  private String authorizationToken() throws CredentialsException {
    Path file = env.path(AUTH_TOKEN_FILE, home);
    String token;
    if (file != null) {
      try {
        token = Files.readString(file, StandardCharsets.UTF_8).strip();
      } catch (IOException e) {
        throw new CredentialsException(name() + ": cannot read " + AUTH_TOKEN_FILE + " "
            + file + " (" + e.getClass().getSimpleName() + ")", e);
      }
      if (token.isEmpty()) {
        throw new CredentialsException(name() + ": " + AUTH_TOKEN_FILE + " " + file
            + " is empty");
      }
    } else {
      token = env.get(AUTH_TOKEN);
    }
    if (token != null && token.chars().anyMatch(c -> c == '\r' || c == '\n' || c == 0)) {
      throw new CredentialsException(
          name() + ": the authorization token contains a line break");
    }
    return token;
  }
}
