package dev.idem.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP/1.1 proxy on 127.0.0.1 between one replica's S3 client and S3Proxy, which sees every request
 * as an operation ({@code PUT object}, {@code GET pointer-log}, ...) and lets the replica's
 * {@link StepHook} act on it: before forwarding (the server never sees the request) or after the
 * server answered (the request took effect; the reply is what fails).
 *
 * <p>When the hook throws {@link InjectedFault} the proxy plays the replica's fault: an S3 error reply
 * (500 InternalError, 503 SlowDown, 409 ConditionalRequestConflict), no reply until the client's
 * request timeout has passed, a connection reset in the middle of a body (the request's body before
 * forwarding, the reply's body after), or a reply whose body stalls after its headers (B1: only the
 * client's body deadline ends it). Server errors come twice in a row (an outage the client's own
 * retry does not ride out, so the publish-level retry runs too); the others once. When the hook does
 * not return (a death step: it kills the replica process), the connection is dropped.
 *
 * <p>One request per connection: the proxy answers with {@code Connection: close} semantics, which the
 * JDK's client handles by opening a new connection for the next request. Request bodies are forwarded
 * verbatim (the SigV4 signature covers them and the {@code Host} header, which is also kept verbatim).
 * Replies are relayed as the server sent them, except under {@link S3Breakage#TRUSTS_COMPLETION}, where
 * a completion's reply and an object's HEAD lose their {@code x-amz-version-id} header.
 */
final class FaultyHttpProxy implements AutoCloseable {
  /** Operations the story can name. */
  static final List<String> OPS = List.of("HEAD object", "GET object", "PUT object", "PUT marker", "PUT evidence",
      "POST evidence", "LIST", "GET pointer-log", "HEAD pointer-log", "PUT pointer-log", "PUT pointer-latest",
      "POST object", "DELETE object");

  /** How long a stalled body is held at most: far beyond the client's body deadline. */
  static final long BODY_STALL_HOLD_MS = 30_000;

  private final ServerSocket server;
  private final String upstreamHost;
  private final int upstreamPort;
  private final String bucketPrefix;
  private final StepHook hook;
  private final Fate.Fault fault;
  private final long timeoutHoldMillis;
  private final S3Breakage breakage;
  private final AtomicInteger repeatFor = new AtomicInteger();
  private volatile String repeatOp;
  private final Thread acceptor;

  /**
   * @param bucketPrefix {@code /bucket/prefix/}: what precedes a logical key in a request path
   * @param fault the fault to play when the hook throws, or {@code null}
   * @param timeoutHoldMillis how long a timeout holds a request: longer than the client's timeout
   * @param breakage what the proxy breaks on purpose
   */
  FaultyHttpProxy(URI upstream, String bucketPrefix, StepHook hook, Fate.Fault fault, long timeoutHoldMillis,
      S3Breakage breakage) throws IOException {
    this.upstreamHost = upstream.getHost();
    this.upstreamPort = upstream.getPort();
    this.bucketPrefix = bucketPrefix;
    this.hook = hook;
    this.fault = fault;
    this.timeoutHoldMillis = timeoutHoldMillis;
    this.breakage = breakage;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::acceptLoop, "faulty-proxy-" + server.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort());
  }

  @Override
  public void close() throws IOException {
    server.close();
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Thread t = new Thread(() -> serve(client), "faulty-proxy-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  /** A parsed request: its head (request line and headers, as sent) and its raw body bytes. */
  private record Request(String method, String target, List<String> headers, byte[] body) {}

  private void serve(Socket client) {
    try (client) {
      client.setSoTimeout(60_000);
      InputStream in = client.getInputStream();
      OutputStream out = client.getOutputStream();
      Request req = readRequest(in, out);
      if (req == null) {
        return;
      }
      String op = classify(req);
      if (firesAgain(op)) {
        play(req, null, client, out, false);
        return;
      }
      try {
        hook.at(op, false);
      } catch (InjectedFault f) {
        armRepeat(op);
        play(req, null, client, out, false);
        return;
      }
      byte[] reply = forward(req);
      if (breakage == S3Breakage.TRUSTS_COMPLETION
          && (op.equals("POST object") && req.target().contains("uploadId=") || op.equals("HEAD object"))) {
        reply = withoutHeader(reply, "x-amz-version-id");
      }
      try {
        hook.at(op, true);
      } catch (InjectedFault f) {
        armRepeat(op);
        play(req, reply, client, out, true);
        return;
      }
      out.write(reply);
      out.flush();
    } catch (IOException e) {
      // The client or the server went away (a killed replica, a reset we played): nothing to relay.
    }
  }

  private boolean firesAgain(String op) {
    return op.equals(repeatOp) && repeatFor.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
  }

  private void armRepeat(String op) {
    if (fault == Fate.Fault.HTTP_500 || fault == Fate.Fault.HTTP_503_SLOW_DOWN) {
      repeatOp = op;
      repeatFor.set(1);
    }
  }

  /** Plays the fault; {@code reply} is the server's reply when the request was forwarded. */
  private void play(Request req, byte[] reply, Socket client, OutputStream out, boolean forwarded) throws IOException {
    switch (fault == null ? Fate.Fault.CONNECTION_RESET : fault) {
      case HTTP_500 -> error(out, 500, "InternalError", "We encountered an internal error. Please try again.");
      case HTTP_503_SLOW_DOWN -> error(out, 503, "SlowDown", "Please reduce your request rate.");
      case HTTP_409_CONFLICT -> error(out, 409, "ConditionalRequestConflict",
          "A conflicting operation occurred. If using PutObject you can retry the request.");
      case HTTP_TIMEOUT -> {
        try {
          Thread.sleep(timeoutHoldMillis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        reset(client);
      }
      case HTTP_BODY_STALL -> stallBody(reply, client, out);
      case CONNECTION_RESET, IO_ERROR -> {
        if (forwarded) {
          // Half of the reply (status, headers, part of the body), then a reset.
          out.write(reply, 0, Math.max(1, reply.length / 2));
          out.flush();
        } else if (req.body().length > 1) {
          // Half of the request body reaches the server, which never sees the rest.
          forwardTruncated(req);
        }
        reset(client);
      }
    }
  }

  /**
   * Sends the reply's status and headers declaring 100 bytes more than its body, the body, then nothing
   * until the client hangs up or {@value #BODY_STALL_HOLD_MS} ms pass: a server that stalls mid-body.
   * Before the server saw the request ({@code reply == null}) the reply is a 200 with an empty body
   * and the same lie. Only the client's body deadline ends the wait in time; the checker bounds it.
   */
  private static void stallBody(byte[] reply, Socket client, OutputStream out) throws IOException {
    byte[] whole = reply != null ? reply : "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    String all = new String(whole, StandardCharsets.ISO_8859_1);
    int end = all.indexOf("\r\n\r\n");
    String head = end < 0 ? all : all.substring(0, end);
    String body = end < 0 ? "" : all.substring(end + 4);
    StringBuilder h = new StringBuilder();
    for (String line : head.split("\r\n")) {
      String lower = line.toLowerCase(Locale.ROOT);
      if (!lower.startsWith("content-length:") && !lower.startsWith("transfer-encoding:") && !lower.startsWith("connection:")) {
        h.append(line).append("\r\n");
      }
    }
    h.append("Content-Length: ").append(body.length() + 100).append("\r\n\r\n").append(body);
    out.write(h.toString().getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
    client.setSoTimeout((int) BODY_STALL_HOLD_MS);
    try {
      while (client.getInputStream().read() != -1) {
        // The client sends nothing more on this connection; wait for it to give up.
      }
    } catch (IOException gaveUpOrHeld) {
      // The client closed the connection, or the hold ended.
    }
    reset(client);
  }

  /** {@code reply} without the header lines named {@code name} (in any case); the body as it was. */
  private static byte[] withoutHeader(byte[] reply, String name) {
    String all = new String(reply, StandardCharsets.ISO_8859_1);
    int end = all.indexOf("\r\n\r\n");
    if (end < 0) {
      return reply;
    }
    StringBuilder out = new StringBuilder();
    for (String line : all.substring(0, end).split("\r\n")) {
      if (!line.toLowerCase(Locale.ROOT).startsWith(name.toLowerCase(Locale.ROOT) + ":")) {
        out.append(line).append("\r\n");
      }
    }
    out.append(all.substring(end + 2));
    return out.toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  private static void error(OutputStream out, int status, String code, String message) throws IOException {
    byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>" + message
        + "</Message><RequestId>fuzz</RequestId></Error>").getBytes(StandardCharsets.UTF_8);
    String head = "HTTP/1.1 " + status + " " + code + "\r\nContent-Type: application/xml\r\nContent-Length: "
        + body.length + "\r\nConnection: close\r\n\r\n";
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
  }

  private static void reset(Socket s) {
    try {
      s.setSoLinger(true, 0);
      s.close();
    } catch (IOException ignored) {
      // Already gone.
    }
  }

  String classify(Request req) {
    String path = req.target();
    int q = path.indexOf('?');
    String query = q < 0 ? "" : path.substring(q + 1);
    path = q < 0 ? path : path.substring(0, q);
    if (query.contains("list-type") || query.contains("versions") || query.contains("uploads") && req.method().equals("GET")
        || !path.startsWith(bucketPrefix)) {
      return "LIST";
    }
    String key = java.net.URLDecoder.decode(path.substring(bucketPrefix.length()), StandardCharsets.UTF_8);
    String kind;
    if (key.startsWith("_idem/evidence/") && key.matches(".*![0-9a-f]{64}\\.[0-9a-f]{32}")) {
      kind = "marker"; // a divergence marker, written before the evidence bytes (P8)
    } else if (key.startsWith("_idem/evidence/")) {
      kind = "evidence";
    } else if (key.startsWith("_idem/pointers/") && key.contains("/log/")) {
      kind = "pointer-log";
    } else if (key.startsWith("_idem/pointers/")) {
      kind = "pointer-latest";
    } else {
      kind = "object";
    }
    return req.method() + " " + kind;
  }

  // --- HTTP plumbing ---

  private static Request readRequest(InputStream in, OutputStream out) throws IOException {
    String head = readHead(in);
    if (head == null) {
      return null;
    }
    String[] lines = head.split("\r\n");
    String[] requestLine = lines[0].split(" ", 3);
    List<String> headers = new ArrayList<>();
    long length = 0;
    boolean chunked = false;
    boolean expectContinue = false;
    for (int i = 1; i < lines.length; i++) {
      String h = lines[i];
      String name = h.substring(0, Math.max(0, h.indexOf(':'))).trim().toLowerCase(Locale.ROOT);
      String value = h.substring(h.indexOf(':') + 1).trim();
      switch (name) {
        case "content-length" -> length = Long.parseLong(value);
        case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
        case "expect" -> {
          expectContinue = true;
          continue;
        }
        case "connection", "upgrade", "http2-settings", "keep-alive" -> {
          continue;
        }
        default -> { }
      }
      headers.add(h);
    }
    if (expectContinue) {
      out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
    }
    byte[] body = chunked ? readChunked(in) : in.readNBytes((int) length);
    return new Request(requestLine[0], requestLine[1], headers, body);
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int last4 = 0;
    for (int c; (c = in.read()) != -1; ) {
      b.write(c);
      last4 = (last4 << 8) | c;
      if (last4 == 0x0d0a0d0a) {
        String s = b.toString(StandardCharsets.ISO_8859_1);
        return s.substring(0, s.length() - 4);
      }
    }
    return null;
  }

  /** Reads a chunked body and returns it raw (chunk framing included), to forward verbatim. */
  private static byte[] readChunked(InputStream in) throws IOException {
    ByteArrayOutputStream raw = new ByteArrayOutputStream();
    while (true) {
      String sizeLine = readLine(in, raw);
      int size = Integer.parseInt(sizeLine.split(";", 2)[0].trim(), 16);
      if (size == 0) {
        for (String trailer; !(trailer = readLine(in, raw)).isEmpty(); ) {
          // trailers are forwarded as read
          assert trailer != null;
        }
        return raw.toByteArray();
      }
      raw.write(in.readNBytes(size));
      readLine(in, raw);
    }
  }

  private static String readLine(InputStream in, ByteArrayOutputStream raw) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int c; (c = in.read()) != -1; ) {
      raw.write(c);
      if (c == '\n') {
        String s = line.toString(StandardCharsets.ISO_8859_1);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
      }
      line.write(c);
    }
    throw new IOException("connection closed inside a chunked body");
  }

  private byte[] requestBytes(Request req, int bodyBytes) {
    StringBuilder head = new StringBuilder(req.method()).append(' ').append(req.target()).append(" HTTP/1.1\r\n");
    for (String h : req.headers()) {
      head.append(h).append("\r\n");
    }
    head.append("Connection: close\r\n\r\n");
    byte[] h = head.toString().getBytes(StandardCharsets.ISO_8859_1);
    byte[] all = new byte[h.length + bodyBytes];
    System.arraycopy(h, 0, all, 0, h.length);
    System.arraycopy(req.body(), 0, all, h.length, bodyBytes);
    return all;
  }

  /** Sends the request upstream and returns the whole reply, as the server sent it. */
  private byte[] forward(Request req) throws IOException {
    try (Socket up = new Socket(upstreamHost, upstreamPort)) {
      up.setSoTimeout(60_000);
      OutputStream o = up.getOutputStream();
      o.write(requestBytes(req, req.body().length));
      o.flush();
      return up.getInputStream().readAllBytes();
    }
  }

  private void forwardTruncated(Request req) {
    try (Socket up = new Socket(upstreamHost, upstreamPort)) {
      OutputStream o = up.getOutputStream();
      o.write(requestBytes(req, req.body().length / 2));
      o.flush();
      reset(up);
    } catch (IOException ignored) {
      // The point was to break it.
    }
  }
}
