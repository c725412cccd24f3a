package dev.idem.store.s3.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The web identity link against a local HTTP server standing in for STS. */
class WebIdentityCredentialsTest {

  private static final String ROLE = "arn:aws:iam::123456789012:role/idem-writer";

  @TempDir
  Path home;

  private LocalServer sts;
  private Path tokenFile;
  private final Map<String, String> env = new HashMap<>();

  @BeforeEach
  void setUp() throws IOException {
    sts = LocalServer.start();
    tokenFile = home.resolve("token");
    Files.writeString(tokenFile, Fixtures.WEB_TOKEN + "\n");
    env.put("AWS_WEB_IDENTITY_TOKEN_FILE", tokenFile.toString());
    env.put("AWS_ROLE_ARN", ROLE);
    env.put("AWS_ENDPOINT_URL_STS", sts.uri().toString());
  }

  @AfterEach
  void tearDown() {
    sts.close();
  }

  private WebIdentityCredentials source(Map<String, String> vars) {
    return new WebIdentityCredentials(new EnvVars(vars), home, Fixtures.HTTP, Fixtures.FIXED);
  }

  @Nested
  class Load {

    @Test
    void load_postsAssumeRoleWithWebIdentity() throws Exception {
      Instant expiration = Fixtures.NOW.plus(Duration.ofHours(1));
      sts.route("POST", "/", 200,
          Fixtures.stsCredentials("ASIASTS", Fixtures.SECRET, Fixtures.TOKEN, expiration));

      SourcedCredentials found = source(env).load().orElseThrow();

      assertEquals(new AwsCredentials("ASIASTS", Fixtures.SECRET, Fixtures.TOKEN, expiration),
          found.credentials());
      assertEquals("web identity (" + ROLE + ")", found.description());
      LocalServer.Request request = sts.requests().get(0);
      assertEquals(Map.of(
          "Action", "AssumeRoleWithWebIdentity",
          "Version", "2011-06-15",
          "RoleArn", ROLE,
          "RoleSessionName", "idem-" + Fixtures.NOW.toEpochMilli(),
          "WebIdentityToken", Fixtures.WEB_TOKEN), request.form());
      assertTrue(request.header("Content-Type").startsWith("application/x-www-form-urlencoded"));
      assertEquals(null, request.header("Authorization"));
    }

    @Test
    void load_sessionNameFromEnvironment() throws Exception {
      env.put("AWS_ROLE_SESSION_NAME", "nightly-job");
      sts.route("POST", "/", 200, Fixtures.stsCredentials("ASIASTS", "s", "t",
          Fixtures.NOW.plusSeconds(3600)));

      source(env).load();

      assertEquals("nightly-job", sts.requests().get(0).form().get("RoleSessionName"));
    }

    @Test
    void load_stsErrorReply_isClearErrorWithoutToken() {
      sts.route("POST", "/", 400, """
          <ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
            <Error>
            <Type>Sender</Type>
            <Code>InvalidIdentityToken</Code>
            <Message>Token %s
            is not valid</Message>
            </Error>
            <RequestId>abc</RequestId>
          </ErrorResponse>""".formatted(Fixtures.WEB_TOKEN));

      CredentialsException e =
          assertThrows(CredentialsException.class, () -> source(env).load());

      assertEquals("web identity: STS at " + sts.uri() + " answered HTTP 400"
          + " (InvalidIdentityToken: Token <token> is not valid)", e.getMessage());
    }

    @Test
    void load_stsErrorWithoutXml_givesStatusOnly() {
      sts.route("POST", "/", 503, "Service Unavailable");

      CredentialsException e =
          assertThrows(CredentialsException.class, () -> source(env).load());

      assertEquals("web identity: STS at " + sts.uri() + " answered HTTP 503", e.getMessage());
    }

    @Test
    void load_replyWithoutCredentials_isError() {
      sts.route("POST", "/", 200, "<AssumeRoleWithWebIdentityResponse/>");

      CredentialsException e =
          assertThrows(CredentialsException.class, () -> source(env).load());

      assertEquals("web identity: STS reply has no Credentials element", e.getMessage());
    }

    @Test
    void load_replyMissingSecret_namesTheField() {
      sts.route("POST", "/", 200, "<r><Credentials><AccessKeyId>A</AccessKeyId>"
          + "<Expiration>2026-01-01T01:00:00Z</Expiration></Credentials></r>");

      CredentialsException e =
          assertThrows(CredentialsException.class, () -> source(env).load());

      assertEquals("web identity: reply has no SecretAccessKey", e.getMessage());
    }

    @Test
    void load_malformedReply_isErrorWithoutContent() {
      sts.route("POST", "/", 200, "<r><Credentials><SecretAccessKey>" + Fixtures.SECRET);

      CredentialsException e =
          assertThrows(CredentialsException.class, () -> source(env).load());

      assertTrue(e.getMessage().startsWith("web identity: STS reply is not well-formed"),
          e.getMessage());
      assertFalse(e.getMessage().contains(Fixtures.SECRET));
    }

    @Test
    void load_stsUnreachable_isError() {
      env.put("AWS_ENDPOINT_URL_STS", Fixtures.unreachable().toString());

      CredentialsException e =
          assertThrows(CredentialsException.class, () -> source(env).load());

      assertTrue(e.getMessage().startsWith("web identity: cannot reach STS at http://127.0.0.1:"),
          e.getMessage());
    }

    @Test
    void load_tokenFileWithoutRoleArn_isError() {
      env.remove("AWS_ROLE_ARN");

      CredentialsException e =
          assertThrows(CredentialsException.class, () -> source(env).load());

      assertEquals("web identity: AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN is not",
          e.getMessage());
    }

    @Test
    void load_roleArnWithoutTokenFile_isError() {
      env.remove("AWS_WEB_IDENTITY_TOKEN_FILE");

      CredentialsException e =
          assertThrows(CredentialsException.class, () -> source(env).load());

      assertEquals("web identity: AWS_ROLE_ARN is set but AWS_WEB_IDENTITY_TOKEN_FILE is not",
          e.getMessage());
    }

    @Test
    void load_missingTokenFile_isErrorNamingPath() throws Exception {
      Files.delete(tokenFile);

      CredentialsException e =
          assertThrows(CredentialsException.class, () -> source(env).load());

      assertEquals("web identity: cannot read token file " + tokenFile
          + " (NoSuchFileException)", e.getMessage());
    }

    @Test
    void load_notConfigured_isEmpty() throws Exception {
      assertTrue(source(Map.of()).load().isEmpty());
    }
  }

  @Nested
  class Refresh {

    @Test
    void resolve_nearExpiry_refreshesAndReReadsTokenFile() throws Exception {
      MutableClock clock = new MutableClock(Fixtures.NOW);
      AtomicInteger calls = new AtomicInteger();
      sts.route("POST", "/", request -> {
        int n = calls.incrementAndGet();
        return LocalServer.Response.ok(Fixtures.stsCredentials("ASIA" + n, "secret" + n,
            "token" + n, clock.instant().plus(Duration.ofHours(1))));
      });
      env.put("AWS_EC2_METADATA_DISABLED", "true");
      CredentialChain chain = Fixtures.chain(env, home, clock, Fixtures.unreachable(),
          Fixtures.unreachable());

      assertEquals("ASIA1", chain.resolve().accessKeyId());
      clock.advance(Duration.ofMinutes(50));
      assertEquals("ASIA1", chain.resolve().accessKeyId());
      Files.writeString(tokenFile, "rotated-token");
      clock.advance(Duration.ofMinutes(6));
      AwsCredentials refreshed = chain.resolve();

      assertEquals("ASIA2", refreshed.accessKeyId());
      List<LocalServer.Request> requests = sts.requests();
      assertEquals(2, requests.size());
      assertEquals(Fixtures.WEB_TOKEN, requests.get(0).form().get("WebIdentityToken"));
      assertEquals("rotated-token", requests.get(1).form().get("WebIdentityToken"));
    }
  }

  @Nested
  class Endpoint {

    private URI endpoint(Map<String, String> vars) throws CredentialsException {
      return source(vars).endpoint();
    }

    @Test
    void endpoint_noRegion_isGlobal() throws Exception {
      assertEquals(URI.create("https://sts.amazonaws.com/"), endpoint(Map.of()));
    }

    @Test
    void endpoint_region_isRegional() throws Exception {
      assertEquals(URI.create("https://sts.eu-west-1.amazonaws.com/"),
          endpoint(Map.of("AWS_REGION", "eu-west-1", "AWS_DEFAULT_REGION", "us-west-2")));
      assertEquals(URI.create("https://sts.us-west-2.amazonaws.com/"),
          endpoint(Map.of("AWS_DEFAULT_REGION", "us-west-2")));
    }

    @Test
    void endpoint_chinaRegion_usesChinaDomain() throws Exception {
      assertEquals(URI.create("https://sts.cn-north-1.amazonaws.com.cn/"),
          endpoint(Map.of("AWS_REGION", "cn-north-1")));
    }

    @Test
    void endpoint_override_wins() throws Exception {
      assertEquals(URI.create("http://127.0.0.1:4566/"), endpoint(Map.of(
          "AWS_ENDPOINT_URL_STS", "http://127.0.0.1:4566", "AWS_REGION", "eu-west-1")));
    }

    @Test
    void endpoint_badOverrideOrRegion_isError() {
      assertThrows(CredentialsException.class,
          () -> endpoint(Map.of("AWS_ENDPOINT_URL_STS", "ftp://x")));
      assertThrows(CredentialsException.class,
          () -> endpoint(Map.of("AWS_REGION", "eu-west-1/../x")));
    }
  }
}
