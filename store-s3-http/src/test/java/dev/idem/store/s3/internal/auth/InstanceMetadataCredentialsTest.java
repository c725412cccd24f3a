package dev.idem.store.s3.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsException;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The IMDSv2 link against a local server that enforces the session-token protocol. */
class InstanceMetadataCredentialsTest {

  private static final Instant EXPIRATION = Instant.parse("2026-01-01T06:00:00Z");
  private static final String IMDS_TOKEN = "IMDSTOKEN-AQAEAE";
  private static final String ROLES = "/latest/meta-data/iam/security-credentials/";

  private LocalServer imds;
  private final Map<String, String> env = new HashMap<>();

  @BeforeEach
  void setUp() {
    imds = LocalServer.start();
    imds.route("PUT", "/latest/api/token", request ->
        "21600".equals(request.header("X-aws-ec2-metadata-token-ttl-seconds"))
            ? LocalServer.Response.ok(IMDS_TOKEN)
            : new LocalServer.Response(400, ""));
    imds.route("GET", ROLES, request -> withToken(request, "idem-instance-role\n"));
    imds.route("GET", ROLES + "idem-instance-role", request -> withToken(request,
        Fixtures.jsonCredentials("ASIAIMDS", Fixtures.SECRET, Fixtures.TOKEN, EXPIRATION)));
  }

  @AfterEach
  void tearDown() {
    imds.close();
  }

  /** IMDSv2 refuses metadata requests without the session token. */
  private static LocalServer.Response withToken(LocalServer.Request request, String body) {
    return IMDS_TOKEN.equals(request.header("X-aws-ec2-metadata-token"))
        ? LocalServer.Response.ok(body)
        : new LocalServer.Response(401, "");
  }

  private Optional<SourcedCredentials> load(URI defaultEndpoint) throws IOException {
    return new InstanceMetadataCredentials(new EnvVars(env), Fixtures.HTTP, defaultEndpoint)
        .load();
  }

  @Nested
  class Load {

    @Test
    void load_tokenThenRoleThenCredentials() throws Exception {
      SourcedCredentials found = load(imds.uri()).orElseThrow();

      assertEquals(new AwsCredentials("ASIAIMDS", Fixtures.SECRET, Fixtures.TOKEN, EXPIRATION),
          found.credentials());
      assertEquals("IMDS (role idem-instance-role)", found.description());
      List<LocalServer.Request> requests = imds.requests();
      assertEquals(List.of("PUT /latest/api/token", "GET " + ROLES,
          "GET " + ROLES + "idem-instance-role"),
          requests.stream().map(r -> r.method() + " " + r.path()).toList());
      assertEquals(IMDS_TOKEN, requests.get(1).header("X-aws-ec2-metadata-token"));
      assertEquals(IMDS_TOKEN, requests.get(2).header("X-aws-ec2-metadata-token"));
    }

    @Test
    void load_endpointFromEnvironment_overridesDefault() throws Exception {
      env.put("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.uri() + "/");

      assertTrue(load(Fixtures.unreachable()).isPresent());
    }

    @Test
    void load_disabled_makesNoRequest() throws Exception {
      env.put("AWS_EC2_METADATA_DISABLED", "TRUE");

      assertTrue(load(imds.uri()).isEmpty());
      assertTrue(imds.requests().isEmpty());
    }

    @Test
    void load_defaultEndpointUnreachable_isNotConfigured() throws Exception {
      assertTrue(load(Fixtures.unreachable()).isEmpty());
    }

    @Test
    void load_explicitEndpointUnreachable_isError() {
      env.put("AWS_EC2_METADATA_SERVICE_ENDPOINT", Fixtures.unreachable().toString());

      CredentialsException e =
          assertThrows(CredentialsException.class, () -> load(imds.uri()));

      assertTrue(e.getMessage().startsWith("IMDS: cannot reach http://127.0.0.1:"),
          e.getMessage());
    }

    @Test
    void load_noRoleAttached_isNotConfigured() throws Exception {
      imds.route("GET", ROLES, 404, "");

      assertTrue(load(imds.uri()).isEmpty());
    }

    @Test
    void load_tokenRefused_isError() {
      imds.route("PUT", "/latest/api/token", 403, "");

      CredentialsException e =
          assertThrows(CredentialsException.class, () -> load(imds.uri()));

      assertEquals("IMDS: token request answered HTTP 403", e.getMessage());
    }

    @Test
    void load_failureCode_isError() {
      imds.route("GET", ROLES + "idem-instance-role", 200,
          "{\"Code\":\"AssumeRoleUnauthorizedAccess\",\"AccessKeyId\":\"A\"}");

      CredentialsException e =
          assertThrows(CredentialsException.class, () -> load(imds.uri()));

      assertEquals("IMDS: credentials reply has Code AssumeRoleUnauthorizedAccess",
          e.getMessage());
    }

    @Test
    void load_malformedCredentials_isErrorWithoutContent() {
      imds.route("GET", ROLES + "idem-instance-role", 200,
          "{\"SecretAccessKey\":\"" + Fixtures.SECRET + "\"");

      CredentialsException e =
          assertThrows(CredentialsException.class, () -> load(imds.uri()));

      assertTrue(e.getMessage().startsWith("IMDS: credentials reply is not a flat JSON"),
          e.getMessage());
      assertFalse(e.getMessage().contains(Fixtures.SECRET));
    }

    @Test
    void load_roleNameWithPathCharacters_isRejected() {
      imds.route("GET", ROLES, 200, "../../user-data\n");

      CredentialsException e =
          assertThrows(CredentialsException.class, () -> load(imds.uri()));

      assertEquals("IMDS: role list reply is not a role name", e.getMessage());
    }
  }

  @Nested
  class TriedLabel {

    @Test
    void triedLabel_disabled_saysSo() {
      InstanceMetadataCredentials source = new InstanceMetadataCredentials(
          new EnvVars(Map.of("AWS_EC2_METADATA_DISABLED", "true")), Fixtures.HTTP,
          imds.uri());

      assertEquals("IMDS (disabled by AWS_EC2_METADATA_DISABLED)", source.triedLabel());
    }
  }
}
