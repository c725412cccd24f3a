package dev.idem.store.s3.auth;

import dev.idem.store.s3.http.BodyDeadline;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
 * interrupt flag restored. It never logs and never puts request headers or bodies in an
 * exception message, since those carry tokens.
 */
final class CredentialHttp {

  static final int MAX_BODY_BYTES = 64 * 1024;

  /** How long a reply body may take when the request sets no timeout (every source sets one). */
  static final Duration DEFAULT_BODY_DEADLINE = Duration.ofSeconds(10);

  private CredentialHttp() {}

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
    HttpRequest built = request.version(HttpClient.Version.HTTP_1_1).build();
    HttpResponse<InputStream> response;
    try {
      response = http.send(built, HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for " + origin(built.uri()));
    }
    Duration deadline = built.timeout().orElse(DEFAULT_BODY_DEADLINE);
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
    if (message == null || message.isBlank() || message.length() > 120) {
      return kind;
    }
    return kind + ": " + message.replaceAll("[\\r\\n]+", " ");
  }
}
