package dev.idem.store.s3.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on 127.0.0.1 in front of a real S3 server that breaks connections on request: it cuts
 * requests once a byte budget is spent (a network failure mid-upload, or a server that dies while
 * reading a body) or drops the next reply after the server has acted on its request (a lost reply).
 * It can also rewrite one request byte in flight (a man in the middle who changes a body but cannot
 * sign). Faults are armed explicitly and counted in bytes or replies, never in time. It also counts the
 * request bytes it relays, so a test can tell how much a client sent.
 */
public final class ChaosProxy implements AutoCloseable {
  private final ServerSocket socket;
  private final String upstreamHost;
  private final int upstreamPort;
  private final AtomicLong cutAfter = new AtomicLong(-1);
  private final AtomicLong flipAt = new AtomicLong(-1);
  private final AtomicLong forwarded = new AtomicLong();
  private final AtomicInteger dropReplies = new AtomicInteger();
  private final AtomicInteger dropped = new AtomicInteger();
  private final Thread acceptor;

  public ChaosProxy(URI upstream) throws IOException {
    this.upstreamHost = upstream.getHost();
    this.upstreamPort = upstream.getPort();
    this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::acceptLoop, "chaos-proxy-" + socket.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + socket.getLocalPort());
  }

  /** From now on, forward at most {@code bytes} more request bytes in total, then reset every connection. */
  public void cutRequestsAfter(long bytes) {
    forwarded.set(0);
    cutAfter.set(bytes);
  }

  /**
   * Count request bytes from zero again and invert the lowest bit of the one at {@code offset} from now
   * (headers included: pick an offset past them to land in a body). Once.
   */
  public void flipRequestByteAt(long offset) {
    forwarded.set(0);
    flipAt.set(offset);
  }

  /** Whether the armed flip has happened. */
  public boolean flipped() {
    return flipAt.get() == -2;
  }

  /** Count request bytes (headers and bodies) from zero again; see {@link #requestBytes()}. */
  public void countFromNow() {
    forwarded.set(0);
  }

  /** Request bytes relayed to the server since the proxy started, {@link #countFromNow} or {@link #cutRequestsAfter}. */
  public long requestBytes() {
    return forwarded.get();
  }

  /** Reset the connection instead of relaying the next {@code n} replies (the server still acted). */
  public void dropReplies(int n) {
    dropReplies.set(n);
  }

  /** How many replies were dropped so far. */
  public int repliesDropped() {
    return dropped.get();
  }

  /** Stop breaking things. */
  public void pass() {
    cutAfter.set(-1);
    flipAt.set(-1);
    dropReplies.set(0);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  private void acceptLoop() {
    while (!socket.isClosed()) {
      try {
        Socket client = socket.accept();
        Socket server = new Socket(upstreamHost, upstreamPort);
        start(() -> pumpRequests(client, server));
        start(() -> pumpReplies(server, client));
      } catch (IOException e) {
        return;
      }
    }
  }

  private static void start(Runnable r) {
    Thread t = new Thread(r, "chaos-pump");
    t.setDaemon(true);
    t.start();
  }

  private void pumpRequests(Socket client, Socket server) {
    byte[] buf = new byte[16 * 1024];
    try (InputStream in = client.getInputStream(); OutputStream out = server.getOutputStream()) {
      for (int n; (n = in.read(buf)) != -1; ) {
        long budget = cutAfter.get();
        if (budget >= 0) {
          long allowed = budget - forwarded.get();
          if (allowed < n) {
            if (allowed > 0) {
              out.write(buf, 0, (int) allowed);
              out.flush();
              forwarded.addAndGet(allowed);
            }
            reset(client, server);
            return;
          }
        }
        long at = flipAt.get() - forwarded.get();
        if (flipAt.get() >= 0 && at >= 0 && at < n) {
          buf[(int) at] ^= 1;
          flipAt.set(-2);
        }
        out.write(buf, 0, n);
        out.flush();
        forwarded.addAndGet(n);
      }
    } catch (IOException e) {
      reset(client, server);
    }
  }

  private void pumpReplies(Socket server, Socket client) {
    byte[] buf = new byte[16 * 1024];
    try (InputStream in = server.getInputStream(); OutputStream out = client.getOutputStream()) {
      for (int n; (n = in.read(buf)) != -1; ) {
        if (dropReplies.getAndUpdate(d -> Math.max(0, d - 1)) > 0) {
          dropped.incrementAndGet();
          reset(client, server);
          return;
        }
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      reset(client, server);
    }
  }

  private static void reset(Socket a, Socket b) {
    for (Socket s : new Socket[] {a, b}) {
      try {
        s.setSoLinger(true, 0);
        s.close();
      } catch (IOException e) {
        // already closed
      }
    }
  }
}
