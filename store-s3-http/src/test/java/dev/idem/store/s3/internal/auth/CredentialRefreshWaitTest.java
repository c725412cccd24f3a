package dev.idem.store.s3.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.CredentialsException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thread waiting on another thread's credential refresh waits at most its own budget (B1), and is
 * told which source the refresh is stuck on, even while that source's endpoint stalls for as long as
 * its own request timeout allows.
 */
class CredentialRefreshWaitTest {
  private static final Duration HANG = Duration.ofSeconds(60);

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

  @Test
  void resolve_refreshStalledInAnotherThread_waiterGivesUpAtItsBudgetNamingTheSource() throws Exception {
    // The container endpoint sends headers and then nothing: the refreshing thread holds the refresh
    // until the source's own 5 s body deadline.
    server.stall("GET", "/v2/credentials/abc");
    CredentialChain chain = CredentialChain.standard(
        Map.of("AWS_CONTAINER_CREDENTIALS_FULL_URI", server.uri() + "/v2/credentials/abc"), home, Fixtures.HTTP,
        Clock.systemUTC(), server.uri(), server.uri());
    CompletableFuture<Throwable> refresher = CompletableFuture.supplyAsync(() -> {
      try {
        chain.resolve();
        return null;
      } catch (Exception e) {
        return e;
      }
    });
    server.awaitStalled();

    CredentialsException e = assertTimeoutPreemptively(HANG,
        () -> assertThrows(CredentialsException.class, () -> chain.resolve(Duration.ofMillis(200))));

    assertEquals("a credential refresh in progress in another thread did not finish within 200ms: it is waiting "
        + "on container (its own request timeout ends it)", e.getMessage());
    assertTrue(server.requests().size() == 1, "the waiter sent nothing: " + server.requests());
    Throwable refreshFailure = assertTimeoutPreemptively(HANG, () -> refresher.get());
    assertTrue(refreshFailure instanceof CredentialsException
        && refreshFailure.getMessage().startsWith("container: "), String.valueOf(refreshFailure));
  }

  @Test
  void resolve_negativeWait_refused() {
    CredentialChain chain = CredentialChain.standard(Map.of("AWS_ACCESS_KEY_ID", "AKID", "AWS_SECRET_ACCESS_KEY", "s"),
        home, Fixtures.HTTP, Clock.systemUTC(), server.uri(), server.uri());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> chain.resolve(Duration.ofMillis(-1)));
    assertEquals("maxWait must be >= 0, was PT-0.001S", e.getMessage());
  }
}
