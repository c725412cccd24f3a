package dev.idem.store.s3.internal.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.idem.store.s3.internal.auth.CredentialChain;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HttpClients}: a client for a plain-http endpoint works without TLS and refuses to speak TLS; a
 * lazy client is built on its first use, once; credentials from the environment build no HTTP client;
 * a released client's thread has ended, on every JDK this build runs on.
 */
class HttpClientsTest {
  private HttpServer server;
  private final AtomicInteger served = new AtomicInteger();
  @TempDir Path home;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      served.incrementAndGet();
      byte[] body = exchange.getRequestURI().getPath().equals("/creds")
          ? "{\"AccessKeyId\":\"AKIDFROMHTTP\",\"SecretAccessKey\":\"s\"}".getBytes(StandardCharsets.UTF_8)
          : "plain".getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private URI at(String scheme, String path) {
    return URI.create(scheme + "://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  private static HttpResponse<String> get(HttpClient client, URI uri) throws IOException, InterruptedException {
    return client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void forPlainHttp_noDefaultTlsAndRequestsWork() throws Exception {
    HttpClient client = HttpClients.forEndpoint(at("http", "/")).build();
    assertInstanceOf(HttpClients.NoTls.class, client.sslContext(), "the JDK's default TLS context is not taken");
    HttpResponse<String> r = get(client, at("http", "/x"));
    assertEquals(200, r.statusCode());
    assertEquals("plain", r.body());
  }

  /** The same client sent to an https address fails closed, naming why, before any byte is trusted. */
  @Test
  void forPlainHttp_anHttpsRequestIsRefusedNotTrusted() {
    HttpClient client = HttpClients.forEndpoint(at("HTTP", "/")).build();
    Exception e = assertThrows(Exception.class, () -> get(client, at("https", "/x")));
    List<String> messages = new ArrayList<>();
    for (Throwable t = e; t != null; t = t.getCause()) {
      messages.add(String.valueOf(t.getMessage()));
    }
    assertTrue(messages.stream().anyMatch(m -> m.contains("no TLS: this HTTP client was made for the plain http"
        + " endpoint HTTP://127.0.0.1:")), messages.toString());
    assertEquals(0, served.get(), "nothing reached the server as a request");
  }

  @Test
  void forHttps_theJdkDefaultTls() throws Exception {
    HttpClient client = HttpClients.forEndpoint(URI.create("https://s3.eu-west-1.amazonaws.com")).build();
    assertSame(SSLContext.getDefault(), client.sslContext());
  }

  @Test
  void lazily_builtOnFirstUseOnlyAndOnce() throws Exception {
    AtomicInteger built = new AtomicInteger();
    HttpClient lazy = HttpClients.lazily(() -> {
      built.incrementAndGet();
      return HttpClients.forEndpoint(at("http", "/")).connectTimeout(Duration.ofSeconds(3)).build();
    });
    assertEquals(0, built.get(), "not built by being made");
    int threads = 4;
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> senders = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Thread t = new Thread(() -> {
        try {
          go.await();
          assertEquals("plain", get(lazy, at("http", "/y")).body());
        } catch (Throwable x) {
          synchronized (failures) {
            failures.add(x);
          }
        }
      });
      t.start();
      senders.add(t);
    }
    go.countDown();
    for (Thread t : senders) {
      t.join();
    }
    assertEquals(List.of(), failures);
    assertEquals(1, built.get(), "built once for all threads");
    assertEquals(Duration.ofSeconds(3), lazy.connectTimeout().orElseThrow(), "settings are the built client's");
    assertInstanceOf(HttpClients.NoTls.class, lazy.sslContext());
    assertEquals(HttpClient.Redirect.NEVER, lazy.followRedirects());
    assertEquals(threads, served.get());
    assertEquals(1, built.get());
  }

  @Test
  void credentialChain_environmentCredentialsBuildNoHttpClient_anHttpSourceBuildsIt() throws Exception {
    AtomicInteger built = new AtomicInteger();
    HttpClient lazy = HttpClients.lazily(() -> {
      built.incrementAndGet();
      return HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    });
    Map<String, String> env = Map.of("AWS_ACCESS_KEY_ID", "AKIDFROMENV", "AWS_SECRET_ACCESS_KEY", "s");
    assertEquals("AKIDFROMENV", CredentialChain.standard(env, home, lazy, Clock.systemUTC()).resolve().accessKeyId());
    assertEquals(0, built.get(), "credentials from the environment need no HTTP client");

    Map<String, String> container = Map.of("AWS_CONTAINER_CREDENTIALS_FULL_URI", at("http", "/creds").toString());
    assertEquals("AKIDFROMHTTP",
        CredentialChain.standard(container, home, lazy, Clock.systemUTC()).resolve().accessKeyId());
    assertEquals(1, built.get(), "a source that needs HTTP builds the client");
  }

  /**
   * The thread that would hold the JVM's exit 0.3 s ends: the JDK names it {@code
   * HttpClient-<id>-SelectorManager} (its id in the client's {@code toString}), on JDK 17 and 25 alike.
   */
  @Test
  void release_theClientsSelectorThreadEnds() throws Exception {
    HttpClient client = HttpClients.forEndpoint(at("http", "/")).build();
    HttpClient other = HttpClients.forEndpoint(at("http", "/")).build();
    assertEquals("plain", get(client, at("http", "/x")).body());
    assertEquals("plain", get(other, at("http", "/x")).body());
    Thread selector = HttpClients.selectorThread(client);
    assertNotNull(selector, "the client's selector thread is found by its name");
    Thread othersSelector = HttpClients.selectorThread(other);
    assertNotSame(selector, othersSelector, "each client has its own");

    HttpClients.release(client, Duration.ofSeconds(10));

    assertFalse(selector.isAlive(), selector.getName() + " ended");
    assertTrue(othersSelector.isAlive(), "another client is left running");
    assertEquals("plain", get(other, at("http", "/y")).body());
  }

  @Test
  void release_aLazyClientNeverMade_staysUnmade_aMadeOneEndsAndRefusesUse() throws Exception {
    AtomicInteger built = new AtomicInteger();
    HttpClient lazy = HttpClients.lazily(() -> {
      built.incrementAndGet();
      return HttpClients.forEndpoint(at("http", "/")).build();
    });
    HttpClients.release(lazy, Duration.ofSeconds(10));
    assertEquals(0, built.get(), "releasing does not build it");
    assertThrows(IllegalStateException.class, () -> get(lazy, at("http", "/x")), "nor does a use after it");
    assertEquals(0, built.get());

    HttpClient made = HttpClients.lazily(() -> HttpClients.forEndpoint(at("http", "/")).build());
    assertEquals("plain", get(made, at("http", "/x")).body());
    Thread selector = HttpClients.selectorThread(made);
    assertNotNull(selector, "found through the lazy client");
    HttpClients.release(made, Duration.ofSeconds(10));
    assertFalse(selector.isAlive(), selector.getName() + " ended");
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> get(made, at("http", "/z")));
    assertTrue(e.getMessage().contains("released"), e.getMessage());
  }

  /**
   * A release while a send waits for its reply leaves the client to it: on JDK 17 a stopped client
   * would leave that send waiting for ever. New sends are refused at once all the same.
   */
  @Test
  void release_aSendWaitingForItsReply_getsItsReply() throws Exception {
    CountDownLatch arrived = new CountDownLatch(1);
    CountDownLatch answer = new CountDownLatch(1);
    server.createContext("/slow", exchange -> {
      arrived.countDown();
      try {
        answer.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      byte[] body = "slow".getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    HttpClient lazy = HttpClients.lazily(() -> HttpClients.forEndpoint(at("http", "/")).build());
    ExecutorService sender = Executors.newSingleThreadExecutor();
    try {
      Future<String> waiting = sender.submit(() -> get(lazy, at("http", "/slow")).body());
      assertTrue(arrived.await(10, TimeUnit.SECONDS), "the request reached the server");

      // B1: the release's own wait is bounded even while the send it leaves waits on.
      assertTimeoutPreemptively(Duration.ofSeconds(10), () -> HttpClients.release(lazy, Duration.ofMillis(100)));
      assertThrows(IllegalStateException.class, () -> get(lazy, at("http", "/x")), "a new send is refused");
      answer.countDown();

      assertEquals("slow", waiting.get(30, TimeUnit.SECONDS), "the send in flight got its reply");
    } finally {
      answer.countDown();
      sender.shutdownNow();
    }
  }

  @Test
  void credentialChain_closeReleasesAnOwnedClientOnly() throws Exception {
    Map<String, String> container = Map.of("AWS_CONTAINER_CREDENTIALS_FULL_URI", at("http", "/creds").toString());
    HttpClient owned = HttpClients.lazily(() -> HttpClients.forEndpoint(at("http", "/")).build());
    CredentialChain owning = CredentialChain.owning(container, home, owned, Clock.systemUTC());
    assertEquals("AKIDFROMHTTP", owning.resolve().accessKeyId());
    Thread selector = HttpClients.selectorThread(owned);
    assertNotNull(selector, "the container source made the client");
    owning.close();
    selector.join(10_000);
    assertFalse(selector.isAlive(), selector.getName() + " ended");

    HttpClient lent = HttpClients.forEndpoint(at("http", "/")).build();
    CredentialChain borrowing = CredentialChain.standard(container, home, lent, Clock.systemUTC());
    assertEquals("AKIDFROMHTTP", borrowing.resolve().accessKeyId());
    borrowing.close();
    assertEquals("plain", get(lent, at("http", "/x")).body(), "a lent client stays the lender's");
  }

  @Test
  void defaultHttp_isLazy() {
    HttpClient http = CredentialChain.defaultHttp();
    assertEquals(HttpClient.Redirect.NEVER, http.followRedirects());
    assertEquals(Duration.ofSeconds(1), http.connectTimeout().orElseThrow());
  }
}
