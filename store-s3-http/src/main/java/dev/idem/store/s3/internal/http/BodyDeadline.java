package dev.idem.store.s3.internal.http;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A reply body that must be read whole by a deadline (B1).
 *
 * <p>Why: {@code java.net.http}'s request timeout covers only the wait for the response headers. A
 * server (or a proxy, or a half-dead connection) that sends headers and then stalls would make every
 * read of the body block forever: a listing, a GET, a pointer read, a credential fetch, and with the
 * last one the credential refresh lock every other request waits on.
 *
 * <p>What it guarantees: once the deadline passes, the wrapped stream is closed from a timer thread,
 * which wakes a read blocked in it (closing {@code java.net.http}'s body stream cancels the exchange),
 * and that read, and every later one, throws {@link Expired} (an {@link HttpTimeoutException}) naming
 * the request and the deadline. A read that ends (even with end of stream) after the deadline also throws, so a body cut
 * short by the close is never taken for a whole one. Closing this stream cancels the timer.
 *
 * <p>Failure state: after expiry the connection is gone and nothing of the body is trustworthy; the
 * caller retries the whole request or reports the exception. Thread-safe for one reader and the timer.
 */
public final class BodyDeadline extends FilterInputStream {
  /**
   * The slowest transfer rate a deadline from {@link #forBytes} allows: one MiB per second on top of the
   * base wait, the same rule the client applies to its uploads.
   */
  public static final long MIN_BYTES_PER_SECOND = 1024 * 1024;

  private static final ScheduledThreadPoolExecutor TIMER = timer();

  private final String request;
  private final Duration deadline;
  private final ScheduledFuture<?> expiry;
  private volatile boolean expired;

  private BodyDeadline(InputStream body, Duration deadline, String request) {
    super(body);
    this.request = request;
    this.deadline = deadline;
    this.expiry = TIMER.schedule(this::expire, deadline.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * {@code body}, to be read whole within {@code deadline} from now.
   *
   * @param request what to name in the timeout's message (no secrets: a method and resource, or an origin)
   */
  public static InputStream wrap(InputStream body, Duration deadline, String request) {
    Objects.requireNonNull(body, "body");
    Objects.requireNonNull(request, "request");
    if (deadline.isNegative() || deadline.isZero()) {
      throw new IllegalArgumentException("body deadline must be positive, was " + deadline);
    }
    return new BodyDeadline(body, deadline, request);
  }

  /** {@code base} plus one second per started {@link #MIN_BYTES_PER_SECOND} of {@code bytes}. */
  public static Duration forBytes(Duration base, long bytes) {
    return base.plusSeconds((Math.max(0, bytes) + MIN_BYTES_PER_SECOND - 1) / MIN_BYTES_PER_SECOND);
  }

  @Override
  public int read() throws IOException {
    try {
      return checked(super.read());
    } catch (IOException e) {
      throw expiredOr(e);
    }
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    try {
      return checked(super.read(b, off, len));
    } catch (IOException e) {
      throw expiredOr(e);
    }
  }

  @Override
  public long skip(long n) throws IOException {
    try {
      long skipped = super.skip(n);
      checked(0);
      return skipped;
    } catch (IOException e) {
      throw expiredOr(e);
    }
  }

  @Override
  public void close() throws IOException {
    expiry.cancel(false);
    super.close();
  }

  private int checked(int result) throws HttpTimeoutException {
    if (expired) {
      throw timeout();
    }
    return result;
  }

  private IOException expiredOr(IOException e) {
    if (!expired || e instanceof HttpTimeoutException) {
      return e;
    }
    HttpTimeoutException t = timeout();
    t.initCause(e);
    return t;
  }

  private HttpTimeoutException timeout() {
    return new Expired(request + ": reply body not received within " + deadline.toMillis()
        + " ms (the server sent headers, then stalled)");
  }

  /** The body was not read whole by its deadline: told apart from a timeout waiting for the headers. */
  public static final class Expired extends HttpTimeoutException {
    private static final long serialVersionUID = 1L;

    Expired(String message) {
      super(message);
    }
  }

  private void expire() {
    expired = true;
    try {
      in.close();
    } catch (IOException e) {
      // Closing is only to wake the reader; the reader reports the deadline either way.
    }
  }

  private static ScheduledThreadPoolExecutor timer() {
    ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
      Thread thread = new Thread(r, "idem-body-deadline");
      thread.setDaemon(true);
      return thread;
    });
    // Most bodies are read well before their deadline: drop their timers at once, not at the deadline.
    t.setRemoveOnCancelPolicy(true);
    return t;
  }
}
