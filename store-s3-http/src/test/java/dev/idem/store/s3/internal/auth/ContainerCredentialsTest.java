package dev.idem.store.s3.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The container link against a local server standing in for the ECS agent / EKS Pod Identity. */
class ContainerCredentialsTest {

  private static final Instant EXPIRATION = Instant.parse("2026-01-01T06:00:00Z");
  private static final String AUTH_TOKEN = "AUTHTOKEN-4f1a-secret";

  @TempDir
  Path home;

  private LocalServer agent;
  private final Map<String, String> env = new HashMap<>();

  @BeforeEach
  void setUp() {
    agent = LocalServer.start();
    agent.route("GET", "/v2/credentials/abc", 200, Fixtures.jsonCredentials(
        "ASIACONTAINER", Fixtures.SECRET, Fixtures.TOKEN, EXPIRATION));
  }

  @AfterEach
  void tearDown() {
    agent.close();
  }

  private Optional<SourcedCredentials> load() throws IOException {
    return new ContainerCredentials(new EnvVars(env), home, Fixtures.HTTP, agent.uri()).load();
  }

  @Nested
  class Load {

    @Test
    void load_fullUriWithToken_sendsAuthorization() throws Exception {
      env.put("AWS_CONTAINER_CREDENTIALS_FULL_URI", agent.uri() + "/v2/credentials/abc");
      env.put("AWS_CONTAINER_AUTHORIZATION_TOKEN", AUTH_TOKEN);

      SourcedCredentials found = load().orElseThrow();

      assertEquals(new AwsCredentials("ASIACONTAINER", Fixtures.SECRET, Fixtures.TOKEN,
          EXPIRATION), found.credentials());
      assertEquals("container (" + agent.uri() + ")", found.description());
      assertEquals(AUTH_TOKEN, agent.requests().get(0).header("Authorization"));
    }

    @Test
    void load_tokenFile_winsAndIsReReadEachCall() throws Exception {
      Path tokenFile = home.resolve("eks-token");
      Files.writeString(tokenFile, "from-file-1\n");
      env.put("AWS_CONTAINER_CREDENTIALS_FULL_URI", agent.uri() + "/v2/credentials/abc");
      env.put("AWS_CONTAINER_AUTHORIZATION_TOKEN", AUTH_TOKEN);
      env.put("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", tokenFile.toString());

      load();
      Files.writeString(tokenFile, "from-file-2");
      load();

      assertEquals("from-file-1", agent.requests().get(0).header("Authorization"));
      assertEquals("from-file-2", agent.requests().get(1).header("Authorization"));
    }

    @Test
    void load_relativeUri_resolvedAgainstBase() throws Exception {
      env.put("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/v2/credentials/abc");
      env.put("AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://169.254.170.23/ignored");

      SourcedCredentials found = load().orElseThrow();

      assertEquals("ASIACONTAINER", found.credentials().accessKeyId());
      assertEquals("/v2/credentials/abc", agent.requests().get(0).path());
      assertNull(agent.requests().get(0).header("Authorization"));
    }

    @Test
    void load_replyWithoutExpiration_neverExpires() throws Exception {
      agent.route("GET", "/static", 200,
          "{\"AccessKeyId\":\"AKIDLOCAL\",\"SecretAccessKey\":\"s\"}");
      env.put("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/static");

      AwsCredentials c = load().orElseThrow().credentials();

      assertEquals(AwsCredentials.of("AKIDLOCAL", "s"), c);
    }

    @Test
    void load_nonLoopbackHttpFullUri_isRejectedBeforeConnecting() {
      env.put("AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://credentials.example.com/creds");
      env.put("AWS_CONTAINER_AUTHORIZATION_TOKEN", AUTH_TOKEN);

      CredentialsException e = assertThrows(CredentialsException.class, () -> load());

      assertEquals("container: AWS_CONTAINER_CREDENTIALS_FULL_URI must use https, or http to"
          + " a loopback address or 169.254.170.2/169.254.170.23; refusing"
          + " http://credentials.example.com", e.getMessage());
      assertTrue(agent.requests().isEmpty());
    }

    @Test
    void load_notHttp_isRejected() {
      env.put("AWS_CONTAINER_CREDENTIALS_FULL_URI", "file:///etc/passwd");

      CredentialsException e = assertThrows(CredentialsException.class, () -> load());

      assertEquals("container: AWS_CONTAINER_CREDENTIALS_FULL_URI must be an http or https URL",
          e.getMessage());
    }

    @Test
    void load_errorStatus_isError() {
      env.put("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/missing");

      CredentialsException e = assertThrows(CredentialsException.class, () -> load());

      assertEquals("container: " + agent.uri() + " answered HTTP 404", e.getMessage());
    }

    @Test
    void load_malformedJson_isErrorWithoutContent() {
      agent.route("GET", "/bad", 200, "{\"SecretAccessKey\":\"" + Fixtures.SECRET + "\",}");
      env.put("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/bad");

      CredentialsException e = assertThrows(CredentialsException.class, () -> load());

      assertTrue(e.getMessage().startsWith("container: reply is not a flat JSON object"),
          e.getMessage());
      assertFalse(e.getMessage().contains(Fixtures.SECRET));
    }

    @Test
    void load_replyWithoutSecret_namesField() {
      agent.route("GET", "/half", 200, "{\"AccessKeyId\":\"A\"}");
      env.put("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/half");

      CredentialsException e = assertThrows(CredentialsException.class, () -> load());

      assertEquals("container: reply has no SecretAccessKey", e.getMessage());
    }

    @Test
    void load_tokenWithLineBreak_isRejected() {
      env.put("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/v2/credentials/abc");
      env.put("AWS_CONTAINER_AUTHORIZATION_TOKEN", "abc\r\nX-Injected: 1");

      CredentialsException e = assertThrows(CredentialsException.class, () -> load());

      assertEquals("container: the authorization token contains a line break", e.getMessage());
    }

    @Test
    void load_unreachable_isError() {
      env.put("AWS_CONTAINER_CREDENTIALS_FULL_URI", Fixtures.unreachable() + "/creds");

      CredentialsException e = assertThrows(CredentialsException.class, () -> load());

      assertTrue(e.getMessage().startsWith("container: cannot reach http://127.0.0.1:"),
          e.getMessage());
    }

    @Test
    void load_notConfigured_isEmpty() throws Exception {
      assertTrue(load().isEmpty());
    }
  }

  @Nested
  class IsAllowedPlainHttpHost {

    static Stream<Arguments> cases() {
      return Stream.of(
          Arguments.of("127.0.0.1", true),
          Arguments.of("127.1.2.3", true),
          Arguments.of("[::1]", true),
          Arguments.of("localhost", true),
          Arguments.of("169.254.170.2", true),
          Arguments.of("169.254.170.23", true),
          Arguments.of("[fd00:ec2::23]", true),
          Arguments.of("169.254.169.254", false),
          Arguments.of("10.0.0.1", false),
          Arguments.of("128.0.0.1", false),
          Arguments.of("999.0.0.1", false),
          Arguments.of("example.com", false),
          Arguments.of("127.0.0.1.nip.io", false),
          Arguments.of("[fe80::1]", false));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("cases")
    void isAllowedPlainHttpHost_table(String host, boolean allowed) {
      assertEquals(allowed, ContainerCredentials.isAllowedPlainHttpHost(host));
    }

    @Test
    void fullUri_https_isAllowedAnywhere() throws Exception {
      ContainerCredentials source =
          new ContainerCredentials(new EnvVars(Map.of()), home, Fixtures.HTTP, agent.uri());

      assertEquals(URI.create("https://creds.example.com/x"),
          source.fullUri("https://creds.example.com/x"));
    }
  }
}
