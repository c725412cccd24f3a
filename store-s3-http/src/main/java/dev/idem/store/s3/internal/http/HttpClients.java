package dev.idem.store.s3.internal.http;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
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
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * its first use and builds it once. {@link #release} stops a client's selector thread, so a process
 * done with its clients ends without waiting for it.
 */
public final class HttpClients {
  /** The JDK's client {@code toString}: its class and identity, then its id in parentheses. */
  private static final Pattern CLIENT_ID = Pattern.compile(".*\\((\\d+)\\)");

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

  /**
   * Stops {@code client}'s selector thread and waits up to {@code wait} for it to end. A {@linkplain
   * #lazily lazy} client refuses every new use at once, and is not made if it was not yet; its sends
   * already waiting for their replies get {@code wait} to finish, and if one is still waiting then, the
   * client is left running. Any other client must not be in use, nor used again (on JDK 17-20 a request
   * would never be answered).
   *
   * <p>Why: every JDK HttpClient keeps a selector thread, and while the client is idle that thread sits
   * in native code ({@code epoll_wait}). The JVM's exit, whether by {@code System.exit} or by the last
   * non-daemon thread ending, waits up to 300 ms for threads in native code to come back (HotSpot's
   * {@code VM_Exit::wait_for_threads_in_native_to_block}), so every command that used a client ended
   * 0.3 s after its work (BENCHMARKS.md, "Large outputs"). On JDK 21 and later this calls the client's
   * {@code shutdownNow} (looked up at run time: this code is compiled for Java 17). JDK 17-20 have no way
   * to stop a client, so there its selector thread, named {@code HttpClient-<id>-SelectorManager} after
   * the id its {@code toString} ends with, is interrupted, which ends it; a client whose thread is not
   * found that way is left running, which costs the exit its wait and nothing else.
   */
  public static void release(HttpClient client, Duration wait) throws InterruptedException {
    HttpClient target = client;
    if (client instanceof Lazy) {
      Lazy lazy = (Lazy) client;
      target = lazy.release();
      // A send still waiting for its reply is left to finish: on JDK 17-20 stopping the client under it
      // would leave it waiting for ever (its timeout is the stopped thread's to fire). The client then
      // runs on, which costs the process's exit its wait and nothing else.
      if (target == null || !lazy.awaitNoSend(wait)) {
        return;
      }
    }
    Method shutdownNow;
    Method awaitTermination;
    try {
      shutdownNow = HttpClient.class.getMethod("shutdownNow");
      awaitTermination = HttpClient.class.getMethod("awaitTermination", Duration.class);
    } catch (NoSuchMethodException beforeJdk21) {
      Thread selector = selectorThread(target);
      if (selector != null) {
        selector.interrupt();
        selector.join(Math.max(1, wait.toMillis()));
      }
      return;
    }
    try {
      shutdownNow.invoke(target);
      awaitTermination.invoke(target, wait);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("HttpClient's public shutdown methods refused a call", e);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof InterruptedException) {
        throw (InterruptedException) e.getCause();
      }
      if (e.getCause() instanceof RuntimeException) {
        throw (RuntimeException) e.getCause();
      }
      throw new IllegalStateException("stopping " + target + " failed", e.getCause());
    }
  }

  /** The live selector thread of {@code client} (or of the client a lazy one made) as the JDK names it, or null. */
  static Thread selectorThread(HttpClient client) {
    HttpClient target = client instanceof Lazy ? ((Lazy) client).made : client;
    if (target == null) {
      return null;
    }
    Matcher id = CLIENT_ID.matcher(target.toString());
    if (!id.matches()) {
      return null;
    }
    String name = "HttpClient-" + id.group(1) + "-SelectorManager";
    ThreadGroup root = Thread.currentThread().getThreadGroup();
    while (root.getParent() != null) {
      root = root.getParent();
    }
    Thread[] threads = new Thread[root.activeCount() + 16];
    int n = root.enumerate(threads, true);
    for (int i = 0; i < n; i++) {
      if (threads[i].getName().equals(name)) {
        return threads[i];
      }
    }
    return null;
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

  /**
   * Builds its client on first use; thread-safe, builds once. Once {@linkplain #release released} it
   * refuses every use with {@link IllegalStateException}, on every JDK (a JDK 17-20 client whose selector
   * thread has ended would take a request and never answer it). Counts the sends waiting for their
   * replies, so a release does not stop the client under one.
   */
  private static final class Lazy extends HttpClient {
    private final Supplier<HttpClient> make;
    private volatile HttpClient made;
    private volatile boolean released;
    /** Sends whose reply headers have not come yet; guarded by this. */
    private int sending;

    Lazy(Supplier<HttpClient> make) {
      this.make = make;
    }

    private HttpClient client() {
      HttpClient c = made;
      if (c == null || released) {
        synchronized (this) {
          if (released) {
            throw new IllegalStateException("this HTTP client was released; its owner is closed");
          }
          c = made;
          if (c == null) {
            c = Objects.requireNonNull(make.get(), "the lazily made HTTP client");
            made = c;
          }
        }
      }
      return c;
    }

    /** Refuses every use from now on; the client made so far, or null. */
    synchronized HttpClient release() {
      released = true;
      return made;
    }

    private synchronized HttpClient beginSend() {
      HttpClient c = client();
      sending++;
      return c;
    }

    private synchronized void endSend() {
      if (--sending == 0) {
        notifyAll();
      }
    }

    /** Waits up to {@code wait} for the sends in flight to get their replies; whether none is left. */
    synchronized boolean awaitNoSend(Duration wait) throws InterruptedException {
      long end = System.nanoTime() + wait.toNanos();
      while (sending > 0) {
        long left = end - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return true;
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
      HttpClient c = beginSend();
      try {
        return c.send(request, handler);
      } finally {
        endSend();
      }
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
      return sendAsync(request, handler, null);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
        HttpResponse.PushPromiseHandler<T> push) {
      HttpClient c = beginSend();
      try {
        return c.sendAsync(request, handler, push).whenComplete((reply, failure) -> endSend());
      } catch (RuntimeException | Error e) {
        endSend();
        throw e;
      }
    }
  }
}
