package dev.idem.store.s3.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The fake server outlives its clients' bad manners: a client that resets its connection while the
 * server reads or writes (a cancelled read-ahead does) must not stop it answering the next request, or
 * every later request of the test waits for its timeout.
 */
class FakeS3ServerTest {
  private static final int BIG = 64 << 20;

  @Test
  void serve_clientResetsMidReply_nextRequestAnswered() throws IOException {
    try (FakeS3Server server = new FakeS3Server()) {
      server.otherwise(r -> r.path().endsWith("/big") ? new FakeS3Server.Reply(200, Map.of(), new byte[BIG])
          : FakeS3Server.ok("<second/>"));
      try (Socket reset = connect(server)) {
        send(reset, "GET /bkt/big HTTP/1.1");
        reset.setSoLinger(true, 0);
      }
      try (Socket next = connect(server)) {
        next.setSoTimeout(30_000);
        send(next, "GET /bkt/small HTTP/1.1");
        String reply = new String(next.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        assertTrue(reply.startsWith("HTTP/1.1 200 "), reply);
        assertTrue(reply.endsWith("<second/>"), reply);
      }
    }
  }

  private static Socket connect(FakeS3Server server) throws IOException {
    return new Socket(server.endpoint().getHost(), server.endpoint().getPort());
  }

  private static void send(Socket s, String requestLine) throws IOException {
    OutputStream out = s.getOutputStream();
    out.write((requestLine + "\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }
}
