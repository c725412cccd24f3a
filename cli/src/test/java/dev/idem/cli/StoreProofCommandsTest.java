package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.testing.HeaderStrippingProxy;
import dev.idem.store.s3.testing.QuirkProxy;
import dev.idem.store.s3.testing.QuirkProxy.Quirk;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stores prove themselves before the commands write: exit 8 and one line for a store that ignores a
 * conditional header, answers otherwise than S3 does, deletes the object at a key on abort, or names
 * another pointer mode; nothing created by reading commands; and {@code idem doctor}, also against
 * gateways answering as moto, Adobe S3Mock and s3rver do.
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
    assertTrue(w.err().contains("this process is configured for log (--pointer-mode or IDEM_S3_POINTER_MODE)"),
        w.describe());
    assertTrue(w.err().contains("leave it unset to follow the marker"), w.describe());
    assertEquals(ExitCodes.STORE_REFUSED, r.code(), r.describe());
    Cli.Result flag = s3Cli(server.endpoint().toString()).run("pointer", "show", "--pipeline", "border-state",
        "--store", store, "--pointer-mode", "log");
    assertEquals(ExitCodes.STORE_REFUSED, flag.code(), flag.describe());
  }

  @Test
  void publishGetAndShow_noModeConfigured_followTheMarkersMode() throws Exception {
    String store = "s3://" + server.createBucket(true) + "/exports";
    Cli log = s3Cli(server.endpoint().toString()).env("IDEM_S3_POINTER_MODE", "log");
    assertEquals(0, publish(log, store, "rows\n").code());
    Cli unset = s3Cli(server.endpoint().toString());

    Cli.Result w = publish(unset, store, "rows\n");
    Cli.Result show = unset.run("pointer", "show", "--pipeline", "border-state", "--store", store);
    Cli.Result get = unset.run("get", "--pipeline", "border-state", "--store", store);
    Cli.Result same = s3Cli(server.endpoint().toString()).run("pointer", "show", "--pipeline", "border-state",
        "--store", store, "--pointer-mode", "log");

    assertEquals(0, w.code(), w.describe());
    assertTrue(w.out().startsWith("IDENTICAL "), w.describe());
    assertEquals(0, show.code(), show.describe());
    assertEquals("rows\n", new String(get.raw(), java.nio.charset.StandardCharsets.UTF_8), get.describe());
    assertEquals(0, same.code(), "the flag naming the marker's mode is no conflict: " + same.describe());
  }

  @Test
  void pointerModeFlag_onAFileStore_isAUsageError() throws Exception {
    Path f = Files.writeString(dir.resolve("rows"), "rows\n");
    Cli.Result flag = new Cli().run("publish", "--file", f.toString(), "--pipeline", "p", "--window", "60s",
        "--schema", "3", "--store", "file:" + dir.resolve("store"), "--pointer-mode", "log");
    assertEquals(ExitCodes.USAGE, flag.code(), flag.describe());
    assertTrue(flag.err().contains("--pointer-mode"), flag.describe());
    assertFalse(Files.exists(dir.resolve("store")), "nothing written: " + flag.describe());
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
    assertTrue(((List<?>) j.get("not_checked")).stream().anyMatch(n -> ((String) n).contains("--no-probe")), r.describe());
  }

  @Test
  void doctorNoProbe_saysWhatItDidNotCheck_neverThatIdemCanWrite() throws Exception {
    Path root = dir.resolve("store");
    assertEquals(0, publish(new Cli(), "file:" + root, "rows\n").code());

    Cli.Result r = new Cli().run("doctor", "--no-probe", "--store", "file:" + root);

    assertEquals(0, r.code(), r.describe());
    assertFalse(r.out().contains("ok: idem can write"), "nothing was written to find out: " + r.describe());
    assertTrue(r.out().contains("\nnot checked:\n  now: --no-probe "), r.describe());
    String[] lines = r.outLines();
    assertEquals("ok: the guarantees the marker recorded hold for file:" + root + " (not probed now)",
        lines[lines.length - 1], r.describe());
  }

  @Test
  void doctor_fileStore_saysTheLockIsNotCheckedAcrossHosts() {
    Cli.Result r = new Cli().run("doctor", "--store", "file:" + dir.resolve("store"));
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.out().contains("\nnot checked:\n  file-locks across hosts: "), r.describe());
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

  /** Adobe S3Mock deletes the object at a key when an upload to it is aborted. */
  @Test
  void doctor_s3AbortDeletesTheObjectAtItsKey_exits8NamingTheAbortGuarantee() throws Exception {
    String bucket = server.createBucket(false);
    try (QuirkProxy s3mock = new QuirkProxy(server, Quirk.abortDeletesTheObject(server),
        Quirk.renamesRoot("ListVersionsResult", "ListBucketResult"))) {
      Cli.Result r = s3Cli(s3mock.endpoint().toString()).run("doctor", "--store", "s3://" + bucket + "/exports");

      assertEquals(ExitCodes.STORE_REFUSED, r.code(), r.describe());
      assertTrue(r.out().contains("\n  MISSING abort-keeps-object: an object PUT at _idem/probe/"), r.describe());
      assertTrue(r.out().contains("\n  HELD if-match: "), r.describe());
      assertEquals(1, r.errLines().length, r.describe());
      assertTrue(r.errLines()[0].startsWith("idem doctor: s3://" + bucket + "/exports at " + s3mock.endpoint()
          + " deletes the object at a key when a multipart upload to that key is aborted ("), r.describe());
      assertEquals(List.of(), keys(bucket));
    }
  }

  /** Adobe S3Mock 4.12 answers a conditional completion onto an existing key with 304: a refusal, not an outage. */
  @Test
  void publish_s3AnswersConditionalCompletionWith304_exits8NamingIt() throws Exception {
    String bucket = server.createBucket(false);
    try (QuirkProxy s3mock = new QuirkProxy(server, Quirk.conditionalCompletionAnswers(304, server))) {
      Cli.Result r = publish(s3Cli(s3mock.endpoint().toString()), "s3://" + bucket + "/exports", "rows\n");

      assertEquals(ExitCodes.STORE_REFUSED, r.code(), r.describe());
      assertEquals(1, r.errLines().length, r.describe());
      assertTrue(r.err().contains(" does not refuse a CompleteMultipartUpload with If-None-Match: * onto the existing"
          + " _idem/probe/"), r.describe());
      assertTrue(r.err().contains("(answered 304, not 412)"), r.describe());
      assertEquals(List.of(), keys(bucket));
    }
  }

  /** s3rver ignores If-None-Match and answers the abort of a completed upload with 405: the verdict stands. */
  @Test
  void doctorAndPublish_s3IgnoresIfNoneMatchAndAnswersAbortWith405_exit8NamingTheHeader() throws Exception {
    String bucket = server.createBucket(false);
    try (QuirkProxy s3rver = new QuirkProxy(server, Quirk.strips(null, Set.of("If-None-Match"), new AtomicInteger()),
        Quirk.abortOfFinishedUploadAnswers(405))) {
      Cli cli = s3Cli(s3rver.endpoint().toString());
      Cli.Result d = cli.run("doctor", "--store", "s3://" + bucket + "/exports");
      Cli.Result p = publish(cli, "s3://" + bucket + "/exports", "rows\n");

      assertEquals(ExitCodes.STORE_REFUSED, d.code(), d.describe());
      assertTrue(d.out().contains("\n  MISSING if-none-match: "), d.describe());
      assertTrue(d.out().contains("\n  MISSING if-none-match-multipart: "), d.describe());
      assertTrue(d.out().contains("\n  HELD abort-keeps-object: "), d.describe());
      assertEquals(ExitCodes.STORE_REFUSED, p.code(), p.describe());
      assertTrue(p.err().contains(" ignores If-None-Match: * (a second create-only PUT of _idem/probe/"), p.describe());
      assertEquals(List.of(), keys(bucket));
    }
  }

  /** moto spells the roots of CompleteMultipartUpload's and GetBucketVersioning's replies its own way. */
  @Test
  void doctor_s3SpellsReplyRootsAsMotoDoes_acceptedAndVersioningShown() throws Exception {
    String bucket = server.createBucket(true);
    try (QuirkProxy moto = new QuirkProxy(server,
        Quirk.renamesRoot("CompleteMultipartUploadResult", "CompleteMultipartUploadResponse"),
        Quirk.renamesRoot("VersioningConfiguration", "GetBucketVersioningResponse"))) {
      Cli cli = s3Cli(moto.endpoint().toString());
      Cli.Result d = cli.run("doctor", "--store", "s3://" + bucket + "/exports");
      Cli.Result p = publish(cli, "s3://" + bucket + "/exports", "rows\n");
      Cli.Result n = cli.run("doctor", "--no-probe", "--store", "s3://" + bucket + "/exports");

      assertEquals(0, d.code(), d.describe());
      assertTrue(d.out().contains("\nversioning: Enabled\n"), d.describe());
      assertEquals(0, p.code(), p.describe());
      assertEquals(0, n.code(), n.describe());
      assertTrue(n.out().contains("\n  HELD abort-keeps-object: "), n.describe());
    }
  }

  /** Every guarantee judged before a probe failed is listed, and that failure decides the exit. */
  @Test
  void doctor_aLaterProbeFails_listsWhatWasJudgedAndExitsWithTheFailure() throws Exception {
    String bucket = server.createBucket(false);
    try (QuirkProxy denied = new QuirkProxy(server, Quirk.refusesParts(403, "AccessDenied"))) {
      Cli.Result r = s3Cli(denied.endpoint().toString()).run("doctor", "--store", "s3://" + bucket + "/exports");

      assertEquals(ExitCodes.AUTH, r.code(), r.describe());
      assertTrue(r.out().contains("\n  HELD if-none-match: "), r.describe());
      assertTrue(r.out().contains("\n  HELD if-match: "), r.describe());
      assertFalse(r.out().contains("if-none-match-multipart"), r.describe());
      assertEquals(1, r.errLines().length, r.describe());
      assertTrue(r.err().contains("AccessDenied"), r.describe());
    }
  }

  /** A guarantee found missing decides the exit (8) even when a later probe fails; both are said. */
  @Test
  void doctor_missingGuaranteeThenALaterProbeFails_exits8AndSaysWhereProbingStopped() throws Exception {
    String bucket = server.createBucket(false);
    try (QuirkProxy proxy = new QuirkProxy(server, Quirk.strips(null, Set.of("If-None-Match"), new AtomicInteger()),
        Quirk.refusesParts(403, "AccessDenied"))) {
      Cli.Result r = s3Cli(proxy.endpoint().toString()).run("doctor", "--store", "s3://" + bucket + "/exports");
      Cli.Result j = s3Cli(proxy.endpoint().toString()).run("doctor", "--json", "--store", "s3://" + bucket
          + "/exports");

      assertEquals(ExitCodes.STORE_REFUSED, r.code(), r.describe());
      assertTrue(r.out().contains("\n  MISSING if-none-match: "), r.describe());
      assertTrue(r.out().contains("\n  HELD if-match: "), r.describe());
      assertEquals(2, r.errLines().length, r.describe());
      assertTrue(r.errLines()[0].contains(" ignores If-None-Match: * ("), r.describe());
      assertTrue(r.errLines()[1].startsWith("idem doctor: probing stopped before every guarantee was judged: "),
          r.describe());
      assertTrue(r.errLines()[1].contains("AccessDenied"), r.describe());
      assertEquals(ExitCodes.STORE_REFUSED, j.code(), j.describe());
      Map<String, Object> doc = MiniJson.object(j.outLines()[0]);
      assertEquals(2, ((List<?>) doc.get("guarantees")).size(), j.describe());
      assertEquals(Boolean.FALSE, doc.get("ok"), j.describe());
      assertTrue(String.valueOf(doc.get("stopped")).contains("AccessDenied"), j.describe());
    }
  }
}
