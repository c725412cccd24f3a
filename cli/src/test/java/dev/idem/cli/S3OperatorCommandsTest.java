package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.testing.S3ProxyServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ack}, {@code history}, {@code pipelines} and {@code get --latest-of-schema} on S3 (S3Proxy, a
 * versioned bucket under a prefix): the acknowledgement is an object under {@code _idem/acks/}, the
 * pipelines come from delimiter listings, and a window of one key has its schema read by a HEAD.
 */
class S3OperatorCommandsTest {
  static S3ProxyServer server;

  @TempDir
  Path dir;

  String store;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3ProxyServer.shared();
  }

  @BeforeEach
  void bucket() throws Exception {
    store = "s3://" + server.createBucket(true) + "/exports";
  }

  private Cli.Result run(String... args) {
    String[] all = java.util.Arrays.copyOf(args, args.length + 2);
    all[args.length] = "--store";
    all[args.length + 1] = store;
    return Cli.onS3(server, dir).env("IDEM_S3_POINTER_MODE", "log").run(all);
  }

  private Cli.Result publish(int window, int schema, String content, String writer) throws Exception {
    Path f = Files.writeString(Files.createTempFile(dir, "p", ""), content);
    return run("publish", "--file", f.toString(), "--pipeline", "border-state", "--window", "60s",
        "--at", Long.toString(1726000020L + 60L * window), "--schema", Integer.toString(schema), "--writer", writer);
  }

  @Test
  void ackHistoryPipelinesLatestOfSchema_onS3() throws Exception {
    assertEquals(0, publish(0, 3, "rows", "host-a").code());
    Cli.Result divergent = publish(0, 3, "other rows", "host-b");
    assertEquals(ExitCodes.DIVERGENT, divergent.code(), divergent.describe());
    assertEquals(0, publish(1, 4, "schema 4", "host-c").code());
    assertEquals(0, publish(2, 3, "schema 3 again", "host-a").code());

    Cli.Result pipelines = run("pipelines");
    assertEquals(0, pipelines.code(), pipelines.describe());
    assertTrue(pipelines.out().startsWith("border-state key=border-state/1726000080/"), pipelines.describe());
    assertEquals(1, pipelines.outLines().length, pipelines.describe());

    Cli.Result h = run("history", "--pipeline", "border-state", "--json");
    assertEquals(0, h.code(), h.describe());
    assertEquals(4, h.outLines().length, h.describe());
    Map<String, Object> g0 = MiniJson.object(h.outLines()[0]);
    assertEquals("DIVERGENT", g0.get("outcome"), h.describe());
    assertEquals(3L, ((Number) g0.get("schema")).longValue(), "read by a HEAD: one key in its window");
    assertEquals(4L, ((Number) MiniJson.object(h.outLines()[1]).get("schema")).longValue());
    assertEquals("latest", MiniJson.object(h.outLines()[2]).get("pointer"));

    String key = (String) g0.get("key");
    Cli.Result ack = run("ack", key, "--reason", "INC-42: fixed", "--writer", "ops-alice");
    assertEquals(0, ack.code(), ack.describe());
    Cli.Result scan = run("scan", "--pipeline", "border-state");
    assertEquals(0, scan.code(), scan.describe());
    assertTrue(scan.err().contains("idem scan: ACKNOWLEDGED " + key + " writes=2 payloads=2 by ops-alice at "),
        scan.describe());
    assertEquals("ACKNOWLEDGED", MiniJson.object(run("history", "--pipeline", "border-state", "--json").outLines()[0])
        .get("outcome"));

    Cli.Result four = run("get", "--pipeline", "border-state", "--latest-of-schema", "4");
    assertEquals(0, four.code(), four.describe());
    assertEquals("schema 4", new String(four.raw(), StandardCharsets.UTF_8));

    Cli.Result typo = run("history", "--pipeline", "border-stat");
    assertEquals(ExitCodes.NOT_FOUND, typo.code(), typo.describe());
    assertTrue(typo.err().endsWith("; did you mean border-state?\n"), typo.describe());
  }
}
