package dev.idem.store.s3.internal.http;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.KeyManagementException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * HTTP clients that set up TLS only where a request can use it.
 *
 * <p>Why: {@code HttpClient.newBuilder().build()} takes {@code SSLContext.getDefault()}, which loads and
 * parses the JDK's trust store and sets up every cipher suite, whether or not the client ever speaks
 * TLS: the largest part of a fresh CLI process's start before the first request to a plain {@code
 * http://} endpoint (S3Proxy, MinIO or Ceph RGW inside a cluster, the tests). And the
 * credential sources' client (STS, the container endpoint, IMDS) is needed only when credentials do not
 * come from the environment or a profile file, which is most runs.
 *
 * <p>What it guarantees: {@link #forEndpoint} gives a client for an {@code http://} endpoint a TLS
 * context that refuses to be used, so a request that somehow reaches an {@code https://} address through
 * it fails with {@link IllegalStateException} naming the cause, never with an unchecked certificate;
 * any other scheme gets the JDK's default TLS, as before. {@link #lazily} defers building a client to
 * its first use and builds it once.
 */
public final class HttpClients {
  private HttpClients() {}

  /** A builder for a client that talks to {@code endpoint} (and to nothing with another scheme). */
  public static HttpClient.Builder forEndpoint(URI endpoint) {
    HttpClient.Builder b = HttpClient.newBuilder();
    if ("http".equalsIgnoreCase(endpoint.getScheme())) {
      // Given explicitly, the parameters keep the client from asking the context for its defaults.
      b.sslContext(new NoTls(endpoint)).sslParameters(new SSLParameters());
    }
    return b;
  }

  /** A client that calls {@code make} on its first use (any method), once, and delegates to what it made. */
  public static HttpClient lazily(Supplier<HttpClient> make) {
    return new Lazy(Objects.requireNonNull(make, "make"));
  }

  /** A TLS context for a client made for a plain-http endpoint: every use is refused. */
  static final class NoTls extends SSLContext {
    NoTls(URI endpoint) {
      super(new Refusing(endpoint), null, "none");
    }
  }

  private static final class Refusing extends SSLContextSpi {
    private final URI endpoint;

    Refusing(URI endpoint) {
      this.endpoint = endpoint;
    }

    private IllegalStateException refused() {
      return new IllegalStateException("no TLS: this HTTP client was made for the plain http endpoint " + endpoint);
    }

    @Override
    protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom sr) throws KeyManagementException {
      throw new KeyManagementException(refused().getMessage());
    }

    @Override
    protected SSLSocketFactory engineGetSocketFactory() {
      throw refused();
    }

    @Override
    protected SSLServerSocketFactory engineGetServerSocketFactory() {
      throw refused();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine() {
      throw refused();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine(String host, int port) {
      throw refused();
    }

    @Override
    protected SSLSessionContext engineGetServerSessionContext() {
      throw refused();
    }

    @Override
    protected SSLSessionContext engineGetClientSessionContext() {
      throw refused();
    }

    @Override
    protected SSLParameters engineGetDefaultSSLParameters() {
      throw refused();
    }

    @Override
    protected SSLParameters engineGetSupportedSSLParameters() {
      throw refused();
    }
  }

  /** Builds its client on first use; thread-safe, builds once. */
  private static final class Lazy extends HttpClient {
    private final Supplier<HttpClient> make;
    private volatile HttpClient made;

    Lazy(Supplier<HttpClient> make) {
      this.make = make;
    }

    private HttpClient client() {
      HttpClient c = made;
      if (c == null) {
        synchronized (this) {
          c = made;
          if (c == null) {
            c = Objects.requireNonNull(make.get(), "the lazily made HTTP client");
            made = c;
          }
        }
      }
      return c;
    }

    @Override
    public Optional<CookieHandler> cookieHandler() {
      return client().cookieHandler();
    }

    @Override
    public Optional<Duration> connectTimeout() {
      return client().connectTimeout();
    }

    @Override
    public Redirect followRedirects() {
      return client().followRedirects();
    }

    @Override
    public Optional<ProxySelector> proxy() {
      return client().proxy();
    }

    @Override
    public SSLContext sslContext() {
      return client().sslContext();
    }

    @Override
    public SSLParameters sslParameters() {
      return client().sslParameters();
    }

    @Override
    public Optional<Authenticator> authenticator() {
      return client().authenticator();
    }

    @Override
    public Version version() {
      return client().version();
    }

    @Override
    public Optional<Executor> executor() {
      return client().executor();
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
        throws IOException, InterruptedException {
      return client().send(request, handler);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
      return client().sendAsync(request, handler);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
        HttpResponse.PushPromiseHandler<T> push) {
      return client().sendAsync(request, handler, push);
    }
  }
}
