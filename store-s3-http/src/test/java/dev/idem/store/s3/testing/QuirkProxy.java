package dev.idem.store.s3.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.internal.auth.SigV4Signer;
import dev.idem.store.s3.internal.client.ObjectVersion;
import dev.idem.store.s3.internal.client.S3Client;
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
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An S3 gateway on 127.0.0.1 in front of the real S3Proxy that answers some requests the way other S3
 * implementations do ({@link Quirk}): an abort that deletes the object at the key, a conditional
 * completion answered 304, an abort of a finished upload answered 405, reply roots spelled otherwise,
 * a page's versions listed before its delete markers, conditional headers dropped, racing creates all
 * applied. Everything else is S3Proxy's own answer, so a test runs idem against a
 * whole, stateful server that differs from S3 only where the named implementation does.
 *
 * <p>The client signed what it sent, so each forwarded request is re-signed with the test credentials
 * (a real gateway in front of S3 signs with its own). It forwards the method, the raw path and query,
 * the body, conditional and {@code x-amz-meta-*} headers and {@code Content-Type}, and relays the
 * reply's status, headers and body. Bodies are buffered: it is for small test objects.
 */
public final class QuirkProxy implements AutoCloseable {
  private static final Set<String> HOP_BY_HOP = Set.of("content-length", "transfer-encoding", "connection", "date",
      "keep-alive");

  /**
   * One request as the gateway received it; header names are lowercase. Of its headers only the
   * conditional ones, {@code x-amz-meta-*} and {@code Content-Type} are forwarded.
   */
  public record Request(String method, String rawPath, String rawQuery, Map<String, List<String>> headers,
      byte[] body) {

    /** Whether the query names {@code parameter} ({@code uploadId}, {@code partNumber}, {@code versioning}). */
    public boolean has(String parameter) {
      return rawQuery != null && List.of(rawQuery.split("&")).stream()
          .anyMatch(p -> p.equals(parameter) || p.startsWith(parameter + "="));
    }

    /** The query's parameters, decoded; a parameter without a value maps to the empty string. */
    public Map<String, String> query() {
      Map<String, String> out = new LinkedHashMap<>();
      for (String pair : rawQuery == null ? new String[0] : rawQuery.split("&")) {
        int eq = pair.indexOf('=');
        out.put(URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
            eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
      return out;
    }

    /** CompleteMultipartUpload. */
    public boolean isCompletion() {
      return method.equals("POST") && has("uploadId");
    }

    /** AbortMultipartUpload. */
    public boolean isAbort() {
      return method.equals("DELETE") && has("uploadId");
    }

    /** UploadPart. */
    public boolean isPart() {
      return method.equals("PUT") && has("partNumber");
    }

    /** The bucket, from the path-style path. */
    public String bucket() {
      String p = URI.create(rawPath).getPath().substring(1);
      int slash = p.indexOf('/');
      return slash < 0 ? p : p.substring(0, slash);
    }

    /** The object key, from the path-style path; empty for a bucket request. */
    public String key() {
      String p = URI.create(rawPath).getPath().substring(1);
      int slash = p.indexOf('/');
      return slash < 0 ? "" : p.substring(slash + 1);
    }

    /** This request without the headers in {@code lowercaseNames}. */
    public Request without(Set<String> lowercaseNames) {
      Map<String, List<String>> kept = new LinkedHashMap<>(headers);
      kept.keySet().removeAll(lowercaseNames);
      return new Request(method, rawPath, rawQuery, kept, body);
    }
  }

  /** A reply to relay. */
  public record Reply(int status, Map<String, List<String>> headers, byte[] body) {

    /** An S3 error reply. */
    public static Reply error(int status, String code, String message) {
      return new Reply(status, Map.of("Content-Type", List.of("application/xml")),
          ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>" + message
              + "</Message><RequestId>QUIRK</RequestId></Error>").getBytes(StandardCharsets.UTF_8));
    }

    boolean ok() {
      return status >= 200 && status < 300;
    }
  }

  /** Forwards a request to S3Proxy and returns its reply. */
  @FunctionalInterface
  public interface Upstream {
    Reply send(Request request) throws IOException;
  }

  /**
   * How the emulated server answers a request: by forwarding it ({@code next.send}), changed or not, by
   * changing the reply, by acting on the server besides, or by answering itself.
   */
  @FunctionalInterface
  public interface Quirk {
    Reply answer(Request request, Upstream next) throws IOException;

    /**
     * Drops {@code headers} (any case) from every request, or only from those with HTTP method {@code
     * method} when it is not null, counting each header dropped: a gateway or an older server that
     * ignores them.
     */
    static Quirk strips(String method, Set<String> headers, AtomicInteger count) {
      Set<String> lower = Set.copyOf(headers.stream().map(h -> h.toLowerCase(Locale.ROOT)).toList());
      return (request, next) -> {
        if (method != null && !method.equals(request.method())) {
          return next.send(request);
        }
        int n = (int) request.headers().keySet().stream().filter(lower::contains).count();
        count.addAndGet(n);
        return next.send(request.without(lower));
      };
    }

    /**
     * Adobe S3Mock (4.x and 5.x): an AbortMultipartUpload that succeeds also deletes every version of the
     * object at its key.
     */
    static Quirk abortDeletesTheObject(S3TestServer server) {
      return (request, next) -> {
        Reply r = next.send(request);
        if (request.isAbort() && r.ok()) {
          S3Client client = server.client();
          String bucket = request.bucket();
          String key = request.key();
          for (ObjectVersion v : client.listVersions(bucket, key, null, null, 1000).versions()) {
            if (v.key().equals(key)) {
              client.deleteVersion(bucket, key, v.versionId());
            }
          }
          client.delete(bucket, key);
        }
        return r;
      };
    }

    /**
     * Adobe S3Mock 4.12: a CompleteMultipartUpload with {@code If-None-Match: *} onto a key that holds an
     * object is answered {@code status} (304 Not Modified) and completes nothing.
     */
    static Quirk conditionalCompletionAnswers(int status, S3TestServer server) {
      return (request, next) -> {
        if (request.isCompletion() && request.headers().containsKey("if-none-match")
            && server.client().head(request.bucket(), request.key(), null).isPresent()) {
          return new Reply(status, Map.of(), new byte[0]);
        }
        return next.send(request);
      };
    }

    /**
     * s3rver: an AbortMultipartUpload of an upload that is no longer there (completed) is answered {@code
     * status} (405 Method Not Allowed) instead of S3's 404 NoSuchUpload.
     */
    static Quirk abortOfFinishedUploadAnswers(int status) {
      return (request, next) -> {
        Reply r = next.send(request);
        return request.isAbort() && r.status() == 404 ? Reply.error(status, "MethodNotAllowed",
            "The specified method is not allowed against this resource.") : r;
      };
    }

    /**
     * Replies whose root element is {@code from} come with {@code to} instead (moto names some roots
     * {@code ...Response}; S3Mock answers ListObjectVersions with {@code ListBucketResult}).
     */
    static Quirk renamesRoot(String from, String to) {
      Pattern tag = Pattern.compile("<(/?)" + Pattern.quote(from) + "([\\s/>])");
      return (request, next) -> {
        Reply r = next.send(request);
        String body = new String(r.body(), StandardCharsets.UTF_8);
        Matcher m = tag.matcher(body);
        if (!m.find()) {
          return r;
        }
        return new Reply(r.status(), r.headers(),
            m.replaceAll("<$1" + Matcher.quoteReplacement(to) + "$2").getBytes(StandardCharsets.UTF_8));
      };
    }

    /**
     * moto: a ListObjectVersions reply gives the page's {@code <Version>} elements first and its {@code
     * <DeleteMarker>} elements after them, each in the listing's order, where S3 interleaves the two.
     */
    static Quirk listsVersionsBeforeDeleteMarkers() {
      Pattern entry = Pattern.compile("<(Version|DeleteMarker)>.*?</\\1>", Pattern.DOTALL);
      return rewritesVersionListings(body -> {
        StringBuilder versions = new StringBuilder();
        StringBuilder markers = new StringBuilder();
        Matcher m = entry.matcher(body);
        int at = -1;
        while (m.find()) {
          at = at < 0 ? m.start() : at;
          (m.group(1).equals("Version") ? versions : markers).append(m.group());
        }
        if (at < 0) {
          return body;
        }
        String rest = entry.matcher(body).replaceAll("");
        return rest.substring(0, at) + versions + markers + rest.substring(at);
      });
    }

    /**
     * moto and S3Proxy list a key's versions by the last-modified time each write took, not by the order
     * the writes landed: moto to the millisecond, writes within one millisecond oldest first; S3Proxy
     * takes the time before the write waits for its turn to land. So a write that lands on another can be
     * listed under it. Made certain here: every run of consecutive {@code <Version>} elements of one key
     * in a ListObjectVersions reply comes oldest first, as moto lists writes of one millisecond, and, as
     * moto marks it, {@code IsLatest} is on the first of them, not on the version that is current.
     */
    static Quirk listsVersionsOldestFirst() {
      Pattern version = Pattern.compile("<Version>.*?<Key>(.*?)</Key>.*?</Version>", Pattern.DOTALL);
      return rewritesVersionListings(body -> {
        StringBuilder out = new StringBuilder();
        List<String> run = new ArrayList<>();
        String runKey = null;
        int end = 0;
        Matcher m = version.matcher(body);
        while (m.find()) {
          if (m.start() != end || !m.group(1).equals(runKey)) {
            appendOldestFirst(run, out);
            out.append(body, end, m.start());
          }
          run.add(m.group());
          runKey = m.group(1);
          end = m.end();
        }
        appendOldestFirst(run, out);
        out.append(body.substring(end));
        return out.toString();
      });
    }

    /** The body of every successful ListObjectVersions reply replaced by what {@code rewrite} makes of it. */
    private static Quirk rewritesVersionListings(UnaryOperator<String> rewrite) {
      return (request, next) -> {
        Reply r = next.send(request);
        if (!request.method().equals("GET") || !request.has("versions") || !r.ok()) {
          return r;
        }
        String body = rewrite.apply(new String(r.body(), StandardCharsets.UTF_8));
        return new Reply(r.status(), r.headers(), body.getBytes(StandardCharsets.UTF_8));
      };
    }

    /** One key's run of versions, newest first as listed, appended oldest first, the first marked latest. */
    private static void appendOldestFirst(List<String> run, StringBuilder out) {
      Collections.reverse(run);
      for (int i = 0; i < run.size(); i++) {
        out.append(run.get(i).replaceFirst("<IsLatest>(true|false)</IsLatest>",
            "<IsLatest>" + (i == 0) + "</IsLatest>"));
      }
      run.clear();
    }

    /**
     * moto under concurrent writers (and any server whose create-only condition is a look-up followed by
     * a write): creates racing onto one key all succeed, each having found the key empty before any
     * wrote. Made certain here: a create ({@code If-None-Match: *} on a PutObject or a
     * CompleteMultipartUpload) that {@code racing} selects is held until {@code together} creates to its
     * key have arrived, then all of them are written without the condition, so each succeeds; creates to
     * that key arriving later meet the server's own condition. {@code applied} counts the creates written
     * unconditionally. A group still short of {@code together} after a minute is let through with its
     * condition, so a test that sends fewer ends (and fails on what it then finds).
     */
    static Quirk checksCreatesBeforeWriting(int together, Predicate<Request> racing, AtomicInteger applied) {
      Map<String, CountDownLatch> groups = new HashMap<>();
      Set<String> released = new HashSet<>();
      return (request, next) -> {
        boolean create = request.headers().containsKey("if-none-match") && (request.isCompletion()
            || request.method().equals("PUT") && !request.isPart());
        if (!create || !racing.test(request)) {
          return next.send(request);
        }
        String key = request.bucket() + "/" + request.key();
        CountDownLatch group;
        synchronized (groups) {
          if (released.contains(key)) {
            return next.send(request);
          }
          group = groups.computeIfAbsent(key, k -> new CountDownLatch(together));
          group.countDown();
          if (group.getCount() == 0) {
            groups.remove(key);
            released.add(key);
          }
        }
        boolean all;
        try {
          all = group.await(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted holding a create to " + key, e);
        }
        if (!all) {
          return next.send(request);
        }
        applied.incrementAndGet();
        return next.send(request.without(Set.of("if-none-match")));
      };
    }

    /** UploadPart is answered with the S3 error {@code status}/{@code code} and nothing is stored. */
    static Quirk refusesParts(int status, String code) {
      return (request, next) -> request.isPart() ? Reply.error(status, code, "refused by the test gateway")
          : next.send(request);
    }

    /**
     * LocalS3: a ListObjectVersions whose {@code key-marker} names no key of the bucket is answered 404
     * {@code NoSuchKey} instead of being listed; a {@code key-marker} that is a common prefix of the keys
     * passes only in a listing with that delimiter (S3 hands such markers out in delimiter listings).
     * Where the S3 API lets a key-marker be any string, this is the strictest reading a server may make.
     * Whether a marker names a key is asked of the server itself; {@code passed} and {@code refused}
     * record the markers judged.
     */
    static Quirk refusesKeyMarkersThatAreNotKeys(S3TestServer server, AtomicInteger passed, List<String> refused) {
      return (request, next) -> {
        Map<String, String> query = request.query();
        String marker = query.get("key-marker");
        if (!query.containsKey("versions") || marker == null) {
          return next.send(request);
        }
        List<ObjectVersion> from = server.client().listVersions(request.bucket(), marker, null, null, 1).versions();
        String delimiter = query.get("delimiter");
        boolean named = !from.isEmpty() && (from.get(0).key().equals(marker)
            || delimiter != null && marker.endsWith(delimiter));
        if (!named) {
          refused.add(marker);
          return Reply.error(404, "NoSuchKey", "The specified key does not exist.");
        }
        passed.incrementAndGet();
        return next.send(request);
      };
    }
  }

  private final HttpServer server;
  private final ExecutorService executor;
  private final URI upstream;
  private final AwsCredentials credentials = AwsCredentials.of(S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY);
  private final List<Quirk> quirks;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NEVER).build();
  private final SigV4Signer signer = new SigV4Signer(Clock.systemUTC());

  /** A gateway to {@code server} answering as {@code quirks} say, the first one outermost. */
  public QuirkProxy(S3TestServer server, Quirk... quirks) throws IOException {
    this.upstream = server.endpoint();
    this.quirks = List.of(quirks);
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    this.executor = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "quirk-proxy");
      t.setDaemon(true);
      return t;
    });
    this.server.setExecutor(executor);
    this.server.createContext("/", this::serve);
    this.server.start();
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  private void serve(HttpExchange exchange) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      Map<String, List<String>> headers = new LinkedHashMap<>();
      exchange.getRequestHeaders().forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), values));
      URI requested = exchange.getRequestURI();
      Request request = new Request(method, requested.getRawPath(), requested.getRawQuery(), headers, body);
      Reply reply = through(0, request);
      reply.headers().forEach((name, values) -> {
        if (!HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT))) {
          exchange.getResponseHeaders().put(name, values);
        }
      });
      boolean head = method.equals("HEAD");
      byte[] out = reply.body();
      if (head) {
        reply.headers().entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase("Content-Length"))
            .findFirst().ifPresent(e -> exchange.getResponseHeaders().put("Content-Length", e.getValue()));
      }
      exchange.sendResponseHeaders(reply.status(), head || out.length == 0 ? -1 : out.length);
      if (!head && out.length > 0) {
        try (OutputStream o = exchange.getResponseBody()) {
          o.write(out);
        }
      }
    }
  }

  /** The reply of quirk {@code i} onwards; past the last one, S3Proxy's. */
  private Reply through(int i, Request request) throws IOException {
    if (i == quirks.size()) {
      return forward(request);
    }
    return quirks.get(i).answer(request, r -> through(i + 1, r));
  }

  private Reply forward(Request request) throws IOException {
    URI target = URI.create(upstream + request.rawPath() + (request.rawQuery() != null ? "?" + request.rawQuery() : ""));
    byte[] body = request.body();
    String sha = body.length == 0 ? SigV4Signer.EMPTY_SHA256 : SigV4Signer.sha256Hex(body);
    Map<String, List<String>> headers = new LinkedHashMap<>();
    request.headers().forEach((name, values) -> {
      if (name.startsWith("if-") || name.startsWith("x-amz-meta-") || name.equals("content-type")) {
        headers.put(name, values);
      }
    });
    Map<String, String> auth = signer.sign(request.method(), target, headers, sha, credentials, S3TestServer.REGION,
        "s3");
    HttpRequest.Builder b = HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(30))
        .method(request.method(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(body));
    headers.forEach((name, values) -> values.forEach(v -> b.header(name, v)));
    auth.forEach(b::header);
    HttpResponse<byte[]> reply;
    try {
      reply = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted forwarding " + request.method() + " " + target, e);
    }
    return new Reply(reply.statusCode(), reply.headers().map(), reply.body());
  }
}
