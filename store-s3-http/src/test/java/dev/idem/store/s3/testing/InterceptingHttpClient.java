package dev.idem.store.s3.testing;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * An {@link HttpClient} that runs a test's hook before each synchronous request and then sends it
 * with a real client: the seam for faults and latches keyed on one request (fail UploadPart number 2
 * on every attempt, hold parts until two are in flight) that a TCP proxy cannot single out. The hook
 * runs on the sending thread; what it throws is what {@code send} throws.
 */
public final class InterceptingHttpClient extends HttpClient {

  /** Runs before a request is sent. */
  @FunctionalInterface
  public interface Hook {
    void before(HttpRequest request) throws IOException, InterruptedException;
  }

  private final HttpClient delegate;
  private final Hook hook;
  private final java.util.function.Consumer<HttpRequest> after;

  public InterceptingHttpClient(Hook hook) {
    this(hook, request -> { });
  }

  /** @param after runs when the request's reply arrived or sending it failed */
  public InterceptingHttpClient(Hook hook, java.util.function.Consumer<HttpRequest> after) {
    this.delegate = HttpClient.newBuilder().version(Version.HTTP_1_1).build();
    this.hook = hook;
    this.after = after;
  }

  /** Whether {@code request} is UploadPart number {@code part}. */
  public static boolean isPart(HttpRequest request, int part) {
    String q = request.uri().getRawQuery();
    return "PUT".equals(request.method()) && q != null && q.contains("partNumber=" + part + "&");
  }

  /** Whether {@code request} is any UploadPart. */
  public static boolean isPart(HttpRequest request) {
    String q = request.uri().getRawQuery();
    return "PUT".equals(request.method()) && q != null && q.contains("partNumber=");
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws IOException, InterruptedException {
    try {
      hook.before(request);
      return delegate.send(request, handler);
    } finally {
      after.accept(request);
    }
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
