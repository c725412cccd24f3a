package dev.idem.store.s3.internal.auth;

import dev.idem.core.store.DeadlineExceededException;
import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Temporary credentials from STS {@code AssumeRoleWithWebIdentity}: the third link of the
 * chain, used on Kubernetes with IAM roles for service accounts and in CI systems with OIDC.
 *
 * <p>Configured by {@code AWS_WEB_IDENTITY_TOKEN_FILE} and {@code AWS_ROLE_ARN} (both, or it
 * is an error), with {@code AWS_ROLE_SESSION_NAME} (default {@code idem-<epoch millis>}).
 * Protocol, on every call:
 *
 * <ol>
 *   <li>read the token file afresh (the platform rotates it);
 *   <li>POST {@code Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=..&
 *       RoleSessionName=..&WebIdentityToken=..} as a form, unsigned (the token is the
 *       authentication), to {@code AWS_ENDPOINT_URL_STS}, else
 *       {@code https://sts.<region>.amazonaws.com} when {@code AWS_REGION} or
 *       {@code AWS_DEFAULT_REGION} is set, else {@code https://sts.amazonaws.com};
 *   <li>read {@code AccessKeyId}, {@code SecretAccessKey}, {@code SessionToken} and
 *       {@code Expiration} from the {@code Credentials} element of the XML reply.
 * </ol>
 *
 * <p>Every failure (unreadable token file, unreachable STS, an STS error reply, a malformed
 * reply) is a one-line {@link CredentialsException} starting with {@code web identity:}; an
 * STS error quotes STS's code and message with any copy of the token cut out. The global
 * {@code AWS_ENDPOINT_URL} is deliberately not used: in idem it points at the S3-compatible
 * server, which need not speak STS.
 */
final class WebIdentityCredentials implements CredentialSource {

  static final String TOKEN_FILE = "AWS_WEB_IDENTITY_TOKEN_FILE";
  static final String ROLE_ARN = "AWS_ROLE_ARN";
  static final String SESSION_NAME = "AWS_ROLE_SESSION_NAME";
  static final String STS_ENDPOINT = "AWS_ENDPOINT_URL_STS";

  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final Pattern REGION = Pattern.compile("[a-z0-9-]+");
  private static final int MAX_STS_MESSAGE = 200;

  private final EnvVars env;
  private final Path home;
  private final HttpClient http;
  private final Clock clock;

  WebIdentityCredentials(EnvVars env, Path home, HttpClient http, Clock clock) {
    this.env = Objects.requireNonNull(env, "env");
    this.home = Objects.requireNonNull(home, "home");
    this.http = Objects.requireNonNull(http, "http");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public String name() {
    return "web identity";
  }

  @Override
  public Optional<SourcedCredentials> load() throws IOException {
    return load(null);
  }

  /** As {@link #load()}, its STS request cut where {@code budget} ends ({@code null}: no budget). */
  @Override
  public Optional<SourcedCredentials> load(Duration budget) throws IOException {
    Path tokenFile = env.path(TOKEN_FILE, home);
    String roleArn = env.get(ROLE_ARN);
    if (tokenFile == null && roleArn == null) {
      return Optional.empty();
    }
    if (roleArn == null) {
      throw new CredentialsException(
          name() + ": " + TOKEN_FILE + " is set but " + ROLE_ARN + " is not");
    }
    if (tokenFile == null) {
      throw new CredentialsException(
          name() + ": " + ROLE_ARN + " is set but " + TOKEN_FILE + " is not");
    }
    String token = readToken(tokenFile);
    String sessionName = env.get(SESSION_NAME);
    if (sessionName == null) {
      sessionName = "idem-" + clock.millis();
    }
    URI endpoint = endpoint();

    Map<String, String> form = new LinkedHashMap<>();
    form.put("Action", "AssumeRoleWithWebIdentity");
    form.put("Version", "2011-06-15");
    form.put("RoleArn", roleArn);
    form.put("RoleSessionName", sessionName);
    form.put("WebIdentityToken", token);
    HttpRequest.Builder request = HttpRequest.newBuilder(endpoint)
        .header("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
        .header("Accept", "application/xml")
        .POST(HttpRequest.BodyPublishers.ofString(formEncode(form)));
    CredentialHttp.Reply reply;
    try {
      reply = CredentialHttp.send(http, request, CredentialHttp.Wait.of(TIMEOUT, null, budget), name());
    } catch (InterruptedIOException | DeadlineExceededException e) {
      throw e;
    } catch (IOException e) {
      throw new CredentialsException(name() + ": cannot reach STS at "
          + CredentialHttp.origin(endpoint) + " (" + CredentialHttp.reason(e) + ")", e);
    }
    if (reply.status() != 200) {
      throw new CredentialsException(name() + ": STS at " + CredentialHttp.origin(endpoint)
          + " answered HTTP " + reply.status() + stsError(reply.body(), token));
    }
    Map<String, String> fields;
    try {
      fields = StsXml.fields(reply.body(), "Credentials");
    } catch (IllegalArgumentException e) {
      throw new CredentialsException(name() + ": STS " + e.getMessage());
    }
    if (fields.isEmpty()) {
      throw new CredentialsException(name() + ": STS reply has no Credentials element");
    }
    AwsCredentials credentials = CredentialFields.from(fields, name(), "SessionToken", true);
    return Optional.of(new SourcedCredentials(credentials, name() + " (" + roleArn + ")"));
  }

  /** The STS endpoint, following the precedence in the class comment. */
  URI endpoint() throws CredentialsException {
    String override = env.get(STS_ENDPOINT);
    if (override != null) {
      URI uri;
      try {
        uri = new URI(override);
      } catch (URISyntaxException e) {
        throw new CredentialsException(name() + ": " + STS_ENDPOINT + " is not a valid URL");
      }
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
        throw new CredentialsException(
            name() + ": " + STS_ENDPOINT + " must be an http or https URL");
      }
      return uri.getRawPath() == null || uri.getRawPath().isEmpty()
          ? uri.resolve("/") : uri;
    }
    String region = env.get("AWS_REGION");
    if (region == null) {
      region = env.get("AWS_DEFAULT_REGION");
    }
    if (region == null) {
      return URI.create("https://sts.amazonaws.com/");
    }
    if (!REGION.matcher(region).matches()) {
      throw new CredentialsException(name() + ": AWS_REGION/AWS_DEFAULT_REGION is not a"
          + " region name (lower-case letters, digits and '-')");
    }
    String domain = region.startsWith("cn-") ? "amazonaws.com.cn" : "amazonaws.com";
    return URI.create("https://sts." + region + "." + domain + "/");
  }

  private String readToken(Path tokenFile) throws CredentialsException {
    String token;
    try {
      token = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new CredentialsException(name() + ": cannot read token file " + tokenFile
          + " (" + e.getClass().getSimpleName() + ")", e);
    }
    if (token.isEmpty()) {
      throw new CredentialsException(name() + ": token file " + tokenFile + " is empty");
    }
    return token;
  }

  /** {@code " (Code: Message)"} from an STS error reply, token removed, or {@code ""}. */
  private static String stsError(String body, String token) {
    Map<String, String> error;
    try {
      error = StsXml.fields(body, "Error");
    } catch (IllegalArgumentException e) {
      return "";
    }
    String code = error.getOrDefault("Code", "");
    String message = error.getOrDefault("Message", "").replace(token, "<token>")
        .replaceAll("\\s+", " ");
    if (message.length() > MAX_STS_MESSAGE) {
      message = message.substring(0, MAX_STS_MESSAGE) + "...";
    }
    if (code.isEmpty() && message.isEmpty()) {
      return "";
    }
    return " (" + code + (code.isEmpty() || message.isEmpty() ? "" : ": ") + message + ")";
  }

  private static String formEncode(Map<String, String> form) {
    StringBuilder out = new StringBuilder();
    form.forEach((k, v) -> {
      if (out.length() > 0) {
        out.append('&');
      }
      out.append(URLEncoder.encode(k, StandardCharsets.UTF_8)).append('=')
          .append(URLEncoder.encode(v, StandardCharsets.UTF_8));
    });
    return out.toString();
  }
}
