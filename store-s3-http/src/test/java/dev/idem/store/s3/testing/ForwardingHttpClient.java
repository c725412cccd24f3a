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
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;

/**
 * An {@link HttpClient} that hands every request to another one: the base of the test clients that
 * change what the S3 store sends or receives, so each states only its change. Synchronous only, as the
 * S3 client is.
 */
public abstract class ForwardingHttpClient extends HttpClient {
  protected final HttpClient delegate;

  protected ForwardingHttpClient(HttpClient delegate) {
    this.delegate = delegate;
  }

  /** A plain HTTP/1.1 client, what the tests' clients forward to unless told otherwise. */
  protected static HttpClient plain() {
    return HttpClient.newBuilder().version(Version.HTTP_1_1).build();
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws IOException, InterruptedException {
    return delegate.send(request, handler);
  }

  /**
   * A reply to {@code request} with {@code status}, {@code headers} and {@code body}, as HTTP/1.1 over
   * plain http; {@code ssl} is the TLS session, when there was one.
   */
  protected static <T> HttpResponse<T> reply(HttpRequest request, int status, HttpHeaders headers, T body,
      Optional<SSLSession> ssl) {
    return new HttpResponse<>() {
      @Override
      public int statusCode() {
        return status;
      }

      @Override
      public HttpRequest request() {
        return request;
      }

      @Override
      public Optional<HttpResponse<T>> previousResponse() {
        return Optional.empty();
      }

      @Override
      public HttpHeaders headers() {
        return headers;
      }

      @Override
      public T body() {
        return body;
      }

      @Override
      public Optional<SSLSession> sslSession() {
        return ssl;
      }

      @Override
      public URI uri() {
        return request.uri();
      }

      @Override
      public Version version() {
        return Version.HTTP_1_1;
      }
    };
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
