package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.testing.HeaderStrippingProxy;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stores prove themselves before the commands write: exit 8 and one line for a store that ignores a
 * conditional header or names another pointer mode, nothing created by reading commands, and {@code
 * idem doctor}.
 */
class StoreProofCommandsTest {
  static S3ProxyServer server;

  @TempDir
  Path dir;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3ProxyServer.shared();
  }

  Cli s3Cli(String endpoint) {
    return new Cli()
        .env("AWS_ENDPOINT_URL", endpoint)
        .env("AWS_REGION", S3ProxyServer.REGION)
        .env("AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS_KEY)
        .env("AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET_KEY)
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("HOME", dir.toString());
  }

  Cli.Result publish(Cli cli, String store, String content) throws Exception {
    Path f = Files.writeString(Files.createTempFile(dir, "p", ""), content);
    return cli.run("publish", "--file", f.toString(), "--pipeline", "border-state", "--window", "60s",
        "--at", "1726000030", "--schema", "3", "--store", store, "--writer", "ci");
  }

  static List<String> keys(String bucket) throws Exception {
    return server.client().listObjects(bucket, "", null, null, 1000).objects().stream().map(o -> o.key()).toList();
  }

  @Test
  void publish_s3IgnoringIfNoneMatch_exits8WithOneLineAndWritesNothing() throws Exception {
    String bucket = server.createBucket(false);
    try (HeaderStrippingProxy proxy = new HeaderStrippingProxy(server, "If-None-Match")) {
      Cli.Result r = publish(s3Cli(proxy.endpoint().toString()), "s3://" + bucket + "/exports", "rows\n");

      assertEquals(ExitCodes.STORE_REFUSED, r.code(), r.describe());
      assertEquals(1, r.errLines().length, r.describe());
      assertTrue(r.err().startsWith("idem publish: s3://" + bucket + "/exports at " + proxy.endpoint()
          + " ignores If-None-Match: * (a second create-only PUT of _idem/probe/"), r.describe());
      assertEquals("", r.out(), r.describe());
      assertEquals(List.of(), keys(bucket));
    }
  }

  @Test
  void run_casModeS3IgnoringIfMatch_exits8BeforeCmdRuns() throws Exception {
    String bucket = server.createBucket(false);
    try (HeaderStrippingProxy proxy = new HeaderStrippingProxy(server, "If-Match")) {
      Path ran = dir.resolve("ran");
      Cli.Result r = s3Cli(proxy.endpoint().toString()).run("run", "--pipeline", "job", "--window", "1h",
          "--schema", "1", "--store", "s3://" + bucket + "/exports", "--", "sh", "-c",
          "touch '" + ran + "'; printf done > \"$IDEM_OUTPUT\"");

      assertEquals(ExitCodes.STORE_REFUSED, r.code(), r.describe());
      assertTrue(r.err().contains(" ignores If-Match ("), r.describe());
      assertEquals(List.of(), keys(bucket));
      assertEquals(1, r.errLines().length, r.describe());
      assertFalse(Files.exists(ran), "CMD ran although the store was refused: " + r.describe());
    }
  }

  @Test
  void publishAndGet_otherPointerModeThanTheMarker_exit8() throws Exception {
    String store = "s3://" + server.createBucket(true) + "/exports";
    assertEquals(0, publish(s3Cli(server.endpoint().toString()), store, "rows\n").code());
    Cli log = s3Cli(server.endpoint().toString()).env("IDEM_S3_POINTER_MODE", "log");

    Cli.Result w = publish(log, store, "rows\n");
    Cli.Result r = log.run("get", "--pipeline", "border-state", "--store", store);

    assertEquals(ExitCodes.STORE_REFUSED, w.code(), w.describe());
    assertTrue(w.err().contains(" uses pointer mode cas (its marker " + store + "/_idem/store, created "), w.describe());
    assertTrue(w.err().contains("this process is configured for log"), w.describe());
    assertEquals(ExitCodes.STORE_REFUSED, r.code(), r.describe());
  }

  @Test
  void readingCommands_missingFileStore_createNothing() {
    Path root = dir.resolve("never");
    String store = "file:" + root;
    Cli cli = new Cli();
    cli.run("scan", "--pipeline", "border-state", "--store", store);
    cli.run("scan", "--prefix", "", "--store", store);
    cli.run("get", "--pipeline", "border-state", "--store", store);
    cli.run("pointer", "show", "--pipeline", "border-state", "--store", store);
    cli.run("gc", "--pipeline", "border-state", "--keep", "1", "--dry-run", "--store", store);
    Cli.Result doctor = cli.run("doctor", "--no-probe", "--store", store);

    assertEquals(ExitCodes.NOT_FOUND, doctor.code(), doctor.describe());
    assertFalse(Files.exists(root), "a reading command created " + root);
  }

  @Test
  void publish_fileStore_createsRootAndMarker() throws Exception {
    Path root = dir.resolve("store");
    Cli.Result r = publish(new Cli(), "file:" + root, "rows\n");
    assertEquals(0, r.code(), r.describe());
    assertTrue(Files.readString(root.resolve("_idem/store")).startsWith("idem-store 1\nkind=file\npointer_mode=lock\n"));
  }

  @Test
  void doctor_fileStore_probesAndReportsEachGuaranteeWithoutCreatingTheMarker() throws Exception {
    Path root = dir.resolve("store");
    Cli.Result r = new Cli().run("doctor", "--store", "file:" + root);

    assertEquals(0, r.code(), r.describe());
    String[] lines = r.outLines();
    assertEquals("store: file:" + root, lines[0], r.describe());
    assertTrue(r.out().contains("\nmarker: none yet (the first writing command probes the store and creates file:"),
        r.describe());
    assertTrue(r.out().contains("\n  HELD hard-links: link(2) of a scratch file"), r.describe());
    assertTrue(r.out().contains("\n  HELD directory-fsync: "), r.describe());
    assertTrue(r.out().contains("\n  HELD file-locks: "), r.describe());
    assertEquals("ok: idem can write to file:" + root, lines[lines.length - 1], r.describe());
    assertFalse(Files.exists(root.resolve("_idem/store")));
    try (var probe = Files.list(root.resolve("_idem/probe"))) {
      assertEquals(0, probe.count(), "doctor left scratch files");
    }
  }

  @Test
  void doctorNoProbe_afterAWrite_reportsTheMarkersAnswersAsJson() throws Exception {
    Path root = dir.resolve("store");
    assertEquals(0, publish(new Cli(), "file:" + root, "rows\n").code());

    Cli.Result r = new Cli().run("doctor", "--no-probe", "--json", "--store", "file:" + root);

    assertEquals(0, r.code(), r.describe());
    Map<String, Object> j = MiniJson.object(r.out());
    assertEquals("marker", j.get("source"), r.describe());
    assertEquals(Boolean.TRUE, j.get("ok"), r.describe());
    assertEquals(3, ((List<?>) j.get("guarantees")).size(), r.describe());
  }

  @Test
  void doctor_s3IgnoringIfNoneMatch_exits8NamingTheHeaderAndReportsEnvironment() throws Exception {
    String bucket = server.createBucket(true);
    try (HeaderStrippingProxy proxy = new HeaderStrippingProxy(server, "If-None-Match")) {
      Cli.Result r = s3Cli(proxy.endpoint().toString()).run("doctor", "--store", "s3://" + bucket + "/exports");

      assertEquals(ExitCodes.STORE_REFUSED, r.code(), r.describe());
      assertTrue(r.out().contains("\nendpoint: " + proxy.endpoint() + "\n"), r.describe());
      assertTrue(r.out().contains("\naddressing: path-style\n"), r.describe());
      assertTrue(r.out().contains("\nversioning: Enabled\n"), r.describe());
      assertTrue(r.out().contains("\ncredentials: environment"), r.describe());
      assertTrue(r.out().contains("\nclock_skew: "), r.describe());
      assertTrue(r.out().contains("\n  MISSING if-none-match: "), r.describe());
      assertTrue(r.out().contains("\n  MISSING if-none-match-multipart: "), r.describe());
      assertTrue(r.out().contains("\n  HELD if-match: "), r.describe());
      // The gateway passes no checksum header on: recorded, and single PUTs would sign the payload.
      assertTrue(r.out().contains("\n  ABSENT put-checksum-sha256 (not required): an UNSIGNED-PAYLOAD PUT to"),
          r.describe());
      assertEquals(2, r.errLines().length, "one line per missing guarantee: " + r.describe());
      assertTrue(r.errLines()[0].contains(" ignores If-None-Match: * ("), r.describe());
      assertFalse(r.out().contains(S3ProxyServer.SECRET_KEY) || r.err().contains(S3ProxyServer.SECRET_KEY));
      assertEquals(List.of(), keys(bucket));
    }
  }
}
