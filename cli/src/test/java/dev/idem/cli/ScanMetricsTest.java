package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.cli.MetricsTest.Sample;
import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.Payload;
import dev.idem.store.fs.FsObjectStore;
import dev.idem.store.s3.S3TestStores;
import dev.idem.store.s3.S3StoreOptions;
import dev.idem.store.s3.internal.client.RetryPolicy;
import dev.idem.store.s3.testing.FakeS3Server;
import dev.idem.store.s3.testing.ListingBucket;
import dev.idem.store.s3.testing.ListingBucket.Version;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code idem scan --metrics-file / --push-metrics}: the scan's verdict, size and cost in the Prometheus
 * text format, the same numbers as its summary; on S3 the requests the store counted, the same as
 * {@code --json}'s; a scan that fails reports its exit code and nothing it did not learn.
 */
class ScanMetricsTest {
  @TempDir
  Path dir;

  private Path storeWithOneDivergentKey() throws Exception {
    Path store = dir.resolve("store");
    try (FsObjectStore fs = FsObjectStore.open(store)) {
      String key = RunSpec.of("sums", new Window(1_725_000_000L, 60), 1).outputKey().toString();
      fs.putIfAbsent(key, Payload.ofBytes("rows".getBytes(StandardCharsets.UTF_8)), "a");
      fs.putIfAbsent(key, Payload.ofBytes("other rows".getBytes(StandardCharsets.UTF_8)), "b");
      String other = RunSpec.of("sums", new Window(1_725_000_060L, 60), 1).outputKey().toString();
      fs.putIfAbsent(other, Payload.ofBytes("rows".getBytes(StandardCharsets.UTF_8)), "a");
    }
    return store;
  }

  @Test
  void scan_metricsFile_verdictAndSizeAsTheSummarySays() throws Exception {
    Path store = storeWithOneDivergentKey();
    Path prom = dir.resolve("scan.prom");

    Cli.Result r = new Cli().run("scan", "--store", "file:" + store, "--metrics-file", prom.toString());

    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
    Map<String, Sample> m = MetricsTest.parse(Files.readString(prom));
    assertEquals("1", m.get("idem_scan_exit_code").value());
    assertEquals("1", m.get("idem_scan_complete").value());
    assertEquals("2", m.get("idem_scan_keys").value());
    assertEquals("1", m.get("idem_scan_divergent_keys").value());
    assertEquals("0", m.get("idem_scan_drift_positions").value());
    assertEquals(Map.of("store", "file:" + store, "prefix", ""), m.get("idem_scan_keys").labels());
    assertFalse(m.containsKey("idem_scan_list_requests"), "a filesystem store counts no requests");
    assertTrue(Double.parseDouble(m.get("idem_scan_completion_timestamp_seconds").value()) > 1_700_000_000,
        m.toString());
  }

  @Test
  void scan_s3MetricsFile_requestsAsJsonCountsThem() throws Exception {
    try (FakeS3Server server = new FakeS3Server()) {
      ListingBucket bucket = new ListingBucket("_idem/");
      bucket.add(new Version("legacy/a.csv", "v1", false, "e1", 3, Instant.ofEpochSecond(1_700_000_000L), Map.of()));
      bucket.add(new Version("_idem/store", "v2", false, "e2", 6, Instant.ofEpochSecond(1_700_000_001L), Map.of()));
      server.otherwise(bucket);
      Path prom = dir.resolve("scan.prom");

      Cli.Result r = new Cli().opener(uri -> S3TestStores.open(server.clientBuilder().retry(RetryPolicy.NONE).build(),
          server.location(""), S3StoreOptions.defaults()))
          .run("scan", "--store", "s3://bkt", "--json", "--metrics-file", prom.toString());

      assertEquals(ExitCodes.OK, r.code(), r.describe());
      Map<String, Sample> m = MetricsTest.parse(Files.readString(prom));
      Map<String, Object> summary = MiniJson.object(r.outLines()[r.outLines().length - 1]);
      @SuppressWarnings("unchecked")
      Map<String, Object> requests = (Map<String, Object>) summary.get("requests");
      assertEquals(String.valueOf(requests.get("list")), m.get("idem_scan_list_requests").value());
      assertEquals(String.valueOf(requests.get("head")), m.get("idem_scan_head_requests").value());
      assertEquals(String.valueOf(requests.get("get")), m.get("idem_scan_get_requests").value());
      assertEquals(String.valueOf(requests.get("entries_listed")), m.get("idem_scan_entries_listed").value());
      assertEquals(String.valueOf(requests.get("class_a")), m.get("idem_s3_requests{class=A}").value());
      assertEquals(String.valueOf(requests.get("class_b")), m.get("idem_s3_requests{class=B}").value());
      assertEquals(String.valueOf(requests.get("free")), m.get("idem_s3_requests{class=free}").value());
      assertEquals("1", m.get("idem_scan_keys").value());
    }
  }

  @Test
  void scan_storeMissing_reportsItsExitCodeAndNoCounts() throws Exception {
    Path prom = dir.resolve("scan.prom");

    Cli.Result r = new Cli().run("scan", "--store", "file:" + dir.resolve("absent"), "--metrics-file", prom.toString());

    assertEquals(ExitCodes.STORE_UNAVAILABLE, r.code(), r.describe());
    Map<String, Sample> m = MetricsTest.parse(Files.readString(prom));
    assertEquals(String.valueOf(ExitCodes.STORE_UNAVAILABLE), m.get("idem_scan_exit_code").value());
    assertFalse(m.containsKey("idem_scan_keys"), "no verdict, no counts: " + m.keySet());
  }

  @Test
  void scan_pushMetrics_putsToTheScanGroupOfItsPrefix() throws Exception {
    Path store = storeWithOneDivergentKey();
    MetricsTest gateway = new MetricsTest();
    try {
      String url = gateway.pushgateway(200, false);

      Cli.Result r = new Cli().run("scan", "--store", "file:" + store, "--pipeline", "sums", "--push-metrics", url);

      assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
      String[] push = gateway.pushes.take();
      assertEquals("PUT", push[0]);
      assertEquals("/metrics/job/idem/command/scan/prefix@base64/"
          + Base64.getUrlEncoder().encodeToString("sums/".getBytes(StandardCharsets.UTF_8)), push[1]);
      assertEquals("1", MetricsTest.parse(push[2]).get("idem_scan_divergent_keys").value());
    } finally {
      gateway.stop();
    }
  }
}
