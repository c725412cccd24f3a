package dev.idem.store.s3.testing;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;

/**
 * An {@link HttpClient} whose replies carry a {@code Date} header moved by an offset the test sets, or
 * none at all: the server's clock as a store reads it, advanced or set back without waiting and without
 * touching the server's stored times ({@code LastModified} in listings is left as the server wrote it).
 * Everything else is the real reply.
 */
public final class DateShiftingHttpClient extends HttpClient {
  private final HttpClient delegate;
  private volatile Duration shift = Duration.ZERO;
  private volatile boolean dropped;

  /** Sends with a plain HTTP/1.1 client. */
  public DateShiftingHttpClient() {
    this(HttpClient.newBuilder().version(Version.HTTP_1_1).build());
  }

  /** Sends with {@code delegate} (one that counts or intercepts requests). */
  public DateShiftingHttpClient(HttpClient delegate) {
    this.delegate = delegate;
  }

  /** From now on every reply's {@code Date} is the server's moved by {@code shift}. */
  public void shift(Duration shift) {
    this.shift = shift;
    this.dropped = false;
  }

  /** From now on replies carry no {@code Date} at all. */
  public void dropDate() {
    this.dropped = true;
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws IOException, InterruptedException {
    HttpResponse<T> reply = delegate.send(request, handler);
    Map<String, List<String>> moved = new LinkedHashMap<>();
    reply.headers().map().forEach((name, values) -> {
      if (!name.equalsIgnoreCase("Date")) {
        moved.put(name, values);
      } else if (!dropped) {
        moved.put(name, values.stream().map(this::moved).toList());
      }
    });
    HttpHeaders headers = HttpHeaders.of(moved, (name, value) -> true);
    return new HttpResponse<>() {
      @Override
      public int statusCode() {
        return reply.statusCode();
      }

      @Override
      public HttpRequest request() {
        return reply.request();
      }

      @Override
      public Optional<HttpResponse<T>> previousResponse() {
        return reply.previousResponse();
      }

      @Override
      public HttpHeaders headers() {
        return headers;
      }

      @Override
      public T body() {
        return reply.body();
      }

      @Override
      public Optional<SSLSession> sslSession() {
        return reply.sslSession();
      }

      @Override
      public URI uri() {
        return reply.uri();
      }

      @Override
      public Version version() {
        return reply.version();
      }
    };
  }

  private String moved(String date) {
    return DateTimeFormatter.RFC_1123_DATE_TIME.format(
        ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME).plus(shift).withZoneSameInstant(ZoneOffset.UTC));
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    throw new UnsupportedOperationException("the S3 client sends synchronously");
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
      HttpResponse.PushPromiseHandler<T> push) {
    throw new UnsupportedOperationException("the S3 client sends synchronously");
  }

  @Override
  public Optional<CookieHandler> cookieHandler() {
    return delegate.cookieHandler();
  }

  @Override
  public Optional<Duration> connectTimeout() {
    return delegate.connectTimeout();
  }

  @Override
  public Redirect followRedirects() {
    return delegate.followRedirects();
  }

  @Override
  public Optional<ProxySelector> proxy() {
    return delegate.proxy();
  }

  @Override
  public SSLContext sslContext() {
    return delegate.sslContext();
  }

  @Override
  public SSLParameters sslParameters() {
    return delegate.sslParameters();
  }

  @Override
  public Optional<Authenticator> authenticator() {
    return delegate.authenticator();
  }

  @Override
  public Version version() {
    return delegate.version();
  }

  @Override
  public Optional<Executor> executor() {
    return delegate.executor();
  }
}
