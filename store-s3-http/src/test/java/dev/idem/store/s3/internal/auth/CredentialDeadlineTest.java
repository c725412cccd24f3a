package dev.idem.store.s3.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.DeadlineExceededException;
import dev.idem.store.s3.CredentialsException;
import dev.idem.store.s3.testing.FakeS3Server;
import dev.idem.store.s3.testing.FakeS3Server.Silent;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A credential fetch made for a request under a deadline ends by it (B2): a container endpoint or IMDS
 * that accepts connections and never answers costs the time the caller had left, not the source's own
 * timeouts, and the failure says that the deadline ran out, not that the source is broken or absent.
 * {@code AWS_METADATA_SERVICE_TIMEOUT} sets the wait of each metadata request, as in the AWS CLI. The
 * endpoints' waits are real time: a second or less here, against the sources' own 2 s and 5 s.
 */
class CredentialDeadlineTest {
  private static final Duration HANG = Duration.ofSeconds(45);

  @TempDir
  Path home;

  private FakeS3Server silent;

  @BeforeEach
  void start() throws IOException {
    silent = new FakeS3Server().otherwise(r -> new Silent());
  }

  @AfterEach
  void stop() throws IOException {
    silent.close();
  }

  private CredentialChain chain(Map<String, String> env) {
    return Fixtures.chain(env, home, Fixtures.FIXED, Fixtures.unreachable(), silent.endpoint());
  }

  @Test
  void resolve_containerEndpointNeverAnswers_endsByTheWaitGiven() {
    CredentialChain chain = chain(Map.of("AWS_CONTAINER_CREDENTIALS_FULL_URI", silent.endpoint() + "/v2/creds"));

    DeadlineExceededException e = assertTimeoutPreemptively(HANG,
        () -> assertThrows(DeadlineExceededException.class, () -> chain.resolve(Duration.ofMillis(800))));

    assertTrue(e.getMessage().startsWith("container: " + silent.endpoint() + " did not answer within "), e.getMessage());
    assertTrue(e.getMessage().endsWith(", what was left of the deadline"), e.getMessage());
  }

  @Test
  void resolve_imdsNeverAnswers_deadlineNotTakenForNoInstanceRole() {
    // IMDS on its default address, unreachable, means "not on EC2"; cut by a deadline, it means nothing of the sort.
    CredentialChain chain = chain(Map.of());

    DeadlineExceededException e = assertTimeoutPreemptively(HANG,
        () -> assertThrows(DeadlineExceededException.class, () -> chain.resolve(Duration.ofMillis(500))));

    assertTrue(e.getMessage().startsWith("IMDS: " + silent.endpoint() + " did not answer within "), e.getMessage());
  }

  @Test
  void resolve_imdsSetExplicitlyNeverAnswers_endsByTheWaitGiven() {
    CredentialChain chain = chain(Map.of("AWS_EC2_METADATA_SERVICE_ENDPOINT", silent.endpoint().toString()));

    DeadlineExceededException e = assertTimeoutPreemptively(HANG,
        () -> assertThrows(DeadlineExceededException.class, () -> chain.resolve(Duration.ofMillis(500))));

    assertTrue(e.getMessage().startsWith("IMDS: "), e.getMessage());
    assertTrue(silent.requests().size() <= 1, "no request begun after the deadline");
  }

  @Test
  void load_metadataServiceTimeoutSet_eachRequestWaitsThatLong() {
    ContainerCredentials source = new ContainerCredentials(new EnvVars(Map.of(
        "AWS_CONTAINER_CREDENTIALS_FULL_URI", silent.endpoint() + "/v2/creds", "AWS_METADATA_SERVICE_TIMEOUT", "1")),
        home, Fixtures.HTTP, silent.endpoint());

    CredentialsException e = assertTimeoutPreemptively(HANG, () -> assertThrows(CredentialsException.class, source::load));

    assertEquals("container: cannot reach " + silent.endpoint() + " (no reply within 1s, AWS_METADATA_SERVICE_TIMEOUT)",
        e.getMessage());
  }

  @Test
  void load_metadataServiceTimeoutNotANumber_refusedNamingIt() {
    InstanceMetadataCredentials source = new InstanceMetadataCredentials(
        new EnvVars(Map.of("AWS_METADATA_SERVICE_TIMEOUT", "2s")), Fixtures.HTTP, silent.endpoint());

    CredentialsException e = assertThrows(CredentialsException.class, source::load);

    assertEquals("IMDS: AWS_METADATA_SERVICE_TIMEOUT must be a positive number of seconds, was '2s'", e.getMessage());
    assertEquals(0, silent.requests().size());
  }
}
