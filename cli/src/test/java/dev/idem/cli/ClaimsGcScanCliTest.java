package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.cli.MetricsTest.Sample;
import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.retention.Retention;
import dev.idem.core.store.Claim;
import dev.idem.core.store.Claims;
import dev.idem.core.store.Payload;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.ForwardingObjectStore.Capability;
import dev.idem.core.testing.InMemoryObjectStore;
import dev.idem.store.fs.FsObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code idem gc} and {@code idem scan} say about claims: gc removes the stale ones (or, dry, lists
 * them) and counts them, on the in-memory store (claims aged by a clock the test sets) and on a {@code
 * file:} store (aged by the entry's time, its emptied directory swept); scan reports held and stale claims
 * in its notes, its {@code --json} and its metrics, never in its exit code; a store without claims says
 * nothing of them, or that it keeps none.
 */
class ClaimsGcScanCliTest {
  private static final Duration TTL = Duration.ofSeconds(60);
  private static final Instant T0 = Instant.parse("2024-09-10T20:30:00Z");

  @TempDir Path dir;

  private final Instant[] now = {T0};
  private final Clock clock = new Clock() {
    @Override public ZoneId getZone() { return ZoneOffset.UTC; }
    @Override public Clock withZone(ZoneId zone) { return this; }
    @Override public Instant instant() { return now[0]; }
  };
  private final InMemoryObjectStore memory = new InMemoryObjectStore(clock);

  private static String key(long n) {
    return RunSpec.of("p", new Window(1_726_000_000L + 60 * n, 60), 1).outputKey().toString();
  }

  private Cli cli() {
    return new Cli().clock(clock).opener(uri -> memory);
  }

  /** Window 0 published; a claim on window 1 left by a writer that died; a live claim on window 2. */
  private void heldAndStale() throws Exception {
    memory.putIfAbsent(key(0), Payload.ofBytes("rows".getBytes(StandardCharsets.UTF_8)), "w");
    claim(key(1), "host-a:1", null);
    now[0] = now[0].plusSeconds(300);
    claim(key(2), "host-b:2", Duration.ofMinutes(2));
    now[0] = now[0].plusSeconds(12);
  }

  private Claim claim(String key, String writer, Duration expected) throws Exception {
    Claims.Claimed c = memory.claim(key, writer, expected, TTL);
    assertEquals(Claims.Result.HELD, c.result());
    return c.claim();
  }

  @Test
  void claimTtlDefault_isThePublishersDefault() {
    assertEquals(Retention.Policy.DEFAULT_CLAIM_TTL, Durations.parse(GcCommand.DEFAULT_CLAIM_TTL));
  }

  @Test
  void scan_heldAndStaleClaims_notedCountedExitCodeUnchanged() throws Exception {
    heldAndStale();

    Cli.Result r = cli().run("scan", "--pipeline", "p", "--store", "mem:");

    assertEquals(ExitCodes.OK, r.code(), r.describe());
    assertEquals("scanned prefix=p/ divergent_keys=0\n", r.out(), "stdout keeps the reference lines: " + r.describe());
    assertTrue(r.err().contains("; claims: 1 held, 1 stale (advice, never the verdict)\n"), r.describe());
    assertTrue(r.err().contains("idem scan: claims: 1 claim held (a replica at work on a key not yet published; "
        + "advice, never the verdict), e.g. " + key(2) + " by host-b:2, renewed 12s ago (started "
        + T0.plusSeconds(300) + ", expected 2m)\n"), r.describe());
    assertTrue(r.err().contains("idem scan: claims: 1 stale claim (not renewed within --claim-ttl, its writer "
        + "stopped; 'idem gc' removes it; never the verdict), e.g. " + key(1) + " by host-a:1, renewed 5m12s ago "
        + "(started " + T0 + ")\n"), r.describe());
  }

  @Test
  void scan_verbose_listsEveryClaim() throws Exception {
    heldAndStale();
    claim(key(3), "host-c:3", null);

    Cli.Result r = cli().run("scan", "--pipeline", "p", "--store", "mem:", "-v");

    assertEquals(ExitCodes.OK, r.code(), r.describe());
    assertTrue(r.err().contains("idem scan: CLAIM-STALE " + key(1) + " by host-a:1, renewed 5m12s ago"), r.describe());
    assertTrue(r.err().contains("idem scan: CLAIM " + key(2) + " by host-b:2, renewed 12s ago"), r.describe());
    assertTrue(r.err().contains("idem scan: CLAIM " + key(3) + " by host-c:3, renewed 0ms ago"), r.describe());
  }

  @Test
  void scan_claimTtl_judgesStaleness() throws Exception {
    heldAndStale();

    Cli.Result r = cli().run("scan", "--pipeline", "p", "--store", "mem:", "--claim-ttl", "10m");

    assertTrue(r.err().contains("; claims: 2 held, 0 stale"), r.describe());
    Cli.Result bad = cli().run("scan", "--pipeline", "p", "--store", "mem:", "--claim-ttl", "0s");
    assertEquals(ExitCodes.USAGE, bad.code(), bad.describe());
  }

  @Test
  void scan_json_oneLinePerClaimAndCountsInTheSummary() throws Exception {
    heldAndStale();

    Cli.Result r = cli().run("scan", "--pipeline", "p", "--store", "mem:", "--json");

    assertEquals(ExitCodes.OK, r.code(), r.describe());
    List<Map<String, Object>> lines = Arrays.stream(r.outLines()).map(MiniJson::object).toList();
    List<Map<String, Object>> claims = lines.stream().filter(l -> "claim".equals(l.get("type"))).toList();
    assertEquals(2, claims.size(), r.describe());
    assertEquals(key(1), claims.get(0).get("key"));
    assertEquals("host-a:1", claims.get(0).get("writer"));
    assertEquals(Boolean.TRUE, claims.get(0).get("stale"));
    assertEquals(312L, claims.get(0).get("age_seconds"));
    assertEquals(T0.toString(), claims.get(0).get("started"));
    assertNull(claims.get(0).get("expected_seconds"));
    assertEquals(Boolean.FALSE, claims.get(1).get("stale"));
    assertEquals(120L, claims.get(1).get("expected_seconds"));
    Map<String, Object> summary = lines.get(lines.size() - 1);
    assertEquals(1L, summary.get("claims_held"));
    assertEquals(1L, summary.get("claims_stale"));
    assertEquals(Boolean.TRUE, summary.get("clean"));
    assertFalse(summary.containsKey("claims_not_listed"));
  }

  @Test
  void scan_divergentKeyUnderAHeldClaim_stillExits1() throws Exception {
    memory.putIfAbsent(key(0), Payload.ofBytes("rows".getBytes(StandardCharsets.UTF_8)), "w");
    memory.putIfAbsent(key(0), Payload.ofBytes("other".getBytes(StandardCharsets.UTF_8)), "w2");
    claim(key(0), "host-a:1", null);

    Cli.Result r = cli().run("scan", "--pipeline", "p", "--store", "mem:");

    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
    assertTrue(r.err().contains("claims: 1 held, 0 stale"), r.describe());
  }

  @Test
  void scan_metrics_claimsHeldAndStale() throws Exception {
    heldAndStale();
    Path prom = dir.resolve("scan.prom");

    Cli.Result r = cli().run("scan", "--pipeline", "p", "--store", "mem:", "--metrics-file", prom.toString());

    assertEquals(ExitCodes.OK, r.code(), r.describe());
    Map<String, Sample> m = MetricsTest.parse(Files.readString(prom));
    assertEquals("1", m.get("idem_scan_claims_held").value());
    assertEquals("1", m.get("idem_scan_claims_stale").value());
  }

  @Test
  void scan_storeWithoutClaims_noClaimLinesNullCountsNoMetric() throws Exception {
    heldAndStale();
    ForwardingObjectStore without = ForwardingObjectStore.without(memory, Capability.CLAIMS);
    Path prom = dir.resolve("scan.prom");

    Cli.Result text = new Cli().clock(clock).opener(uri -> without).run("scan", "--pipeline", "p", "--store", "mem:",
        "--metrics-file", prom.toString());
    Cli.Result json = new Cli().clock(clock).opener(uri -> without).run("scan", "--pipeline", "p", "--store", "mem:",
        "--json");

    assertEquals(ExitCodes.OK, text.code(), text.describe());
    assertFalse(text.err().contains("claim"), text.describe());
    assertEquals(1, json.outLines().length, "the summary alone: " + json.describe());
    Map<String, Object> summary = MiniJson.object(json.outLines()[0]);
    assertTrue(summary.containsKey("claims_held"));
    assertNull(summary.get("claims_held"));
    assertNull(summary.get("claims_stale"));
    assertFalse(MetricsTest.parse(Files.readString(prom)).containsKey("idem_scan_claims_held"));
  }

  @Test
  void gc_dryRunThenReal_removesOnlyTheStaleClaim() throws Exception {
    heldAndStale();

    Cli.Result dry = cli().run("gc", "--pipeline", "p", "--keep", "1", "--store", "mem:", "--dry-run");

    assertEquals(ExitCodes.OK, dry.code(), dry.describe());
    assertTrue(dry.out().contains("would remove the stale claim " + key(1) + " by host-a:1, renewed 5m12s ago (started "
        + T0 + ")\n"), dry.describe());
    assertTrue(dry.out().endsWith(" claims_removed=1 (dry run)\n"), dry.describe());
    assertEquals(2, memory.listClaims("p/").size(), "a dry run removes nothing");

    Cli.Result real = cli().run("gc", "--pipeline", "p", "--keep", "1", "--store", "mem:");

    assertEquals(ExitCodes.OK, real.code(), real.describe());
    assertTrue(real.out().contains("removed the stale claim " + key(1) + " by host-a:1"), real.describe());
    assertTrue(real.out().endsWith(" claims_removed=1\n"), real.describe());
    assertEquals(List.of(key(2)), memory.listClaims("p/").stream().map(Claim::key).toList(), "the held claim stays");
  }

  @Test
  void gc_json_claimsRemoved() throws Exception {
    heldAndStale();

    Cli.Result r = cli().run("gc", "--pipeline", "p", "--keep", "1", "--store", "mem:", "--json", "--claim-ttl", "5m");

    assertEquals(ExitCodes.OK, r.code(), r.describe());
    Map<String, Object> j = MiniJson.object(r.out());
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> removed = (List<Map<String, Object>>) j.get("claims_removed");
    assertEquals(1, removed.size(), r.describe());
    assertEquals(key(1), removed.get(0).get("key"));
    assertEquals("host-a:1", removed.get(0).get("writer"));
    assertEquals(312L, removed.get(0).get("age_seconds"));
    assertFalse(j.containsKey("skipped"), r.describe());
  }

  @Test
  void gc_claimTtlLongerThanTheAge_removesNothing() throws Exception {
    heldAndStale();

    Cli.Result r = cli().run("gc", "--pipeline", "p", "--keep", "1", "--store", "mem:", "--claim-ttl", "6m");

    assertEquals(ExitCodes.OK, r.code(), r.describe());
    assertTrue(r.out().endsWith(" claims_removed=0\n"), r.describe());
    assertEquals(2, memory.listClaims("p/").size());
    Cli.Result bad = cli().run("gc", "--pipeline", "p", "--keep", "1", "--store", "mem:", "--claim-ttl", "0s");
    assertEquals(ExitCodes.USAGE, bad.code(), bad.describe());
  }

  @Test
  void gc_storeWithoutClaims_skippedLine() throws Exception {
    heldAndStale();
    ForwardingObjectStore without = ForwardingObjectStore.without(memory, Capability.CLAIMS);

    Cli.Result r = new Cli().clock(clock).opener(uri -> without).run("gc", "--pipeline", "p", "--keep", "1",
        "--store", "mem:");

    assertEquals(ExitCodes.OK, r.code(), r.describe());
    assertTrue(r.out().contains("skipped: memory: keeps no claims: none to remove\n"), r.describe());
    assertEquals(2, memory.listClaims("p/").size());
  }

  @Test
  void gc_fileStore_removesTheStaleClaimThenSweepsItsDirectory() throws Exception {
    Path root = dir.resolve("store");
    String store = "file:" + root;
    Claim dead;
    try (FsObjectStore fs = FsObjectStore.open(root)) {
      fs.putIfAbsent(key(0), Payload.ofBytes("rows".getBytes(StandardCharsets.UTF_8)), "w");
      dead = fs.claim(key(1), "host-a:1", null, TTL).claim();
    }
    Path claimDir = root.resolve("_idem/claims").resolve(key(1));
    Files.setLastModifiedTime(claimDir.resolve(dead.id()), FileTime.from(Instant.now().minus(Duration.ofMinutes(5))));

    Cli.Result scan = new Cli().run("scan", "--pipeline", "p", "--store", store);
    Cli.Result gc = new Cli().run("gc", "--pipeline", "p", "--keep", "1", "--store", store);

    assertEquals(ExitCodes.OK, scan.code(), scan.describe());
    assertTrue(scan.err().contains("; claims: 0 held, 1 stale"), scan.describe());
    assertEquals(ExitCodes.OK, gc.code(), gc.describe());
    assertTrue(gc.out().contains("removed the stale claim " + key(1) + " by host-a:1"), gc.describe());
    assertTrue(gc.out().endsWith(" swept=0 claims_removed=1\n"), "its directory was touched just now: " + gc.describe());
    assertTrue(Files.isDirectory(claimDir));

    Files.setLastModifiedTime(claimDir, FileTime.from(Instant.now().minus(Duration.ofHours(2))));
    Cli.Result later = new Cli().run("gc", "--pipeline", "p", "--keep", "1", "--store", store);

    assertTrue(later.out().contains("_idem/claims/" + key(1) + "/ (empty claim directory, modified "),
        later.describe());
    assertFalse(Files.exists(claimDir), later.describe());
  }
}
