package dev.idem.store.s3.internal.client;

import static dev.idem.store.s3.testing.FakeS3Server.ok;
import static dev.idem.store.s3.testing.FakeS3Server.stall;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsProvider;
import dev.idem.store.s3.internal.client.S3Client.ObjectStream;
import dev.idem.store.s3.testing.FakeS3Server;
import dev.idem.store.s3.testing.FakeS3Server.Reply;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Reading a reply body has a deadline (B1): a server that sends headers and then stalls fails the
 * request (retried like any failed read), it does not hang it. The client's request timeout is 1 s
 * here, so each body gets 2 s (1 s, plus 1 s for its first MiB); every test is cut off after a minute
 * should a read hang.
 */
class S3ClientBodyDeadlineTest {
  private static final Duration HANG = Duration.ofSeconds(60);
  private static final String LISTING = "<ListBucketResult><IsTruncated>false</IsTruncated>"
      + "<Contents><Key>k</Key><LastModified>2024-09-10T20:27:30.000Z</LastModified><Size>1</Size></Contents>"
      + "</ListBucketResult>";

  private FakeS3Server server;
  private S3Client client;

  @BeforeEach
  void start() throws IOException {
    server = new FakeS3Server();
    client = S3Client.builder(server.endpoint(), "us-east-1",
            CredentialsProvider.of(AwsCredentials.of("AKIDEXAMPLE", "secret-never-printed")))
        .pathStyle(true).retry(new RetryPolicy(2, Duration.ofMillis(1), Duration.ofMillis(1)))
        .requestTimeout(Duration.ofSeconds(1)).build();
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  @Test
  void listObjects_pageStallsOnEveryAttempt_timeoutNamingTheRequest() {
    server.then(stall("<ListBucketResult>"), stall("<ListBucketResult>"));
    IOException e = assertTimeoutPreemptively(HANG,
        () -> assertThrows(IOException.class, () -> client.listObjects("bkt", "p/", null, null, 1000)));
    assertTrue(e.getMessage().startsWith("GET bkt") && e.getMessage().contains("reply body not received within 2000 ms")
        && e.getMessage().contains("(after 2 attempts)"), e.getMessage());
    assertEquals(2, server.requests().size());
  }

  @Test
  void listObjects_pageStallsOnce_retriedAndRead() throws IOException {
    server.then(stall("<ListBucketResult>"), ok(LISTING));
    ObjectsPage page = assertTimeoutPreemptively(HANG, () -> client.listObjects("bkt", "p/", null, null, 1000));
    assertEquals("k", page.objects().get(0).key());
  }

  @Test
  void listVersions_pageStalls_timeout() {
    server.then(stall("<ListVersionsResult>"), stall("<ListVersionsResult>"));
    IOException e = assertTimeoutPreemptively(HANG,
        () -> assertThrows(IOException.class, () -> client.listVersions("bkt", "p/", null, null, 1000)));
    assertTrue(e.getMessage().contains("reply body not received within"), e.getMessage());
  }

  @Test
  void getBytes_pointerDocumentStalls_timeout() {
    server.then(stall("idem-pointer 1\n"), stall("idem-pointer 1\n"));
    IOException e = assertTimeoutPreemptively(HANG,
        () -> assertThrows(IOException.class, () -> client.getBytes("bkt", "p/_idem/pointers/x/latest", 8192)));
    assertTrue(e.getMessage().contains("p/_idem/pointers/x/latest")
        && e.getMessage().contains("reply body not received within"), e.getMessage());
  }

  @Test
  void get_objectStreamStallsMidBody_readFailsAtTheDeadline() throws IOException {
    server.then(stall("first bytes"));
    ObjectStream s = client.get("bkt", "orders/60/state-x").orElseThrow();
    try (InputStream body = s.body()) {
      HttpTimeoutException e = assertTimeoutPreemptively(HANG,
          () -> assertThrows(HttpTimeoutException.class, body::readAllBytes));
      assertTrue(e.getMessage().startsWith("GET bkt/orders/60/state-x at ")
          && e.getMessage().contains(": reply body not received within 2000 ms"), e.getMessage());
    }
  }

  @Test
  void get_objectReadInTime_wholeBody() throws IOException {
    byte[] bytes = "all of it".getBytes(StandardCharsets.UTF_8);
    server.then(new Reply(200, Map.of("ETag", "\"abc\""), bytes));
    try (InputStream body = client.get("bkt", "k").orElseThrow().body()) {
      assertArrayEquals(bytes, body.readAllBytes());
    }
  }
}
