package dev.idem.store.s3.internal.client;

import static dev.idem.store.s3.testing.FakeS3Server.stall;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.Deadline;
import dev.idem.core.store.DeadlineExceededException;
import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsProvider;
import dev.idem.store.s3.testing.FakeS3Server;
import dev.idem.store.s3.testing.FakeS3Server.Silent;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A client built with an overall {@link Deadline} (B2): every request, its retries and backoffs and the
 * request in flight end by it, and the failure names it; without one, a wait that runs out says which it
 * was (connect, read). Backoffs are measured on a ticker the test's sleeper advances where the server
 * answers at once; a server that never answers needs real time, and those deadlines are a second or two.
 */
class S3ClientDeadlineTest {
  /** Far more attempts than any deadline here allows: the deadline, not the count, must end them. */
  private static final RetryPolicy PATIENT = new RetryPolicy(1000, Duration.ofMillis(100), Duration.ofSeconds(1));
  /** What a hung test is cut off at; every bound here is seconds. */
  private static final Duration HANG = Duration.ofSeconds(45);

  private FakeS3Server server;
  private final AtomicLong nanos = new AtomicLong();

  @BeforeEach
  void start() throws IOException {
    server = new FakeS3Server();
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  private S3Client.Builder fakeTime(S3Client.Builder b) {
    return b.ticker(nanos::get).sleeper(d -> nanos.addAndGet(d.toNanos()));
  }

  @Test
  void head_serverAcceptsAndNeverAnswers_endsAtTheOverallDeadlineNamingIt() {
    server.otherwise(r -> new Silent());
    Deadline overall = Deadline.after(Duration.ofSeconds(1), "--max-time");
    // A 30 s read timeout and six attempts: without the deadline the HEAD would wait three minutes.
    S3Client client = server.clientBuilder().requestTimeout(Duration.ofSeconds(30)).deadline(overall).build();

    DeadlineExceededException e = assertTimeoutPreemptively(HANG,
        () -> assertThrows(DeadlineExceededException.class, () -> client.head("bkt", "k", null)));

    assertTrue(e.getMessage().startsWith("HEAD bkt/k at " + server.endpoint() + ": the 1s deadline (--max-time) ran out"),
        e.getMessage());
    assertSame(overall, e.deadline());
    assertTrue(server.requests().size() <= 1, "the request in flight was cut, and no retry begun");
  }

  @Test
  void getBytes_headersThenStall_endsAtTheOverallDeadline() {
    server.otherwise(r -> stall("idem-pointer 1\n"));
    Deadline overall = Deadline.after(Duration.ofSeconds(1), "--max-time");
    S3Client client = server.clientBuilder().requestTimeout(Duration.ofSeconds(30)).deadline(overall).build();

    DeadlineExceededException e = assertTimeoutPreemptively(HANG,
        () -> assertThrows(DeadlineExceededException.class, () -> client.getBytes("bkt", "latest", 4096)));

    assertTrue(e.getMessage().contains("the 1s deadline (--max-time) ran out")
        && e.getMessage().contains("reply body not received"), e.getMessage());
    assertEquals(1, server.requests().size(), "the body stalled, and no retry begun");
  }

  @Test
  void head_serverErrorForever_noRetryBegunPastTheOverallDeadline() {
    // An empty script answers 500 InternalError to every request.
    Deadline overall = Deadline.after(Duration.ofSeconds(5), "--max-time", nanos::get);
    S3Client client = fakeTime(server.clientBuilder()).retry(PATIENT).deadline(overall).build();

    DeadlineExceededException e = assertThrows(DeadlineExceededException.class,
        () -> client.getBytes("bkt", "k", 4096));

    assertTrue(e.getMessage().contains(": the 5s deadline (--max-time) ran out after ")
        && e.getMessage().contains("InternalError"), e.getMessage());
    assertTrue(nanos.get() <= Duration.ofSeconds(5).toNanos(), "backed off " + Duration.ofNanos(nanos.get()));
    assertTrue(server.requests().size() >= 2 && server.requests().size() < 100, server.requests().size() + " requests");
  }

  @Test
  void head_overallDeadlinePaused_timeSpentMeanwhileDoesNotCount() throws IOException {
    Deadline overall = Deadline.after(Duration.ofSeconds(5), "--max-time", nanos::get);
    overall.pause();
    nanos.addAndGet(Duration.ofHours(1).toNanos());
    server.then(FakeS3Server.status(404, java.util.Map.of()), FakeS3Server.status(200, java.util.Map.of()));
    S3Client client = fakeTime(server.clientBuilder()).deadline(overall).build();
    overall.resume();

    assertTrue(client.head("bkt", "k", null).isEmpty(), "sent: the hour spent paused did not count");
  }

  @Test
  void within_longerThanTheOverallDeadline_endsAtTheOverall() {
    Deadline overall = Deadline.after(Duration.ofSeconds(2), "--max-time", nanos::get);
    S3Client client = fakeTime(server.clientBuilder()).retry(PATIENT).deadline(overall).build();

    DeadlineExceededException e = assertThrows(DeadlineExceededException.class,
        () -> client.within(Duration.ofSeconds(30)).head("bkt", "k", null));

    assertTrue(e.getMessage().contains(": the 2s deadline (--max-time) ran out after "), e.getMessage());
    assertTrue(nanos.get() <= Duration.ofSeconds(2).toNanos(), "backed off " + Duration.ofNanos(nanos.get()));
  }

  @Test
  void head_overallDeadlinePassedBeforeTheRequest_notSent() {
    Deadline overall = Deadline.after(Duration.ofSeconds(1), "--max-time", nanos::get);
    nanos.addAndGet(Duration.ofSeconds(2).toNanos());
    S3Client client = fakeTime(server.clientBuilder()).deadline(overall).build();

    DeadlineExceededException e = assertThrows(DeadlineExceededException.class, () -> client.head("bkt", "k", null));

    assertTrue(e.getMessage().endsWith(": the 1s deadline (--max-time) ran out after 0 attempts, no time left to send it"),
        e.getMessage());
    assertEquals(0, server.requests().size());
  }

  @Test
  void head_noReplyOnEveryAttempt_namesTheReadTimeout() {
    server.then(new Silent(), new Silent());
    S3Client client = server.clientBuilder().retry(new RetryPolicy(2, Duration.ofMillis(1), Duration.ofMillis(1)))
        .requestTimeout(Duration.ofSeconds(1)).build();

    IOException e = assertTimeoutPreemptively(HANG, () -> assertThrows(IOException.class, () -> client.head("bkt", "k", null)));

    assertEquals("HEAD bkt/k at " + server.endpoint() + " failed: read timeout: no reply within 1s (after 2 attempts)",
        e.getMessage());
  }

  @Test
  void head_connectionNeverAccepted_namesTheConnectTimeout() throws IOException {
    // A listening socket whose accept queue is full and never drained: the kernel drops further SYNs, so a
    // connect neither succeeds nor fails, as to a host that is down behind a firewall.
    try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      List<Socket> queued = new ArrayList<>();
      try {
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), full.getLocalPort());
        for (int i = 0; i < 8; i++) {
          Socket s = new Socket();
          try {
            s.connect(address, 300);
          } catch (IOException e) {
            s.close();
            break;
          }
          queued.add(s);
        }
        URI endpoint = URI.create("http://127.0.0.1:" + full.getLocalPort());
        S3Client client = S3Client.builder(endpoint, "us-east-1", CredentialsProvider.of(AwsCredentials.of("AKID", "s")))
            .pathStyle(true).retry(new RetryPolicy(2, Duration.ofMillis(1), Duration.ofMillis(1)))
            .connectTimeout(Duration.ofMillis(400)).requestTimeout(Duration.ofSeconds(30)).build();

        IOException e = assertTimeoutPreemptively(HANG, () -> assertThrows(IOException.class,
            () -> client.head("bkt", "k", null)));

        assertEquals("HEAD bkt/k at " + endpoint + " failed: connect timeout: no connection to " + endpoint
            + " within 400ms (after 2 attempts)", e.getMessage());
      } finally {
        for (Socket s : queued) {
          s.close();
        }
      }
    }
  }
}
