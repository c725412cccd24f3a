package dev.idem.store.s3;

import static dev.idem.store.s3.testing.FakeS3Server.error;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Sha256;
import dev.idem.core.Window;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Pointer;
import dev.idem.store.s3.internal.client.RetryPolicy;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.testing.FakeS3Server;
import dev.idem.store.s3.testing.FakeS3Server.Silent;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The S3 store's pointer swap honours the caller's deadline (B1): 503s, 409s and a silent server end it
 * within {@code maxWait} plus one request timeout, and the outcome says which wait ran out. Backoffs
 * are measured on a ticker the test's sleeper advances, so nothing here waits them out; only the silent
 * server's request timeout is real time.
 */
class S3PointerDeadlineTest {
  /** Far more attempts than any deadline here allows: the deadline, not the count, must end them. */
  private static final RetryPolicy PATIENT = new RetryPolicy(1000, Duration.ofMillis(100), Duration.ofSeconds(1));

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

  /** A store whose backoffs advance {@link #nanos} instead of sleeping. */
  private S3ObjectStore store(PointerMode mode, RetryPolicy retry, Duration requestTimeout, boolean fakeTime) {
    S3Client.Builder b = server.clientBuilder().retry(retry).requestTimeout(requestTimeout);
    if (fakeTime) {
      b.ticker(nanos::get).sleeper(d -> nanos.addAndGet(d.toNanos()));
    }
    return S3ObjectStore.open(b.build(), server.location(""), S3StoreOptions.builder().pointerMode(mode).build());
  }

  private static Pointer pointer() {
    String key = RunSpec.of("orders", new Window(60, 60), 1).outputKey().toString();
    return new Pointer("orders", key, 60, 60, 1, Sha256.EMPTY, 0, "host-a", Instant.EPOCH);
  }

  @ParameterizedTest
  @EnumSource(PointerMode.class)
  void compareAndSetPointer_serverErrorForever_givesUpAtTheDeadlineNamingIt(PointerMode mode) throws IOException {
    // An empty script answers 500 InternalError to every request: a server that never recovers.
    try (S3ObjectStore store = store(mode, PATIENT, Duration.ofSeconds(10), true)) {
      IOException e = assertThrows(IOException.class,
          () -> store.compareAndSetPointer("orders", "1", pointer(), Duration.ofSeconds(5)));
      assertTrue(e.getMessage().contains(": the 5s deadline ran out after ")
          && e.getMessage().contains("InternalError"), e.getMessage());
    }
    assertTrue(nanos.get() <= Duration.ofSeconds(5).toNanos(), "backed off " + Duration.ofNanos(nanos.get()));
    int sent = server.requests().size();
    assertTrue(sent >= 2 && sent < 100, sent + " requests");
  }

  @ParameterizedTest
  @EnumSource(PointerMode.class)
  void compareAndSetPointer_conditionalConflictForever_busyAtTheDeadline(PointerMode mode) throws IOException {
    for (int i = 0; i < 200; i++) {
      server.then(error(409, "ConditionalRequestConflict", "another conditional write is in flight"));
    }
    try (S3ObjectStore store = store(mode, PATIENT, Duration.ofSeconds(10), true)) {
      assertEquals(CasResult.BUSY, store.compareAndSetPointer("orders", "1", pointer(), Duration.ofSeconds(3)));
    }
    assertTrue(nanos.get() <= Duration.ofSeconds(3).toNanos(), "backed off " + Duration.ofNanos(nanos.get()));
    assertTrue(server.requests().size() < 200, server.requests().size() + " requests");
  }

  @Test
  void compareAndSetPointer_zeroMaxWaitServerError_triesOnce() {
    try (S3ObjectStore store = store(PointerMode.CAS, PATIENT, Duration.ofSeconds(10), true)) {
      IOException e = assertThrows(IOException.class,
          () -> store.compareAndSetPointer("orders", "\"etag\"", pointer(), Duration.ZERO));
      assertTrue(e.getMessage().contains(": the 0s deadline ran out after 1 attempt;"), e.getMessage());
    }
    assertEquals(1, server.requests().size());
    assertEquals(0, nanos.get(), "no backoff");
  }

  @Test
  void compareAndSetPointer_serverSilentBeforeHeaders_endsAfterOneRequestTimeoutNamingTheDeadline() {
    for (int i = 0; i < 6; i++) {
      server.then(new Silent());
    }
    // Real time: the 2 s request timeout is what ends the silent request. Without the deadline the
    // client's six attempts would wait it six times.
    try (S3ObjectStore store = store(PointerMode.CAS, RetryPolicy.DEFAULT, Duration.ofSeconds(2), false)) {
      IOException e = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertThrows(IOException.class,
          () -> store.compareAndSetPointer("orders", "\"etag\"", pointer(), Duration.ofSeconds(1))));
      assertTrue(e.getMessage().contains(": the 1s deadline ran out after 1 attempt;")
          && e.getMessage().contains("read timeout: no reply within 2s"), e.getMessage());
    }
    assertEquals(1, server.requests().size(), "no retry started past the deadline");
  }
}
