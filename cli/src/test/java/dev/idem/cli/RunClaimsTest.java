package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.publish.ClaimPolicy;
import dev.idem.core.store.Claims;
import dev.idem.core.store.Deadline;
import dev.idem.store.fs.FsObjectStore;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code idem run}'s advisory claims in-process, on a filesystem store: the flags, what the report, the
 * JSON and the metrics say of the claim. Another writer's claim is written through the store's own
 * {@link Claims}, and made stale by dating its file back; waits that need a second live process are in
 * {@code ProcessesE2E}.
 */
class RunClaimsTest {
  @TempDir
  Path dir;

  Path storeRoot;
  Path marker;

  @BeforeEach
  void setUp() {
    storeRoot = dir.resolve("store");
    marker = dir.resolve("ran");
  }

  Cli.Result run(List<String> extra) {
    List<String> a = new ArrayList<>(List.of("run", "--pipeline", "p", "--window", "60s", "--at", "1726000030",
        "--schema", "3", "--store", "file:" + storeRoot, "--writer", "host-b"));
    a.addAll(extra);
    a.addAll(List.of("--", "sh", "-c", "echo x >> '" + marker + "'; printf result > \"$IDEM_OUTPUT\""));
    return new Cli().run(a.toArray(new String[0]));
  }

  String key() {
    return new Cli().run("key", "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "3").out().strip();
  }

  boolean cmdRan() {
    return Files.exists(marker);
  }

  /** host-a's claim on the key, as a replica that is running CMD leaves it. */
  void claimByHostA() throws Exception {
    try (FsObjectStore st = FsObjectStore.open(storeRoot)) {
      Claims claims = st.claims().orElseThrow();
      assertEquals(Claims.Result.HELD,
          claims.claim(key(), "host-a", Duration.ofMinutes(2), Duration.ofSeconds(60)).result());
    }
  }

  /** Dates every claim file of the key back ten minutes: its writer stopped renewing (it died). */
  void makeClaimsStale() throws Exception {
    try (Stream<Path> files = Files.walk(claimDir())) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        Files.setLastModifiedTime(f, FileTime.from(Instant.now().minus(Duration.ofMinutes(10))));
      }
    }
  }

  Path claimDir() {
    return storeRoot.resolve("_idem/claims").resolve(key());
  }

  List<Path> claimFiles() throws Exception {
    if (!Files.exists(claimDir())) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(claimDir())) {
      return files.filter(Files::isRegularFile).toList();
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> claimOf(Cli.Result r) {
    return (Map<String, Object>) MiniJson.object(r.out()).get("claim");
  }

  @Test
  void run_claimFlags_defaultsAreTheClaimPolicyDefaults() {
    ClaimPolicy defaults = ClaimPolicy.defaults();
    assertEquals(defaults.ttl(), Durations.parse(RunCommand.DEFAULT_CLAIM_TTL));
    assertEquals(defaults.waitAtMost(), Durations.parse(RunCommand.DEFAULT_CLAIM_WAIT));
    assertEquals(defaults.poll(), Durations.parse(RunCommand.DEFAULT_CLAIM_POLL));
    String help = new Cli().run("run", "--help").out();
    for (String line : List.of("Default: 60s", "Default: 10m", "Default: 5s", "Default: 30s", "--no-claims",
        "--expected-duration", "--on-term", "--drain-deadline")) {
      assertTrue(help.contains(line), line + " in:\n" + help);
    }
  }

  @Test
  void run_badClaimOrDrainFlags_oneLineUsageErrorNothingRunOrWritten() {
    List<List<String>> cases = List.of(
        List.of("--on-term", "later"),
        List.of("--drain-deadline", "30s"),
        List.of("--on-term", "abort", "--drain-deadline", "30s"),
        List.of("--on-term", "finish", "--drain-deadline", "0s"),
        List.of("--no-claims", "--claim-ttl", "60s"),
        List.of("--no-claims", "--claim-wait", "0s"),
        List.of("--no-claims", "--expected-duration", "2m"),
        List.of("--claim-ttl", "0s"),
        List.of("--claim-ttl", "PT0.5S"),
        List.of("--claim-poll", "0s"),
        List.of("--claim-wait", "soon"),
        List.of("--expected-duration", "-1s"));
    for (List<String> flags : cases) {
      Cli.Result r = run(flags);
      assertEquals(ExitCodes.USAGE, r.code(), flags + ": " + r.describe());
      assertEquals(1, r.errLines().length, flags + ": " + r.describe());
      assertFalse(cmdRan(), flags + ": CMD did not run");
      assertFalse(Files.exists(storeRoot), flags + ": nothing written");
    }
  }

  @Test
  void run_noOtherClaim_holdsItsOwnAndReleasesIt() throws Exception {
    Cli.Result r = run(List.of("--json", "--expected-duration", "2m"));
    assertEquals(0, r.code(), r.describe());
    Map<String, Object> claim = claimOf(r);
    assertEquals("HELD", claim.get("status"), r.describe());
    assertFalse(claim.containsKey("claimant"), r.describe());
    assertEquals(0L, ((Number) claim.get("waited_ms")).longValue(), r.describe());
    assertEquals(List.of(), claimFiles(), "the claim is released once the result is published");
    Cli.Result human = run(List.of());
    assertTrue(human.out().startsWith("SKIPPED "), human.describe());
    assertFalse(human.out().contains("claim="), "a skip at the first look says nothing of claims: " + human.describe());
  }

  @Test
  void run_anotherWritersFreshClaim_claimWaitZero_runsBesideItWaitExpired() throws Exception {
    claimByHostA();
    Cli.Result r = run(List.of("--claim-wait", "0s"));
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.out().startsWith("CREATED " + key()), r.describe());
    assertTrue(r.out().contains(" claim=WAIT_EXPIRED (host-a's claim was still fresh after "), r.describe());
    assertTrue(r.out().contains("(--claim-wait): the task ran beside it)"), r.describe());
    assertTrue(cmdRan());
  }

  @Test
  void run_anotherWritersFreshClaim_jsonNamesTheClaimant() throws Exception {
    claimByHostA();
    Cli.Result r = run(List.of("--claim-wait", "0s", "--json"));
    assertEquals(0, r.code(), r.describe());
    Map<String, Object> claim = claimOf(r);
    assertEquals("WAIT_EXPIRED", claim.get("status"), r.describe());
    @SuppressWarnings("unchecked")
    Map<String, Object> claimant = (Map<String, Object>) claim.get("claimant");
    assertEquals("host-a", claimant.get("writer"), r.describe());
    assertEquals(120_000L, ((Number) claimant.get("expected_ms")).longValue(), r.describe());
    assertTrue(Instant.parse((String) claimant.get("started")).isAfter(Instant.now().minus(Duration.ofHours(1))),
        r.describe());
  }

  @Test
  void claimWaitProgress_sleep_doesNotCountAgainstTheStoreDeadline() throws Exception {
    // --max-time bounds idem's store work, as it excludes CMD's run: a wait for another writer's object
    // longer than it must not leave the publish after it without time.
    String key = key();
    try (FsObjectStore st = FsObjectStore.open(storeRoot)) {
      Deadline maxTime = Deadline.after(Duration.ofHours(1), "--max-time");
      Duration before = maxTime.left();
      try (RunCommand.ClaimWaitProgress waiting = new RunCommand.ClaimWaitProgress(st, key, maxTime,
          new PrintWriter(new StringWriter()), false, Duration.ofDays(1))) {
        waiting.sleep(Duration.ofMillis(1500));
      }
      // The sleep lasts at least 1.5 s: a deadline it counted against lost at least that much, whatever the load.
      Duration spent = before.minus(maxTime.left());
      assertTrue(spent.compareTo(Duration.ofMillis(1500)) < 0, "the wait counted against --max-time: " + spent);
    }
  }

  @Test
  void run_staleClaim_isTakenOverNamingItsWriter() throws Exception {
    claimByHostA();
    makeClaimsStale();
    Cli.Result r = run(List.of());
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.out().startsWith("CREATED " + key()), r.describe());
    assertTrue(r.out().contains(" claim=TAKEN_OVER (host-a's claim went stale or was released without an object; "
        + "this replica claimed the key and ran the task)"), r.describe());
    assertTrue(cmdRan());
    // The stale entry is gc's to remove; this run's own is released.
    List<Path> left = claimFiles();
    assertEquals(1, left.size(), left.toString());
    assertTrue(Files.readString(left.get(0)).contains("writer=host-a\n"), left.toString());
  }

  @Test
  void run_noClaims_runsBesideAFreshClaimWithoutWaiting() throws Exception {
    claimByHostA();
    // Without --no-claims this run would wait up to ten minutes for host-a's object.
    Cli.Result r = run(List.of("--no-claims", "--json"));
    assertEquals(0, r.code(), r.describe());
    assertEquals("CREATED", MiniJson.object(r.out()).get("status"), r.describe());
    assertEquals("OFF", claimOf(r).get("status"), r.describe());
    assertTrue(cmdRan());
    assertEquals(1, claimFiles().size(), "host-a's claim is left alone: " + claimFiles());
  }

  @Test
  void run_metricsCountTakeoversAndWaitsByClaim() throws Exception {
    claimByHostA();
    makeClaimsStale();
    Path prom = dir.resolve("takeover.prom");
    Cli.Result r = run(List.of("--metrics-file", prom.toString()));
    assertEquals(0, r.code(), r.describe());
    String text = Files.readString(prom);
    String labels = "{command=\"run\",pipeline=\"p\"}";
    assertTrue(text.contains("idem_run_claim_status{command=\"run\",pipeline=\"p\",status=\"TAKEN_OVER\"} 1\n"), text);
    assertTrue(text.contains("idem_run_claim_takeovers" + labels + " 1\n"), text);
    assertTrue(text.contains("idem_run_claim_skips" + labels + " 0\n"), text);

    Path published = dir.resolve("published.prom");
    Cli.Result skipped = run(List.of("--metrics-file", published.toString()));
    assertEquals(0, skipped.code(), skipped.describe());
    assertFalse(Files.readString(published).contains("idem_run_claim_"),
        "a key published at the first look looks at no claim: " + Files.readString(published));
  }

  @Test
  void run_metricsCountAWaitThatExpired() throws Exception {
    claimByHostA();
    Path prom = dir.resolve("wait.prom");
    Cli.Result r = run(List.of("--claim-wait", "0s", "--metrics-file", prom.toString()));
    assertEquals(0, r.code(), r.describe());
    String text = Files.readString(prom);
    String labels = "{command=\"run\",pipeline=\"p\"}";
    assertTrue(text.contains("idem_run_claim_status{command=\"run\",pipeline=\"p\",status=\"WAIT_EXPIRED\"} 1\n"), text);
    assertTrue(text.contains("idem_run_claim_waits" + labels + " 1\n"), text);
    assertTrue(text.contains("idem_run_claim_takeovers" + labels + " 0\n"), text);
  }

  @Test
  void run_publishJson_hasNoClaim() throws Exception {
    Path file = Files.writeString(dir.resolve("result"), "bytes");
    Cli.Result r = new Cli().run("publish", "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema",
        "3", "--store", "file:" + storeRoot, "--writer", "w", "--file", file.toString(), "--json");
    assertEquals(0, r.code(), r.describe());
    assertNull(MiniJson.object(r.out()).get("claim"), r.describe());
  }
}
