package dev.idem.store.s3.internal.auth;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * A stand-in for STS, a container credentials endpoint or IMDS: an {@link HttpServer} bound
 * to 127.0.0.1 on an ephemeral port that answers from per-route handlers and records every
 * request. Unknown routes answer 404; stalling routes send headers and then nothing until the
 * server is closed. Close it to stop the server.
 */
final class LocalServer implements AutoCloseable {

  /** A recorded request; header lookups ignore case. */
  record Request(String method, String path, Map<String, List<String>> headers, String body) {

    String header(String name) {
      List<String> values = headers.get(name);
      return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** The body decoded as an HTML form. */
    Map<String, String> form() {
      Map<String, String> out = new LinkedHashMap<>();
      for (String pair : body.split("&")) {
        int eq = pair.indexOf('=');
        out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
      return out;
    }
  }

  /** A canned reply. */
  record Response(int status, String body) {
    static Response ok(String body) {
      return new Response(200, body);
    }
  }

  private final HttpServer server;
  private final ExecutorService handlers = Executors.newCachedThreadPool();
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final Map<String, Function<Request, Response>> routes = new ConcurrentHashMap<>();
  private final Set<String> stalling = ConcurrentHashMap.newKeySet();
  private final CountDownLatch closed = new CountDownLatch(1);
  private final CountDownLatch stallStarted = new CountDownLatch(1);

  private LocalServer(HttpServer server) {
    this.server = server;
    server.setExecutor(handlers);
  }

  static LocalServer start() {
    try {
      HttpServer server = HttpServer.create(
          new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      LocalServer local = new LocalServer(server);
      server.createContext("/", local::handle);
      server.start();
      return local;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Answers {@code method path} (path without query) with {@code handler}. */
  LocalServer route(String method, String path, Function<Request, Response> handler) {
    routes.put(method + " " + path, handler);
    return this;
  }

  /** Answers {@code method path} with a fixed reply. */
  LocalServer route(String method, String path, int status, String body) {
    return route(method, path, request -> new Response(status, body));
  }

  /** Answers {@code method path} with a 200 and the first byte of a body, then stalls until closed. */
  LocalServer stall(String method, String path) {
    stalling.add(method + " " + path);
    return this;
  }

  /** Returns once a stalling route has sent its headers to some request. */
  void awaitStalled() throws InterruptedException {
    stallStarted.await();
  }

  /** {@code http://127.0.0.1:<port>}. */
  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  List<Request> requests() {
    return List.copyOf(requests);
  }

  @Override
  public void close() {
    closed.countDown();
    server.stop(0);
    handlers.shutdownNow();
  }

  /** A port on 127.0.0.1 that nothing listens on, so connecting is refused at once. */
  static int closedPort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try {
      serve(exchange);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void serve(HttpExchange exchange) throws IOException, InterruptedException {
    try {
      Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
      exchange.getRequestHeaders().forEach((k, v) -> headers.put(k, List.copyOf(v)));
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      Request request = new Request(exchange.getRequestMethod(),
          exchange.getRequestURI().getRawPath(), headers, body);
      requests.add(request);
      if (stalling.contains(request.method() + " " + request.path())) {
        exchange.sendResponseHeaders(200, 100);
        exchange.getResponseBody().write('{');
        exchange.getResponseBody().flush();
        stallStarted.countDown();
        closed.await();
        return;
      }
      Function<Request, Response> handler =
          routes.get(request.method() + " " + request.path());
      Response response = handler == null ? new Response(404, "") : handler.apply(request);
      byte[] bytes = response.body().getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(response.status(), bytes.length == 0 ? -1 : bytes.length);
      if (bytes.length > 0) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(bytes);
        }
      }
    } finally {
      exchange.close();
    }
  }
}
