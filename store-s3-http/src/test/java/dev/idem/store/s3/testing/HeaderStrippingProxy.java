package dev.idem.store.s3.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.idem.store.s3.auth.AwsCredentials;
import dev.idem.store.s3.auth.SigV4Signer;
import dev.idem.store.s3.client.ObjectVersion;
import dev.idem.store.s3.client.S3Client;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An S3 gateway on 127.0.0.1 that drops chosen request headers before passing requests on to a real S3
 * server, as an older MinIO, a gateway or a header-stripping proxy effectively does: the server then
 * never sees {@code If-None-Match} or {@code If-Match} and applies the write unconditionally.
 *
 * <p>{@link #refusingMarkersThatAreNotKeys} makes it a gateway that strips nothing but answers a
 * ListObjectVersions whose {@code key-marker} names no key of the bucket with 404 {@code NoSuchKey}, as
 * LocalS3 does, instead of passing it on; a {@code key-marker} that is a common prefix of the keys is
 * let through only in a listing with that delimiter (S3 hands such markers out in delimiter listings).
 * Where the S3 API lets a key-marker be any string, this is the strictest reading a server may make.
 *
 * <p>Because the client signed the headers it sent, the proxy re-signs each forwarded request with the
 * test credentials (a real gateway in front of S3 signs with its own). It forwards the method, the raw
 * path and query, the body, conditional and {@code x-amz-meta-*} headers and {@code Content-Type}, and
 * relays the reply's status, headers and body. Bodies are buffered: it is for small test objects.
 */
public final class HeaderStrippingProxy implements AutoCloseable {
  private static final Set<String> HOP_BY_HOP = Set.of("content-length", "transfer-encoding", "connection", "date",
      "keep-alive");

  private final HttpServer server;
  private final ExecutorService executor;
  private final URI upstream;
  private final String region;
  private final AwsCredentials credentials;
  private final Set<String> stripped;
  private final String onlyMethod;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NEVER).build();
  private final SigV4Signer signer = new SigV4Signer(Clock.systemUTC());
  private final AtomicInteger strippedCount = new AtomicInteger();
  private final S3Client upstreamClient;
  private final boolean keyMarkersMustBeKeys;
  private final AtomicInteger keyMarkersPassed = new AtomicInteger();
  private final List<String> keyMarkersRefused = new CopyOnWriteArrayList<>();

  /** A proxy to {@code server} that removes {@code headers} (names in any case) from every request. */
  public HeaderStrippingProxy(S3TestServer server, String... headers) throws IOException {
    this(server, (String) null, List.of(headers), false);
  }

  /**
   * A proxy to {@code server} that strips nothing and refuses, with 404 {@code NoSuchKey}, a
   * ListObjectVersions whose {@code key-marker} is neither a key of the bucket nor, in a delimiter
   * listing, a common prefix of its keys.
   */
  public static HeaderStrippingProxy refusingMarkersThatAreNotKeys(S3TestServer server) throws IOException {
    return new HeaderStrippingProxy(server, null, List.of(), true);
  }

  /**
   * A proxy that removes {@code headers} only from requests with HTTP method {@code method} (e.g. {@code
   * POST}: CompleteMultipartUpload, not PutObject).
   */
  public static HeaderStrippingProxy onMethod(S3TestServer server, String method, String... headers)
      throws IOException {
    return new HeaderStrippingProxy(server, method, List.of(headers), false);
  }

  private HeaderStrippingProxy(S3TestServer server, String method, List<String> headers, boolean keyMarkersMustBeKeys)
      throws IOException {
    this.onlyMethod = method;
    this.upstreamClient = server.client();
    this.keyMarkersMustBeKeys = keyMarkersMustBeKeys;
    this.upstream = server.endpoint();
    this.region = S3TestServer.REGION;
    this.credentials = AwsCredentials.of(S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY);
    this.stripped = Set.copyOf(headers.stream().map(h -> h.toLowerCase(Locale.ROOT)).toList());
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    this.executor = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "header-stripping-proxy");
      t.setDaemon(true);
      return t;
    });
    this.server.setExecutor(executor);
    this.server.createContext("/", this::forward);
    this.server.start();
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** How many request headers were removed so far, so a test can tell the proxy did its job. */
  public int strippedCount() {
    return strippedCount.get();
  }

  /** How many ListObjectVersions key-markers were checked and passed on. */
  public int keyMarkersPassed() {
    return keyMarkersPassed.get();
  }

  /** The ListObjectVersions key-markers refused so far, in order. */
  public List<String> keyMarkersRefused() {
    return List.copyOf(keyMarkersRefused);
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  private void forward(HttpExchange exchange) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      URI requested = exchange.getRequestURI();
      if (keyMarkersMustBeKeys && method.equals("GET") && !keyMarkerNamesAKey(requested)) {
        byte[] xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>NoSuchKey</Code><Message>The"
            + " specified key does not exist.</Message></Error>").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/xml");
        exchange.sendResponseHeaders(404, xml.length);
        try (OutputStream o = exchange.getResponseBody()) {
          o.write(xml);
        }
        return;
      }
      URI target = URI.create(upstream + requested.getRawPath()
          + (requested.getRawQuery() != null ? "?" + requested.getRawQuery() : ""));
      Map<String, List<String>> headers = new LinkedHashMap<>();
      exchange.getRequestHeaders().forEach((name, values) -> {
        String lower = name.toLowerCase(Locale.ROOT);
        if (stripped.contains(lower) && (onlyMethod == null || onlyMethod.equals(method))) {
          strippedCount.incrementAndGet();
        } else if (lower.startsWith("if-") || lower.startsWith("x-amz-meta-") || lower.equals("content-type")) {
          headers.put(lower, values);
        }
      });
      String sha = body.length == 0 ? SigV4Signer.EMPTY_SHA256 : SigV4Signer.sha256Hex(body);
      Map<String, String> auth = signer.sign(method, target, headers, sha, credentials, region, "s3");
      HttpRequest.Builder request = HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(30))
          .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofByteArray(body));
      headers.forEach((name, values) -> values.forEach(v -> request.header(name, v)));
      auth.forEach(request::header);
      HttpResponse<byte[]> reply;
      try {
        reply = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted forwarding " + method + " " + target, e);
      }
      reply.headers().map().forEach((name, values) -> {
        if (!HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT))) {
          exchange.getResponseHeaders().put(name, values);
        }
      });
      boolean head = method.equals("HEAD");
      if (head) {
        reply.headers().firstValue("Content-Length").ifPresent(l -> exchange.getResponseHeaders().set("Content-Length", l));
      }
      byte[] out = reply.body();
      exchange.sendResponseHeaders(reply.statusCode(), head || out.length == 0 ? -1 : out.length);
      if (!head && out.length > 0) {
        try (OutputStream o = exchange.getResponseBody()) {
          o.write(out);
        }
      }
    }
  }

  /**
   * Whether a request is no ListObjectVersions with a key-marker, or one whose key-marker is a key of
   * the bucket or, in a delimiter listing, a common prefix of its keys (asked of the server itself).
   */
  private boolean keyMarkerNamesAKey(URI requested) throws IOException {
    Map<String, String> query = new LinkedHashMap<>();
    String raw = requested.getRawQuery();
    for (String pair : raw == null ? new String[0] : raw.split("&")) {
      int eq = pair.indexOf('=');
      query.put(URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
          eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
    }
    String marker = query.get("key-marker");
    if (!query.containsKey("versions") || marker == null) {
      return true;
    }
    String bucket = requested.getRawPath().substring(1).split("/", 2)[0];
    List<ObjectVersion> from = upstreamClient.listVersions(bucket, marker, null, null, 1).versions();
    String delimiter = query.get("delimiter");
    boolean named = !from.isEmpty() && (from.get(0).key().equals(marker)
        || delimiter != null && marker.endsWith(delimiter));
    if (named) {
      keyMarkersPassed.incrementAndGet();
    } else {
      keyMarkersRefused.add(marker);
    }
    return named;
  }
}
