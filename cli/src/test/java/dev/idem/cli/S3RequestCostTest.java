package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.testing.S3ProxyServer;
import dev.idem.store.s3.testing.S3TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each command sends to an S3 store, as its {@code --json} and metrics report it, on S3Proxy (whose
 * {@code If-None-Match: *} is atomic, so a publish needs no listing of its key's versions) and a
 * versioned bucket the store probe has already accepted. The counts are the cost model of docs/DESIGN.md
 * ("What a command sends"): a change that adds a request to the steady state fails here.
 */
class S3RequestCostTest {
  private static final String SPEC_AT = "1726000030";

  @TempDir
  Path dir;

  S3TestServer server;
  String store;

  @BeforeEach
  void probedStore() throws Exception {
    server = S3ProxyServer.shared();
    store = "s3://" + server.createBucket(true) + "/exports";
    // The first write to a store probes it (dozens of requests, once per store) and records its marker.
    Cli.Result probe = cli().run("publish", "--file", file("probe\n").toString(), "--pipeline", "probe", "--window",
        "60s", "--at", SPEC_AT, "--schema", "1", "--store", store);
    assertEquals(0, probe.code(), probe.describe());
  }

  Cli cli() {
    return Cli.onS3(server, dir);
  }

  private String[] spec(String command, String... more) {
    List<String> args = new ArrayList<>(List.of(command.split(" ")));
    args.addAll(List.of("--pipeline", "orders", "--window", "60s", "--at", SPEC_AT, "--schema", "1", "--store", store,
        "--writer", "ci", "--json"));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  /** The {@code requests} object of a command's JSON line: sent, class A, class B, free. */
  @SuppressWarnings("unchecked")
  private static List<Long> requests(Cli.Result r) {
    Map<String, Object> json = MiniJson.object(r.out());
    Map<String, Object> req = (Map<String, Object>) json.get("requests");
    assertTrue(req != null, "no requests in " + r.describe());
    List<Long> counts = new ArrayList<>();
    for (String k : List.of("sent", "class_a", "class_b", "free")) {
      counts.add(((Number) req.get(k)).longValue());
    }
    return counts;
  }

  private Path file(String content) throws Exception {
    return Files.writeString(Files.createTempFile(dir, "p", ""), content);
  }

  /**
   * {@code publish} of a new object and its pointer advance: the marker's GET (the store's proof, once per
   * process), the create-only PUT, the pointer's GET and its conditional PUT. The protocol's minimum is
   * the last three. Publishing the same bytes again: the refused PUT, the HEAD that reads the stored
   * object's SHA-256, the marker and the pointer, already current.
   */
  @Test
  void publish_newObjectAndPointer_fourRequests_sameBytesAgain_four() throws Exception {
    Path f = file("rows\n");
    Cli.Result created = cli().run(spec("publish", "--file", f.toString()));
    assertEquals(0, created.code(), created.describe());
    assertEquals(List.of(4L, 2L, 2L, 0L), requests(created), created.describe());

    Cli.Result identical = cli().run(spec("publish", "--file", f.toString()));
    assertEquals(0, identical.code(), identical.describe());
    assertEquals(List.of(4L, 1L, 3L, 0L), requests(identical), identical.describe());
  }

  /**
   * {@code run} without claims: the pointer's GET (404 NoSuchKey, which also shows the bucket exists), the
   * skip check's HEAD (404), the marker, then the publish. Run again, SKIPPED: the pointer's GET alone,
   * since it names the key (a pointer behind it would send the run on to the HEAD and the advance that
   * completes what a crashed publisher missed).
   */
  @Test
  void run_withoutClaims_sixRequests_skipOne() throws Exception {
    Cli.Result created = cli().run(spec("run --stdout --no-claims", "--", "sh", "-c", "echo rows"));
    assertEquals(0, created.code(), created.describe());
    assertEquals(List.of(6L, 2L, 4L, 0L), requests(created), created.describe());

    Cli.Result skipped = cli().run(spec("run --stdout --no-claims", "--", "sh", "-c", "echo rows"));
    assertEquals(0, skipped.code(), skipped.describe());
    assertEquals("SKIPPED", MiniJson.object(skipped.out()).get("status"), skipped.describe());
    assertEquals(List.of(1L, 0L, 1L, 0L), requests(skipped), skipped.describe());
  }

  /**
   * A claim held while the task runs adds five: the LIST before claiming, the claim's PUT, the LIST that
   * confirms it, and the release's HEAD and DELETE (not billed).
   */
  @Test
  void run_withClaim_fiveMore() throws Exception {
    Cli.Result created = cli().run(spec("run --stdout", "--", "sh", "-c", "echo rows"));
    assertEquals(0, created.code(), created.describe());
    assertEquals("HELD", ((Map<?, ?>) MiniJson.object(created.out()).get("claim")).get("status"), created.describe());
    assertEquals(List.of(11L, 5L, 5L, 1L), requests(created), created.describe());
  }

  /** {@code get} of the latest object: the marker, the pointer, the object. */
  @Test
  void get_latest_threeRequests() throws Exception {
    assertEquals(0, cli().run(spec("publish", "--file", file("rows\n").toString())).code());
    Cli.Result get = cli().run("get", "--pipeline", "orders", "--store", store, "-o", dir.resolve("out").toString(),
        "--json");
    assertEquals(0, get.code(), get.describe());
    assertEquals(List.of(3L, 0L, 3L, 0L), requests(get), get.describe());
  }

  /** The metrics carry the same counts, one sample per class; a filesystem store reports none. */
  @Test
  void metrics_requestsByClass_andNoneOnAFilesystemStore() throws Exception {
    Path prom = dir.resolve("idem.prom");
    Cli.Result created = cli().run(spec("publish", "--file", file("rows\n").toString(), "--metrics-file",
        prom.toString()));
    assertEquals(0, created.code(), created.describe());
    Map<String, MetricsTest.Sample> m = MetricsTest.parse(Files.readString(prom));
    assertEquals("2", m.get("idem_s3_requests{class=A}").value(), m.toString());
    assertEquals("2", m.get("idem_s3_requests{class=B}").value(), m.toString());
    assertEquals("0", m.get("idem_s3_requests{class=free}").value(), m.toString());
    assertEquals(Map.of("command", "publish", "pipeline", "orders", "class", "A"),
        m.get("idem_s3_requests{class=A}").labels());

    Path fsProm = dir.resolve("fs.prom");
    Cli.Result fs = new Cli().run("publish", "--file", file("rows\n").toString(), "--pipeline", "orders", "--window",
        "60s", "--at", SPEC_AT, "--schema", "1", "--store", "file:" + dir.resolve("fs-store"), "--json",
        "--metrics-file", fsProm.toString());
    assertEquals(0, fs.code(), fs.describe());
    assertFalse(MiniJson.object(fs.out()).containsKey("requests"), fs.describe());
    assertFalse(Files.readString(fsProm).contains("idem_s3_requests"), fs.describe());
  }
}
