package dev.idem.store.s3.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.CredentialsException;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every credential endpoint that sends headers and then stalls ends in a clean error by the source's
 * own request timeout (B1), so a credential refresh, and the lock every request waits on during one,
 * never hangs. Each test is cut off after a minute should a read hang; the sources' timeouts are 2 s
 * (IMDS), 5 s (container) and 10 s (STS).
 */
class CredentialBodyDeadlineTest {
  private static final Duration HANG = Duration.ofSeconds(60);
  private static final String ROLES = "/latest/meta-data/iam/security-credentials/";

  @TempDir
  Path home;

  private LocalServer server;

  @BeforeEach
  void start() {
    server = LocalServer.start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static void assertDeadline(CredentialsException e) {
    assertTrue(e.getCause() instanceof HttpTimeoutException, String.valueOf(e.getCause()));
    assertTrue(e.getMessage().contains("reply body not received within"), e.getMessage());
  }

  @Test
  void container_replyStallsAfterHeaders_credentialsErrorAtItsTimeout() {
    server.stall("GET", "/v2/credentials/abc");
    ContainerCredentials source = new ContainerCredentials(new EnvVars(
        Map.of("AWS_CONTAINER_CREDENTIALS_FULL_URI", server.uri() + "/v2/credentials/abc")), home, Fixtures.HTTP,
        server.uri());

    CredentialsException e = assertTimeoutPreemptively(HANG, () -> assertThrows(CredentialsException.class, source::load));

    assertDeadline(e);
    assertTrue(e.getMessage().startsWith("container: cannot reach " + server.uri()), e.getMessage());
  }

  @Test
  void imds_credentialsReplyStallsAfterHeaders_credentialsErrorAtItsTimeout() {
    server.route("PUT", "/latest/api/token", 200, "IMDSTOKEN");
    server.route("GET", ROLES, 200, "idem-instance-role\n");
    server.stall("GET", ROLES + "idem-instance-role");
    InstanceMetadataCredentials source = new InstanceMetadataCredentials(new EnvVars(Map.of()), Fixtures.HTTP,
        server.uri());

    CredentialsException e = assertTimeoutPreemptively(HANG, () -> assertThrows(CredentialsException.class, source::load));

    assertDeadline(e);
  }

  @Test
  void sts_replyStallsAfterHeaders_credentialsErrorAtItsTimeout() throws Exception {
    Path token = Files.writeString(home.resolve("token"), Fixtures.WEB_TOKEN);
    server.stall("POST", "/");
    WebIdentityCredentials source = new WebIdentityCredentials(new EnvVars(Map.of(
        "AWS_WEB_IDENTITY_TOKEN_FILE", token.toString(),
        "AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/idem-writer",
        "AWS_ENDPOINT_URL_STS", server.uri().toString())), home, Fixtures.HTTP, Fixtures.FIXED);

    CredentialsException e = assertTimeoutPreemptively(HANG, () -> assertThrows(CredentialsException.class, source::load));

    assertDeadline(e);
    assertTrue(e.getMessage().startsWith("web identity: cannot reach STS at " + server.uri()), e.getMessage());
  }

  @Test
  void chain_refreshAgainstAStallingEndpoint_everyWaitingCallerGetsTheErrorInTime() throws Exception {
    server.stall("GET", "/v2/credentials/abc");
    CredentialChain chain = new CredentialChain(List.of(new ContainerCredentials(new EnvVars(
        Map.of("AWS_CONTAINER_CREDENTIALS_FULL_URI", server.uri() + "/v2/credentials/abc")), home, Fixtures.HTTP,
        server.uri())), Fixtures.FIXED);
    // The first caller refreshes under the chain's lock; the second waits on that lock.
    CompletableFuture<Void> first = CompletableFuture.runAsync(() -> assertThrows(CredentialsException.class, chain::resolve));
    CompletableFuture<Void> second = CompletableFuture.runAsync(() -> assertThrows(CredentialsException.class, chain::resolve));

    assertTimeoutPreemptively(HANG, () -> {
      try {
        CompletableFuture.allOf(first, second).get();
      } catch (ExecutionException e) {
        throw e.getCause();
      }
    });
    assertEquals(2, server.requests().size(), "each caller walked the chain once, none hung on the lock");
  }
}
