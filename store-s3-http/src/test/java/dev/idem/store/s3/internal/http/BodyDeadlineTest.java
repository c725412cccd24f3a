package dev.idem.store.s3.internal.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The body deadline on its own, with a stream that blocks until closed standing in for a stalled server. */
class BodyDeadlineTest {
  /** One byte, then a read that blocks until the stream is closed, as java.net.http's body stream does. */
  private static final class StalledBody extends InputStream {
    private final CountDownLatch closed = new CountDownLatch(1);
    private boolean sentFirst;

    @Override
    public int read() throws IOException {
      if (!sentFirst) {
        sentFirst = true;
        return 'x';
      }
      try {
        closed.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException();
      }
      throw new IOException("closed");
    }

    @Override
    public void close() {
      closed.countDown();
    }
  }

  @Test
  void read_blockedPastTheDeadline_wokenWithATimeoutNamingTheRequest() throws IOException {
    // 1 s, not less: the first byte must be read before the deadline, and at 50 ms a loaded machine
    // (load 30) once let the deadline fire first.
    try (InputStream body = BodyDeadline.wrap(new StalledBody(), Duration.ofSeconds(1), "GET bkt/k")) {
      assertEquals('x', body.read());

      HttpTimeoutException e = assertTimeoutPreemptively(Duration.ofSeconds(60),
          () -> assertThrows(HttpTimeoutException.class, body::read));

      assertEquals("GET bkt/k: reply body not received within 1000 ms (the server sent headers, then stalled)",
          e.getMessage());
      assertEquals("closed", e.getCause().getMessage());
      assertThrows(HttpTimeoutException.class, body::read, "and every later read");
    }
  }

  @Test
  void read_wholeBodyBeforeTheDeadline_bytesUnchanged() throws IOException {
    byte[] bytes = {1, 2, 3};
    try (InputStream body = BodyDeadline.wrap(new ByteArrayInputStream(bytes), Duration.ofMinutes(1), "GET bkt/k")) {
      assertArrayEquals(bytes, body.readAllBytes());
    }
  }

  @Test
  void forBytes_oneSecondPerStartedMiB() {
    assertEquals(Duration.ofSeconds(60), BodyDeadline.forBytes(Duration.ofSeconds(60), 0));
    assertEquals(Duration.ofSeconds(61), BodyDeadline.forBytes(Duration.ofSeconds(60), 1));
    assertEquals(Duration.ofSeconds(61), BodyDeadline.forBytes(Duration.ofSeconds(60), 1024 * 1024));
    assertEquals(Duration.ofSeconds(62), BodyDeadline.forBytes(Duration.ofSeconds(60), 1024 * 1024 + 1));
  }

  @Test
  void wrap_zeroDeadline_refused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> BodyDeadline.wrap(new ByteArrayInputStream(new byte[0]), Duration.ZERO, "GET bkt/k"));
    assertTrue(e.getMessage().startsWith("body deadline must be positive"), e.getMessage());
  }
}
