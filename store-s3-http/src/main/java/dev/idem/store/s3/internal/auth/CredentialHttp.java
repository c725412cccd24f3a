package dev.idem.store.s3.internal.auth;

import dev.idem.core.store.Deadline;
import dev.idem.core.store.DeadlineExceededException;
import dev.idem.store.s3.CredentialsException;
import dev.idem.store.s3.internal.http.BodyDeadline;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The one way credential sources talk HTTP: send a request, get the status and a small body.
 *
 * <p>Exists so every source gets the same safety rules: HTTP/1.1 (metadata endpoints do not
 * speak HTTP/2 and must not see an {@code h2c} upgrade), a reply body capped at
 * {@value #MAX_BODY_BYTES} bytes (a credential reply is a few KiB; anything larger is not
 * one) and read within the request's own timeout again ({@link BodyDeadline}: the HTTP client's
 * timeout ends at the headers, and a body that stalls would otherwise hold the credential
 * refresh lock, and every request waiting on it, forever), and an interrupt turned into {@link InterruptedIOException} with the thread's
 * interrupt flag restored. Each request waits at most its source's timeout ({@link Wait}), cut at the
 * end of the caller's budget when that comes first: a request cut so fails with a {@link
 * DeadlineExceededException} (the caller's deadline ran out), never with what would read as a broken
 * or absent source. It never logs and never puts request headers or bodies in an
 * exception message, since those carry tokens.
 */
final class CredentialHttp {

  static final int MAX_BODY_BYTES = 64 * 1024;

  /** How long a reply body may take when the request sets no timeout (every source sets one). */
  static final Duration DEFAULT_BODY_DEADLINE = Duration.ofSeconds(10);

  /** The AWS CLI's variable for how long each request to IMDS or a container endpoint may wait, in seconds. */
  static final String METADATA_TIMEOUT = "AWS_METADATA_SERVICE_TIMEOUT";

  private CredentialHttp() {}

  /**
   * How long one request may wait: {@code timeout} (what set it, for messages: {@code null} for the
   * source's own default), and no later than {@code end} on {@link System#nanoTime}, the end of the
   * caller's budget ({@link #NO_END} for none).
   */
  record Wait(Duration timeout, String setBy, long end) {
    static final long NO_END = Long.MAX_VALUE;

    /** {@code timeout}, ending {@code budget} from now ({@code null}: no budget). */
    static Wait of(Duration timeout, String setBy, Duration budget) {
      return new Wait(timeout, setBy, budget == null ? NO_END : System.nanoTime() + budget.toNanos());
    }

    long nanosLeft() {
      return end == NO_END ? Long.MAX_VALUE : end - System.nanoTime();
    }
  }

  /**
   * A metadata source's request timeout: {@value #METADATA_TIMEOUT} when set (a positive number of
   * seconds, as the AWS CLI reads it), else {@code fallback}.
   *
   * @throws CredentialsException naming the variable when it is not a positive number
   */
  static Wait metadataWait(EnvVars env, Duration fallback, String source, Duration budget) throws CredentialsException {
    String value = env.get(METADATA_TIMEOUT);
    if (value == null) {
      return Wait.of(fallback, null, budget);
    }
    Duration timeout;
    try {
      BigDecimal seconds = new BigDecimal(value);
      timeout = Duration.ofNanos(seconds.movePointRight(9).longValueExact());
    } catch (NumberFormatException | ArithmeticException e) {
      timeout = Duration.ZERO;
    }
    if (timeout.isZero() || timeout.isNegative()) {
      throw new CredentialsException(source + ": " + METADATA_TIMEOUT + " must be a positive number of seconds, was '"
          + value + "'");
    }
    return Wait.of(timeout, METADATA_TIMEOUT, budget);
  }

  /** A reply: the status code and the body decoded as UTF-8. */
  record Reply(int status, String body) {
    @Override
    public String toString() {
      return "Reply[status=" + status + ", body=<" + body.length() + " chars>]";
    }
  }

  /**
   * Sends {@code request}.
   *
   * @throws InterruptedIOException if the thread is interrupted while waiting
   * @throws IOException if the endpoint cannot be reached, times out (headers or body), or the
   *     reply body is larger than {@link #MAX_BODY_BYTES}
   */
  static Reply send(HttpClient http, HttpRequest.Builder request) throws IOException {
    return send(http, request, null);
  }

  /**
   * Sends {@code request}, its headers and its body each within {@code wait}'s timeout (the request's
   * own when {@code wait} is {@code null}), never past {@code wait}'s end.
   *
   * @param source the source's name, which starts a {@link DeadlineExceededException}'s message
   * @throws DeadlineExceededException when the end of the caller's budget cut the request, or came
   *     before it could be sent
   * @throws IOException as {@link #send(HttpClient, HttpRequest.Builder)}; a timeout of its own names
   *     the wait ({@code no reply within 5s})
   */
  static Reply send(HttpClient http, HttpRequest.Builder request, Wait wait, String source) throws IOException {
    URI uri = request.build().uri();
    long left = wait.nanosLeft();
    if (left <= 0) {
      throw new DeadlineExceededException(source + ": no time was left of the deadline to ask " + origin(uri), 0, null,
          null);
    }
    boolean cut = left < wait.timeout().toNanos();
    Duration timeout = cut ? Duration.ofNanos(left) : wait.timeout();
    try {
      return send(http, request.timeout(timeout), wait);
    } catch (HttpTimeoutException e) {
      if (cut || wait.nanosLeft() <= 0) {
        throw new DeadlineExceededException(source + ": " + origin(uri) + " did not answer within "
            + Deadline.format(timeout) + ", what was left of the deadline", 1, e, null);
      }
      if (e instanceof BodyDeadline.Expired || e instanceof HttpConnectTimeoutException) {
        throw e;
      }
      HttpTimeoutException named = new HttpTimeoutException("no reply within " + Deadline.format(timeout)
          + (wait.setBy() == null ? "" : ", " + wait.setBy()));
      named.initCause(e);
      throw named;
    }
  }

  private static Reply send(HttpClient http, HttpRequest.Builder request, Wait wait) throws IOException {
    HttpRequest built = request.version(HttpClient.Version.HTTP_1_1).build();
    HttpResponse<InputStream> response;
    try {
      response = http.send(built, HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for " + origin(built.uri()));
    }
    Duration deadline = built.timeout().orElse(DEFAULT_BODY_DEADLINE);
    if (wait != null && wait.nanosLeft() < deadline.toNanos()) {
      deadline = Duration.ofNanos(Math.max(1, wait.nanosLeft()));
    }
    try (InputStream body = BodyDeadline.wrap(response.body(), deadline, origin(built.uri()))) {
      byte[] bytes = body.readNBytes(MAX_BODY_BYTES + 1);
      if (bytes.length > MAX_BODY_BYTES) {
        throw new IOException("reply from " + origin(built.uri()) + " is larger than "
            + MAX_BODY_BYTES + " bytes");
      }
      return new Reply(response.statusCode(), new String(bytes, StandardCharsets.UTF_8));
    }
  }

  /**
   * {@code scheme://host[:port]} of {@code uri}: safe for messages, since user info, path and
   * query (where a misconfigured endpoint might carry a token) are left out.
   */
  static String origin(URI uri) {
    String host = uri.getHost() != null ? uri.getHost() : "?";
    return uri.getScheme() + "://" + host + (uri.getPort() == -1 ? "" : ":" + uri.getPort());
  }

  /** A short, secret-free description of why {@code e} happened, for one-line messages. */
  static String reason(IOException e) {
    String message = e.getMessage();
    String kind = e.getClass().getSimpleName();
    if (e.getClass() == HttpTimeoutException.class && message != null && message.startsWith("no reply within ")) {
      return message;
    }
    if (message == null || message.isBlank() || message.length() > 120) {
      return kind;
    }
    return kind + ": " + message.replaceAll("[\\r\\n]+", " ");
  }
}
