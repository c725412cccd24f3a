package dev.idem.store.s3.testing;

import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsProvider;
import dev.idem.store.s3.S3Location;
import dev.idem.store.s3.internal.client.S3Client;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Function;

/**
 * A scripted, misbehaving HTTP/1.1 server on 127.0.0.1 for the failure paths a real S3 server will not
 * produce on demand: 503 SlowDown, 500, 409, connections reset before or during a reply, malformed
 * XML, replies that stall after their headers or before them. Each connection serves one request ({@code Connection: close}) with the next scripted {@link
 * Action}; when the script is empty it asks the {@linkplain #otherwise responder}, else answers 500.
 * Signatures are not checked. Requests are recorded.
 */
public final class FakeS3Server implements AutoCloseable {

  /** What to do with one request. */
  public sealed interface Action permits Reply, Reset, CutReply, Stall, Silent {}

  /** Answer with this status, headers and body. */
  public record Reply(int status, Map<String, String> headers, byte[] body) implements Action {}

  /** Close the connection after reading the request, without answering (a connection reset). */
  public record Reset() implements Action {}

  /** Send the status and headers declaring {@code body.length + 100} bytes, then {@code body}, then close. */
  public record CutReply(int status, Map<String, String> headers, byte[] body) implements Action {}

  /**
   * Send the status and headers declaring {@code body.length + 100} bytes, then {@code body}, then
   * nothing more until the client hangs up (or a minute passes): a server that stalls mid-body.
   */
  public record Stall(int status, Map<String, String> headers, byte[] body) implements Action {}

  /**
   * Read the request, then send nothing at all until the client hangs up (or a minute passes): a server
   * that stalls before its headers, which only the request timeout ends.
   */
  public record Silent() implements Action {}

  /** A stall after a 200's headers and the first bytes of {@code body}. */
  public static Stall stall(String body) {
    return new Stall(200, Map.of("Content-Type", "application/xml", "ETag", "\"abc\""),
        body.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * One request as received.
   *
   * @param bodyLength the body's declared {@code Content-Length}
   * @param received the body bytes that arrived before the client finished or hung up
   */
  public record Request(String method, String target, Map<String, String> headers, int bodyLength, int received) {
    /** The path without the query. */
    public String path() {
      int q = target.indexOf('?');
      return q < 0 ? target : target.substring(0, q);
    }

    /** Query parameter {@code name}, decoded: {@code ""} when it has no value, {@code null} when absent. */
    public String query(String name) {
      int q = target.indexOf('?');
      if (q < 0) {
        return null;
      }
      for (String pair : target.substring(q + 1).split("&")) {
        int eq = pair.indexOf('=');
        String n = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
        if (n.equals(name)) {
          return eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
        }
      }
      return null;
    }
  }

  /** How long a connection may stay silent before its request line: a client sends at once. */
  private static final int HEAD_WAIT_MS = 5_000;

  private final ServerSocket socket;
  private final Thread acceptor;
  private final BlockingQueue<Action> script = new LinkedBlockingQueue<>();
  private final List<Request> requests = Collections.synchronizedList(new ArrayList<>());
  private volatile Function<Request, Action> responder;

  public FakeS3Server() throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = new Thread(this::acceptLoop, "fake-s3-" + socket.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + socket.getLocalPort());
  }

  /**
   * A client builder for this server: path-style, {@code us-east-1}, throwaway credentials (signatures
   * are not checked here); the caller sets retries and timeouts.
   */
  public S3Client.Builder clientBuilder() {
    return S3Client.builder(endpoint(), "us-east-1", CredentialsProvider.of(AwsCredentials.of("AKID", "s")))
        .pathStyle(true);
  }

  /** {@code s3://bkt/PREFIX} on this server ({@code prefix} empty or ending in {@code /}). */
  public S3Location location(String prefix) {
    return new S3Location("bkt", prefix, endpoint(), "us-east-1", true);
  }

  /** Appends actions to the script. */
  public FakeS3Server then(Action... actions) {
    script.addAll(List.of(actions));
    return this;
  }

  /**
   * Answers every request the script does not by {@code responder}, which sees the request (a server
   * that answers by what is asked, such as a listing that hands back the same position forever).
   */
  public FakeS3Server otherwise(Function<Request, Action> responder) {
    this.responder = responder;
    return this;
  }

  public List<Request> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  public static Reply ok(String body) {
    return new Reply(200, Map.of("Content-Type", "application/xml"), body.getBytes(StandardCharsets.UTF_8));
  }

  public static Reply status(int status, Map<String, String> headers) {
    return new Reply(status, headers, new byte[0]);
  }

  /** An S3 error reply. */
  public static Reply error(int status, String code, String message) {
    String xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>" + message
        + "</Message><RequestId>REQ123</RequestId></Error>";
    return new Reply(status, Map.of("Content-Type", "application/xml"), xml.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public void close() throws IOException {
    socket.close();
    try {
      acceptor.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void acceptLoop() {
    while (!socket.isClosed()) {
      Socket s;
      try {
        s = socket.accept();
      } catch (IOException e) {
        return; // the server socket was closed
      }
      try (s) {
        serve(s);
      } catch (IOException e) {
        // a client that reset or went away (a cancelled read-ahead does): serve the next one
      }
    }
  }

  private void serve(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    // One connection at a time: a connection the client opened and then abandoned before sending its
    // request (a read-ahead cancelled mid-connect) must not hold every later request back.
    s.setSoTimeout(HEAD_WAIT_MS);
    String head;
    try {
      head = readHead(in);
    } catch (java.net.SocketTimeoutException e) {
      return;
    }
    if (head == null) {
      return;
    }
    s.setSoTimeout(0);
    String[] lines = head.split("\r\n");
    String[] requestLine = lines[0].split(" ");
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        headers.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).strip());
      }
    }
    int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
    int received = in.readNBytes(length).length;
    Request request = new Request(requestLine[0], requestLine[1], headers, length, received);
    requests.add(request);
    Action action = script.poll();
    Function<Request, Action> answer = responder;
    if (action == null) {
      action = answer != null ? answer.apply(request) : error(500, "InternalError", "script exhausted");
    }
    OutputStream out = s.getOutputStream();
    boolean isHead = requestLine[0].equals("HEAD");
    if (action instanceof Reply r) {
      out.write(statusAndHeaders(r.status(), r.headers(), r.body().length));
      if (!isHead) {
        out.write(r.body());
      }
      out.flush();
    } else if (action instanceof Stall r) {
      out.write(statusAndHeaders(r.status(), r.headers(), r.body().length + 100));
      out.write(r.body());
      out.flush();
      awaitHangUp(s, in);
    } else if (action instanceof Silent) {
      awaitHangUp(s, in);
    } else if (action instanceof CutReply r) {
      out.write(statusAndHeaders(r.status(), r.headers(), r.body().length + 100));
      out.write(r.body());
      out.flush();
      s.setSoLinger(true, 0);
    } else {
      s.setSoLinger(true, 0);
    }
  }

  /** Serving one connection at a time, so a stall ends when the client gives up on it. */
  private static void awaitHangUp(Socket s, InputStream in) throws IOException {
    s.setSoTimeout(60_000);
    try {
      in.read();
    } catch (java.net.SocketTimeoutException e) {
      // the client never hung up; let the next request through
    }
  }

  private static byte[] statusAndHeaders(int status, Map<String, String> headers, int length) {
    StringBuilder b = new StringBuilder("HTTP/1.1 ").append(status).append(" Status\r\n");
    headers.forEach((k, v) -> b.append(k).append(": ").append(v).append("\r\n"));
    b.append("Content-Length: ").append(length).append("\r\nConnection: close\r\n\r\n");
    return b.toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int state = 0;
    for (int c; (c = in.read()) != -1; ) {
      b.write(c);
      state = (c == '\r' && (state == 0 || state == 2)) ? state + 1 : (c == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
      if (state == 4) {
        return b.toString(StandardCharsets.ISO_8859_1);
      }
    }
    return null;
  }
}
