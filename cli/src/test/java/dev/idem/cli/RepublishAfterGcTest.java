package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.testing.S3ProxyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Republishing after gc, end to end: publish, gc, publish the removed window again with other bytes, scan.
 * The re-publish says REPUBLISHED (stdout, stderr, --json, metrics) and exits 0; the scan lists the key
 * as republished, not divergent, and passes. On the filesystem store and on a versioned S3 bucket.
 */
class RepublishAfterGcTest {
  @TempDir
  Path dir;

  private static final long AT = 1726000020L;

  /** A Cli for {@code store}: for s3: stores, S3Proxy's endpoint and credentials in the environment. */
  private Cli cli(String store) throws java.io.IOException {
    return store.startsWith("s3:") ? Cli.onS3(S3ProxyServer.shared(), dir) : new Cli();
  }

  private Cli.Result publish(String store, int n, String content, String... extra) throws Exception {
    Path f = Files.writeString(Files.createTempFile(dir, "payload", ""), content);
    String[] base = {"publish", "--file", f.toString(), "--pipeline", "p", "--window", "60s",
        "--at", Long.toString(AT + 60L * n), "--schema", "1", "--store", store, "--writer", "w" + n};
    String[] all = new String[base.length + extra.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(extra, 0, all, base.length, extra.length);
    return cli(store).run(all);
  }

  private long windowStart(int n) throws java.io.IOException {
    return Long.parseLong(key(n).split("/")[1]);
  }

  private String key(int n) throws java.io.IOException {
    return new Cli().run("key", "--pipeline", "p", "--window", "60s", "--at", Long.toString(AT + 60L * n),
        "--schema", "1").out().strip();
  }

  @Test
  void filesystem_publishGcRepublishScan() throws Exception {
    String store = "file:" + dir.resolve("store");
    Path mark = dir.resolve("store/_idem/pointers/p/retired");
    for (int n = 0; n < 3; n++) {
      assertEquals(0, publish(store, n, "gen " + n).code());
    }
    Cli.Result dry = cli(store).run("gc", "--pipeline", "p", "--keep", "1", "--grace", "0s", "--dry-run", "--store", store);
    assertTrue(dry.out().contains("would mark windows up to window_start=" + windowStart(1) + " "), dry.describe());
    assertFalse(Files.exists(mark), "a dry run writes no mark");

    Cli.Result gc = cli(store).run("gc", "--pipeline", "p", "--keep", "1", "--grace", "0s", "--store", store, "--json");
    assertEquals(0, gc.code(), gc.describe());
    @SuppressWarnings("unchecked")
    Map<String, Object> retired = (Map<String, Object>) MiniJson.object(gc.out()).get("retired");
    assertEquals(windowStart(1), retired.get("window_start"), gc.describe());
    assertTrue(((String) retired.get("retired_by")).startsWith("idem "), gc.describe());
    assertTrue(Files.exists(mark));

    republishAndScan(store, (String) retired.get("retired_at"));
  }

  @Test
  void versionedS3_publishGcRepublishScan() throws Exception {
    String store = "s3://" + S3ProxyServer.shared().createBucket(true) + "/exports";
    for (int n = 0; n < 3; n++) {
      assertEquals(0, publish(store, n, "gen " + n).code());
    }
    Cli.Result gc = cli(store).run("gc", "--pipeline", "p", "--keep", "1", "--grace", "0s", "--store", store);
    assertEquals(0, gc.code(), gc.describe());
    assertTrue(gc.out().contains("removed " + key(0) + "\n"), gc.describe());
    assertTrue(gc.out().contains("retired windows up to window_start=" + windowStart(1) + " (at "), gc.describe());
    String at = gc.out().replaceAll("(?s).*retired windows up to window_start=\\d+ \\(at (\\S+) by .*", "$1");

    republishAndScan(store, at);
  }

  private void republishAndScan(String store, String retiredAt) throws Exception {
    Path metrics = dir.resolve("metrics-" + store.charAt(0) + ".prom");
    Cli.Result again = publish(store, 0, "gen 0, rebuilt with other bytes", "--metrics-file", metrics.toString());
    assertEquals(0, again.code(), again.describe());
    assertTrue(again.out().startsWith("REPUBLISHED " + key(0) + " "), again.describe());
    assertTrue(again.err().contains("idem: REPUBLISHED: window_start=" + windowStart(0) + " of p was removed by gc at "
        + retiredAt + " ("), again.describe());
    assertTrue(again.err().contains("has been created again"), again.describe());
    String prom = Files.readString(metrics);
    assertTrue(prom.contains("status=\"REPUBLISHED\"} 1"), prom);
    assertTrue(prom.contains("idem_run_republished{command=\"publish\",pipeline=\"p\"} 1"), prom);

    Cli.Result json = publish(store, 1, "gen 1, rebuilt too", "--json");
    assertEquals(0, json.code(), json.describe());
    Map<String, Object> j = MiniJson.object(json.out());
    assertEquals("REPUBLISHED", j.get("status"), json.describe());
    @SuppressWarnings("unchecked")
    Map<String, Object> retired = (Map<String, Object>) j.get("retired");
    assertEquals(windowStart(1), retired.get("window_start"), json.describe());
    assertEquals(retiredAt, retired.get("retired_at"), json.describe());

    Cli.Result created = publish(store, 3, "gen 3", "--json");
    assertEquals("CREATED", MiniJson.object(created.out()).get("status"), "outside the retired range: " + created.describe());
    assertEquals(null, MiniJson.object(created.out()).get("retired"), created.describe());

    Cli.Result scan = cli(store).run("scan", "--pipeline", "p", "--store", store);
    assertEquals(0, scan.code(), scan.describe());
    assertEquals("scanned prefix=p/ divergent_keys=0\n", scan.out(), scan.describe());
    assertTrue(scan.err().contains("idem scan: notes: 2 keys republished after gc removed them ("), scan.describe());
    assertTrue(scan.err().contains("2 republished after gc"), scan.describe());
    Cli.Result verbose = cli(store).run("scan", "--pipeline", "p", "--store", store, "-v");
    assertTrue(verbose.err().contains("idem scan: REPUBLISHED " + key(0) + " lives="), verbose.describe());

    Cli.Result scanJson = cli(store).run("scan", "--pipeline", "p", "--store", store, "--json");
    assertEquals(0, scanJson.code(), scanJson.describe());
    String[] lines = scanJson.outLines();
    Map<String, Object> first = MiniJson.object(lines[0]);
    assertEquals("republished", first.get("type"), scanJson.describe());
    assertEquals(key(0), first.get("key"));
    Map<String, Object> summary = MiniJson.object(lines[lines.length - 1]);
    assertEquals(2L, summary.get("republished_keys"), scanJson.describe());
    assertEquals(0L, summary.get("divergent_keys"), scanJson.describe());
    assertEquals(Boolean.TRUE, summary.get("clean"), scanJson.describe());
  }
}
