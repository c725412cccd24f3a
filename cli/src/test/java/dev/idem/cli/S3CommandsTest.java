package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.testing.OnEachS3Server;
import dev.idem.store.s3.testing.S3Implementation;
import dev.idem.store.s3.testing.S3TestServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;

/**
 * The commands on an S3 store, on each S3 implementation on 127.0.0.1: versioned buckets, credentials
 * from the environment.
 */
@OnEachS3Server
class S3CommandsTest {
  @Parameter
  S3Implementation implementation;

  S3TestServer server;

  @TempDir
  Path dir;

  String store;

  @BeforeEach
  void bucket() throws Exception {
    server = implementation.shared();
    store = "s3://" + server.createBucket(true) + "/exports";
  }

  /** Credentials and endpoint as a job would have them; IMDS is never consulted. */
  Cli cli() {
    return cli(S3TestServer.SECRET_KEY);
  }

  Cli cli(String secret) {
    return Cli.onS3(server, dir).env("AWS_SECRET_ACCESS_KEY", secret);
  }

  Cli.Result publish(String content) throws Exception {
    Path f = Files.writeString(Files.createTempFile(dir, "p", ""), content);
    return cli().run("publish", "--file", f.toString(), "--pipeline", "border-state", "--window", "60s",
        "--at", "1726000030", "--schema", "3", "--store", store, "--writer", "ci");
  }

  @Test
  void publishGetPointerScan_onS3() throws Exception {
    Cli.Result created = publish("rows\n");
    assertEquals(0, created.code(), created.describe());
    assertTrue(created.out().startsWith("CREATED border-state/1725999960/state-"), created.describe());
    assertTrue(publish("rows\n").out().startsWith("IDENTICAL "));

    Cli.Result get = cli().run("get", "--pipeline", "border-state", "--store", store);
    assertEquals(0, get.code(), get.describe());
    assertEquals("rows\n", new String(get.raw(), StandardCharsets.UTF_8));

    Cli.Result show = cli().run("pointer", "show", "--pipeline", "border-state", "--store", store, "--json");
    assertEquals(0, show.code(), show.describe());
    assertEquals("ci", MiniJson.object(show.out()).get("writer"), show.describe());

    Cli.Result clean = cli().run("scan", "--pipeline", "border-state", "--store", store);
    assertEquals(0, clean.code(), clean.describe());
    assertEquals("scanned prefix=border-state/ divergent_keys=0\n", clean.out(), clean.describe());

    Cli.Result divergent = publish("other rows\n");
    assertEquals(ExitCodes.DIVERGENT, divergent.code(), divergent.describe());
    Cli.Result scan = cli().run("scan", "--prefix", "border-state/", "--store", store);
    assertEquals(ExitCodes.DIVERGENT, scan.code(), scan.describe());
    assertTrue(scan.out().matches("DIVERGENT border-state/1725999960/state-[0-9a-f]{64} writes=\\d+ payloads=2\n"
        + "scanned prefix=border-state/ divergent_keys=1\n"), scan.describe());
  }

  /**
   * The store probe decides on each server before the first write: S3Proxy and moto hold every guarantee
   * idem needs on a versioned bucket (moto's racing creates all succeed, which publishes there check for:
   * recorded, not required); Adobe S3Mock deletes the object at a key when an upload of the key is aborted,
   * so doctor and publish exit 8 naming that guarantee ({@code abort-keeps-object}) and nothing is published.
   */
  @Test
  void doctorAndPublish_eachServer_acceptedOrRefusedByItsProbe() throws Exception {
    Cli.Result doctor = cli().run("doctor", "--store", store);
    Cli.Result published = publish("rows\n");

    if (implementation == S3Implementation.S3MOCK) {
      assertEquals(ExitCodes.STORE_REFUSED, doctor.code(), doctor.describe());
      assertTrue(doctor.out().contains("\n  MISSING abort-keeps-object: "), doctor.describe());
      assertEquals(ExitCodes.STORE_REFUSED, published.code(), published.describe());
      assertEquals(1, published.errLines().length, published.describe());
      assertTrue(published.err().contains(" deletes the object at a key when a multipart upload to that key is"
          + " aborted"), published.describe());
      String bucket = store.substring("s3://".length(), store.indexOf("/exports"));
      assertEquals(List.of(), server.client().listObjects(bucket, "exports/border-state/", null, null, 1000).objects(),
          "nothing published");
      return;
    }
    assertEquals(0, doctor.code(), doctor.describe());
    assertTrue(doctor.out().contains("\n  HELD abort-keeps-object: "), doctor.describe());
    assertTrue(doctor.out().contains(implementation == S3Implementation.MOTO
        ? "\n  ABSENT if-none-match-atomic (not required): " : "\n  HELD if-none-match-atomic (not required): "),
        doctor.describe());
    // The probe passes If-Match on S3Proxy too, whose If-Match is not atomic: doctor must say it did not
    // check what cas mode relies on.
    assertTrue(doctor.out().contains("\nnot checked:\n  if-match atomicity: "), doctor.describe());
    assertTrue(doctor.out().contains("IDEM_S3_POINTER_MODE=log"), doctor.describe());
    assertEquals(0, published.code(), published.describe());
    assertTrue(published.out().startsWith("CREATED border-state/1725999960/state-"), published.describe());
  }

  /**
   * On an unversioned bucket a server whose racing creates all succeed is refused: moto's doctor and
   * publish exit 8 naming {@code if-none-match-atomic}, and nothing is published. S3Proxy's are atomic as
   * far as its probe can tell, which an unversioned bucket requires.
   */
  @Test
  void doctorAndPublish_unversionedBucket_refusedWhereRacingCreatesAllSucceed() throws Exception {
    String bucket = server.createBucket(false);
    store = "s3://" + bucket + "/exports";

    Cli.Result doctor = cli().run("doctor", "--store", store);
    Cli.Result published = publish("rows\n");

    if (implementation == S3Implementation.MOTO) {
      assertEquals(ExitCodes.STORE_REFUSED, doctor.code(), doctor.describe());
      assertTrue(doctor.out().contains("\n  MISSING if-none-match-atomic: "), doctor.describe());
      assertEquals(ExitCodes.STORE_REFUSED, published.code(), published.describe());
      assertEquals(1, published.errLines().length, published.describe());
      assertTrue(published.err().contains(" does not apply If-None-Match: * atomically (if-none-match-atomic): "),
          published.describe());
      assertEquals(List.of(), server.client().listObjects(bucket, "exports/border-state/", null, null, 1000).objects(),
          "nothing published");
      return;
    }
    assertEquals(0, doctor.code(), doctor.describe());
    assertTrue(doctor.out().contains("\n  HELD if-none-match-atomic: "), doctor.describe());
    assertEquals(0, published.code(), published.describe());
  }

  @Test
  void run_onS3() throws Exception {
    Cli.Result r = cli().run("run", "--pipeline", "job", "--window", "1h", "--schema", "1", "--store", store, "--json",
        "--", "sh", "-c", "printf done > \"$IDEM_OUTPUT\"");
    assertEquals(0, r.code(), r.describe());
    Map<String, Object> j = MiniJson.object(r.out());
    assertEquals("CREATED", j.get("status"), r.describe());
    Cli.Result again = cli().run("run", "--pipeline", "job", "--window", "1h", "--schema", "1", "--store", store,
        "--", "sh", "-c", "touch '" + dir.resolve("ran") + "'; printf done > \"$IDEM_OUTPUT\"");
    assertEquals(0, again.code(), again.describe());
    assertTrue(again.out().startsWith("SKIPPED "), again.describe());
    assertFalse(Files.exists(dir.resolve("ran")), "CMD did not run");
  }

  @Test
  void wrongSecret_isAnAuthFailure() throws Exception {
    Cli.Result r = cli("not-the-secret").run("pointer", "show", "--pipeline", "p", "--store", store);
    assertEquals(ExitCodes.AUTH, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
    assertFalse(r.err().contains("not-the-secret"), r.describe());
  }

  @Test
  void noCredentials_isAnAuthFailure() {
    Cli.Result r = new Cli().env("AWS_ENDPOINT_URL", server.endpoint().toString()).env("AWS_EC2_METADATA_DISABLED", "true")
        .env("HOME", dir.toString())
        .run("pointer", "show", "--pipeline", "p", "--store", store);
    assertEquals(ExitCodes.AUTH, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
  }

  @Test
  void demo_onS3() {
    Cli.Result r = cli().run("demo", "--store", store);
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.out().contains("scanned prefix=" + DemoCommand.PIPELINE + "/ divergent_keys=1"), r.describe());
  }

  @Test
  void gc_onS3() throws Exception {
    publish("rows\n");
    Cli.Result r = cli().run("gc", "--pipeline", "border-state", "--keep", "1", "--dry-run", "--store", store);
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.out().contains("removed=0"), r.describe());
  }

  @Test
  void gc_onAnEmptyPrefix_writesNothingThere() throws Exception {
    String empty = store + "-typo";
    Cli.Result r = cli().run("gc", "--pipeline", "border-state", "--keep", "1", "--grace", "0s", "--store", empty);
    assertEquals(0, r.code(), r.describe());
    String bucket = empty.substring("s3://".length(), empty.indexOf('/', "s3://".length()));
    assertEquals(List.of(), server.client().listObjects(bucket, "exports-typo/", null, null, 10).objects(),
        "no marker, no probe scratch: a command that only deletes never creates a store");
  }

  @Test
  void scan_objectReplacedOnUnversionedBucket_failsTheGateLikePointerShow() throws Exception {
    String bucket = server.createBucket(false);
    store = "s3://" + bucket + "/exports";
    assertEquals(0, publish("rows\n").code());
    String key = cli().run("key", "--pipeline", "border-state", "--window", "60s", "--at", "1726000030", "--schema", "3")
        .out().strip();
    // A foreign writer replaces the object in place; without versioning its history shows one clean version.
    server.client().put(bucket, "exports/" + key, RequestBody.ofBytes("forged\n".getBytes(StandardCharsets.UTF_8)),
        null, Map.of());
    Cli.Result show = cli().run("pointer", "show", "--pipeline", "border-state", "--store", store);
    assertEquals(ExitCodes.NOT_FOUND, show.code(), show.describe());
    Cli.Result scan = cli().run("scan", "--pipeline", "border-state", "--store", store);
    assertEquals(ExitCodes.DIVERGENT, scan.code(), scan.describe());
    assertEquals("scanned prefix=border-state/ divergent_keys=0\n", scan.out(), scan.describe());
    assertTrue(scan.err().contains("POINTER-MISMATCH the pointer of border-state names " + key), scan.describe());
  }

  @Test
  void scan_missingBucket_exits4() {
    Cli.Result r = cli().run("scan", "--store", "s3://no-such-bucket-for-idem/exports", "--allow-empty");
    assertEquals(ExitCodes.STORE_UNAVAILABLE, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
    assertTrue(r.err().contains("bucket no-such-bucket-for-idem does not exist"), r.describe());
  }

  @Test
  void scan_emptyPrefixOfLegacyBucket_exits9UnlessAllowEmpty() throws Exception {
    Cli.Result r = cli().run("scan", "--store", store);
    assertEquals(ExitCodes.NOTHING_EXAMINED, r.code(), r.describe());
    assertEquals(0, cli().run("scan", "--store", store, "--allow-empty").code());
    String bucket = store.substring("s3://".length(), store.indexOf("/exports"));
    server.client().put(bucket, "exports/legacy/state.json", RequestBody.ofBytes("{}".getBytes(StandardCharsets.UTF_8)),
        null, Map.of());
    Cli.Result legacy = cli().run("scan", "--store", store);
    assertEquals(0, legacy.code(), "a bucket without idem's files stays scannable: " + legacy.describe());
  }

  /**
   * The whole store, its own {@code _idem/} area (the marker, the pointer) included, holding one key
   * published once: one key examined, clean.
   */
  @Test
  void scan_wholeStoreOneCleanKey_exits0OneKeyExamined() throws Exception {
    assertEquals(0, publish("rows\n").code());

    Cli.Result scan = cli().run("scan", "--store", store);

    assertEquals(0, scan.code(), scan.describe());
    assertEquals("scanned prefix= divergent_keys=0\n", scan.out(), scan.describe());
    assertTrue(scan.err().contains("examined 1 keys (1 versions and publish records) and 1 pointers"), scan.describe());
  }

  /**
   * The whole store holding one key whose object a foreign writer replaced in place (a second version
   * with other bytes): divergent, the gate fails.
   */
  @Test
  void scan_wholeStoreOneOverwrittenKey_exits1() throws Exception {
    assertEquals(0, publish("rows\n").code());
    String key = cli().run("key", "--pipeline", "border-state", "--window", "60s", "--at", "1726000030", "--schema", "3")
        .out().strip();
    String bucket = store.substring("s3://".length(), store.indexOf("/exports"));
    server.client().put(bucket, "exports/" + key, RequestBody.ofBytes("forged\n".getBytes(StandardCharsets.UTF_8)),
        null, Map.of());

    Cli.Result scan = cli().run("scan", "--store", store);

    assertEquals(ExitCodes.DIVERGENT, scan.code(), scan.describe());
    assertEquals("DIVERGENT " + key + " writes=2 payloads=2\nscanned prefix= divergent_keys=1\n", scan.out(),
        scan.describe());
  }

  /**
   * The summary of {@code scan --json} says what the scan asked of the store: its listings and the
   * entries they held, HEADs and GETs. One clean key needs no HEAD; the object its pipeline's pointer
   * names is HEADed once, to check it is there with the pointer's SHA-256.
   */
  @Test
  void scan_json_summaryCountsTheRequests() throws Exception {
    assertEquals(0, publish("rows\n").code());

    Cli.Result scan = cli().run("scan", "--store", store, "--pipeline", "border-state", "--json");

    assertEquals(0, scan.code(), scan.describe());
    String summary = scan.out().lines().filter(l -> l.contains("\"type\":\"summary\"")).findFirst().orElseThrow();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile(
        "\"requests\":\\{\"sent\":\\d+,\"class_a\":\\d+,\"class_b\":\\d+,\"free\":\\d+,"
            + "\"list\":(\\d+),\"entries_listed\":(\\d+),\"head\":(\\d+),\"get\":(\\d+)}").matcher(summary);
    assertTrue(m.find(), scan.describe());
    assertTrue(Long.parseLong(m.group(1)) >= 2, "the version listing and the evidence listing: " + summary);
    assertTrue(Long.parseLong(m.group(2)) >= 1, "the key's version: " + summary);
    assertTrue(summary.contains("\"pointers\":1,"), summary);
    assertEquals("1", m.group(3), "one HEAD, for the object the pointer names, none for the clean key: " + summary);
  }
}
