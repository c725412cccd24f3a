package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PointerScanGcTest {
  @TempDir
  Path dir;

  String store;

  @BeforeEach
  void setUp() {
    store = "file:" + dir.resolve("store");
  }

  /** Publishes {@code content} for window {@code n} (60 s windows from 1726000000). */
  Cli.Result publish(String pipeline, int n, String content) throws Exception {
    Path f = Files.writeString(Files.createTempFile(dir, "payload", ""), content);
    return new Cli().run("publish", "--file", f.toString(), "--pipeline", pipeline, "--window", "60s",
        "--at", Long.toString(1726000020L + 60L * n), "--schema", "1", "--store", store, "--writer", "w" + n);
  }

  String key(String pipeline, int n) {
    return new Cli().run("key", "--pipeline", pipeline, "--window", "60s", "--at", Long.toString(1726000020L + 60L * n),
        "--schema", "1").out().strip();
  }

  String[] spec(int n) {
    return new String[] {"--pipeline", "p", "--window", "60s", "--at", Long.toString(1726000020L + 60L * n), "--schema", "1"};
  }

  String[] concat(String[] a, String... b) {
    List<String> l = new ArrayList<>(List.of(a));
    l.addAll(List.of(b));
    return l.toArray(new String[0]);
  }

  @Test
  void pointerShow_humanAndJson() throws Exception {
    publish("p", 0, "zero");
    Cli.Result r = new Cli().run("pointer", "show", "--pipeline", "p", "--store", store);
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.out().contains("key=" + key("p", 0) + "\n"), r.describe());
    assertTrue(r.out().contains("writer=w0\n"), r.describe());
    assertTrue(r.out().endsWith("object=present\n"), r.describe());
    Map<String, Object> j = MiniJson.object(new Cli().run("pointer", "show", "--pipeline", "p", "--store", store, "--json").out());
    assertEquals(key("p", 0), j.get("key"));
    assertEquals(Boolean.TRUE, j.get("object_present"));
    assertEquals(4L, j.get("size"));
  }

  @Test
  void pointerShow_noPointerIsNotFound() {
    Cli.Result r = new Cli().run("pointer", "show", "--pipeline", "p", "--store", store);
    assertEquals(ExitCodes.NOT_FOUND, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
  }

  @Test
  void pointerShow_missingObjectIsReported() throws Exception {
    publish("p", 0, "zero");
    Files.delete(dir.resolve("store").resolve(key("p", 0)));
    Cli.Result r = new Cli().run("pointer", "show", "--pipeline", "p", "--store", store);
    assertEquals(ExitCodes.NOT_FOUND, r.code(), r.describe());
    assertTrue(r.out().contains("object=MISSING"), r.describe());
  }

  @Test
  void pointerAdvance_onlyForward() throws Exception {
    publish("p", 0, "zero");
    publish("p", 1, "one");
    Cli.Result back = new Cli().run(concat(concat(new String[] {"pointer", "advance"}, spec(0)), "--store", store));
    assertEquals(0, back.code(), back.describe());
    assertTrue(back.out().startsWith("NEWER_PRESENT p key=" + key("p", 0) + " (pointer stays at " + key("p", 1) + ")"), back.describe());
    Cli.Result same = new Cli().run(concat(concat(new String[] {"pointer", "advance"}, spec(1)), "--store", store, "--json"));
    assertEquals(0, same.code(), same.describe());
    @SuppressWarnings("unchecked")
    Map<String, Object> p = (Map<String, Object>) MiniJson.object(same.out()).get("pointer");
    assertEquals("ALREADY_CURRENT", p.get("status"));
    Cli.Result missing = new Cli().run(concat(concat(new String[] {"pointer", "advance"}, spec(5)), "--store", store));
    assertEquals(ExitCodes.NOT_FOUND, missing.code(), missing.describe());
  }

  @Test
  void scan_cleanStorePrintsTheReferenceSummary() throws Exception {
    publish("p", 0, "zero");
    publish("p", 0, "zero");
    Cli.Result r = new Cli().run("scan", "--prefix", "p/", "--store", store);
    assertEquals(0, r.code(), r.describe());
    assertEquals("scanned prefix=p/ divergent_keys=0\n", r.out(), r.describe());
    assertTrue(r.err().contains("1 benign duplicate keys"), r.describe());
  }

  @Test
  void scan_divergentKeyPrintsTheReferenceLinesAndExits1() throws Exception {
    publish("p", 0, "zero");
    publish("p", 0, "ZERO");
    publish("p", 1, "one");
    Cli.Result r = new Cli().run("scan", "--prefix", "p/", "--store", store);
    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
    assertEquals("DIVERGENT " + key("p", 0) + " writes=2 payloads=2\nscanned prefix=p/ divergent_keys=1\n", r.out(), r.describe());

    Cli.Result json = new Cli().run("scan", "--pipeline", "p", "--store", store, "--json");
    assertEquals(ExitCodes.DIVERGENT, json.code(), json.describe());
    String[] lines = json.outLines();
    assertEquals(2, lines.length, json.describe());
    Map<String, Object> d = MiniJson.object(lines[0]);
    assertEquals("divergent", d.get("type"));
    assertEquals(key("p", 0), d.get("key"));
    assertEquals(2L, d.get("payloads"));
    assertEquals("SHA256", d.get("basis"));
    assertEquals(2, ((List<?>) d.get("versions")).size(), json.describe());
    Map<String, Object> s = MiniJson.object(lines[1]);
    assertEquals("summary", s.get("type"));
    assertEquals(1L, s.get("divergent_keys"));
    assertEquals(2L, s.get("keys"));
    assertEquals(Boolean.FALSE, s.get("clean"));

    Cli.Result quiet = new Cli().run("scan", "--store", store, "-q");
    assertEquals(ExitCodes.DIVERGENT, quiet.code(), quiet.describe());
    assertEquals("", quiet.out() + quiet.err(), quiet.describe());
  }

  @Test
  void scan_sinceSkipsOlderWindows() throws Exception {
    publish("p", 0, "zero");
    publish("p", 0, "ZERO");
    publish("p", 1000, "late");
    java.time.Clock at = java.time.Clock.fixed(java.time.Instant.ofEpochSecond(1726000020L + 60L * 1001), java.time.ZoneOffset.UTC);
    Cli.Result r = new Cli().clock(at).run("scan", "--pipeline", "p", "--since", "1h", "--store", store);
    assertEquals(0, r.code(), r.describe());
    assertEquals("scanned prefix=p/ divergent_keys=0\n", r.out(), r.describe());
    Cli.Result all = new Cli().clock(at).run("scan", "--pipeline", "p", "--since", "30d", "--store", store);
    assertEquals(ExitCodes.DIVERGENT, all.code(), all.describe());
  }

  @Test
  void scan_cutShortIsNeverClean() throws Exception {
    publish("p", 0, "zero");
    publish("p", 1, "one");
    Cli.Result r = new Cli().run("scan", "--store", store, "--max-keys", "1");
    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
    assertTrue(r.err().contains("stopped early"), r.describe());
  }

  @Test
  void scan_missingStoreRoot_exits4AndCreatesNothing() {
    Cli.Result r = new Cli().run("scan", "--store", store);
    assertEquals(ExitCodes.STORE_UNAVAILABLE, r.code(), r.describe());
    assertEquals("idem scan: no idem store at file:" + dir.resolve("store") + ": the directory does not exist\n",
        r.err(), r.describe());
    assertEquals("", r.out(), r.describe());
    assertFalse(Files.exists(dir.resolve("store")), "a read-only command creates nothing");
    assertEquals(ExitCodes.STORE_UNAVAILABLE, new Cli().run("scan", "--store", store, "--allow-empty").code());
  }

  @Test
  void scan_emptyDirectory_exits9UnlessAllowEmpty() throws Exception {
    Files.createDirectories(dir.resolve("store"));
    Cli.Result r = new Cli().run("scan", "--store", store);
    assertEquals(ExitCodes.NOTHING_EXAMINED, r.code(), r.describe());
    assertTrue(r.err().contains("idem scan: nothing examined: no key under prefix= in file:"), r.describe());
    Cli.Result quiet = new Cli().run("scan", "--store", store, "-q");
    assertEquals(ExitCodes.NOTHING_EXAMINED, quiet.code(), quiet.describe());
    assertEquals(1, quiet.errLines().length, "the failure is said even under --quiet: " + quiet.describe());
    Cli.Result allowed = new Cli().run("scan", "--store", store, "--allow-empty");
    assertEquals(0, allowed.code(), allowed.describe());
    assertTrue(allowed.err().contains("passed because of --allow-empty"), allowed.describe());
  }

  @Test
  void scan_pipelineOrPrefixTypo_exits9() throws Exception {
    publish("border-state", 0, "zero");
    Cli.Result typo = new Cli().run("scan", "--pipeline", "border-stat", "--store", store);
    assertEquals(ExitCodes.NOTHING_EXAMINED, typo.code(), typo.describe());
    assertTrue(typo.err().contains("no key under prefix=border-stat/ and no pointer for border-stat"), typo.describe());
    Cli.Result prefix = new Cli().run("scan", "--prefix", "border-stat/", "--store", store, "--json");
    assertEquals(ExitCodes.NOTHING_EXAMINED, prefix.code(), prefix.describe());
    Map<String, Object> j = MiniJson.object(prefix.outLines()[0]);
    assertEquals(Boolean.TRUE, j.get("nothing_examined"), prefix.describe());
    assertEquals(Boolean.FALSE, j.get("clean"), prefix.describe());
    assertEquals(9L, j.get("exit_code"), prefix.describe());
    Cli.Result newPipeline = new Cli().run("scan", "--pipeline", "border-stat", "--store", store, "--allow-empty");
    assertEquals(0, newPipeline.code(), newPipeline.describe());
    assertEquals(0, new Cli().run("scan", "--pipeline", "border-state", "--store", store).code());
  }

  @Test
  void scan_summarySaysWhatWasExamined() throws Exception {
    publish("p", 0, "zero");
    publish("p", 0, "zero");
    Cli.Result r = new Cli().run("scan", "--pipeline", "p", "--store", store);
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.err().contains("idem scan: examined 1 keys (2 versions and publish records) and 1 pointers;"), r.describe());
    Map<String, Object> j = MiniJson.object(new Cli().run("scan", "--pipeline", "p", "--store", store, "--json").out());
    assertEquals(1L, j.get("keys"));
    assertEquals(2L, j.get("entries"));
    assertEquals(1L, j.get("pointers"));
    assertEquals(Boolean.TRUE, j.get("clean"));
  }

  @Test
  void scan_directoryThatIsNoStore_exits9SayingWhatWasFound() throws Exception {
    Path notAStore = Files.createDirectories(dir.resolve("store"));
    for (int i = 0; i < 5; i++) {
      Files.writeString(notAStore.resolve("file" + i), "x");
    }
    Cli.Result r = new Cli().run("scan", "--store", store, "--allow-empty");
    assertEquals(ExitCodes.NOTHING_EXAMINED, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
    assertTrue(r.err().contains("is not an idem store: found 5 entries (") && r.err().contains(", ...) but no _idem/ directory"),
        r.describe());
    assertEquals("", r.out(), r.describe());
  }

  @Test
  void scan_pointerNamesReplacedObject_exits1LikePointerShow() throws Exception {
    publish("p", 0, "zero");
    Path object = dir.resolve("store").resolve(key("p", 0));
    // What an overwrite on an unversioned bucket looks like: the key holds other bytes, written later.
    Files.delete(object);
    Files.writeString(object, "forged");
    Files.setLastModifiedTime(object, java.nio.file.attribute.FileTime.from(java.time.Instant.now().plusSeconds(3600)));
    Cli.Result show = new Cli().run("pointer", "show", "--pipeline", "p", "--store", store);
    assertEquals(ExitCodes.NOT_FOUND, show.code(), show.describe());
    assertTrue(show.out().endsWith("object=DIFFERENT\n"), show.describe());
    Cli.Result r = new Cli().run("scan", "--pipeline", "p", "--store", store);
    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
    assertTrue(r.err().contains("idem scan: POINTER-MISMATCH the pointer of p names " + key("p", 0) + " with sha256 "), r.describe());
    String[] json = new Cli().run("scan", "--pipeline", "p", "--store", store, "--json").outLines();
    Map<String, Object> j = MiniJson.object(json[json.length - 1]);
    @SuppressWarnings("unchecked")
    Map<String, Object> problem = ((List<Map<String, Object>>) j.get("pointer_problems")).get(0);
    assertEquals("DIFFERENT", problem.get("status"));
    assertEquals(6L, problem.get("stored_size"));
  }

  @Test
  void gc_keepsThePointerAndTheNewest() throws Exception {
    for (int n = 0; n < 5; n++) {
      publish("p", n, "gen " + n);
    }
    Cli.Result dry = new Cli().run("gc", "--pipeline", "p", "--keep", "2", "--grace", "0s", "--dry-run", "--store", store);
    assertEquals(0, dry.code(), dry.describe());
    assertTrue(dry.out().contains("would remove " + key("p", 0) + "\n"), dry.describe());
    assertTrue(dry.out().contains("(dry run)"), dry.describe());
    assertTrue(Files.exists(dir.resolve("store").resolve(key("p", 0))), dry.describe());

    Cli.Result r = new Cli().run("gc", "--pipeline", "p", "--keep", "2", "--grace", "0s", "--store", store, "--json");
    assertEquals(0, r.code(), r.describe());
    Map<String, Object> j = MiniJson.object(r.out());
    assertEquals(List.of(key("p", 0), key("p", 1), key("p", 2)), j.get("removed"), r.describe());
    assertEquals(key("p", 4), j.get("pointer_key"));
    for (int n = 0; n < 5; n++) {
      assertEquals(n >= 3, Files.exists(dir.resolve("store").resolve(key("p", n))), "generation " + n);
    }
    Cli.Result get = new Cli().run("get", "--pipeline", "p", "--store", store);
    assertEquals("gen 4", new String(get.raw(), java.nio.charset.StandardCharsets.UTF_8), get.describe());
  }

  @Test
  void gc_neverRemovesWithinTheGraceOrWithoutAPointer() throws Exception {
    for (int n = 0; n < 3; n++) {
      publish("p", n, "gen " + n);
    }
    Cli.Result r = new Cli().run("gc", "--pipeline", "p", "--keep", "1", "--store", store);
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.out().endsWith("removed=0 records=0 evidence_kept=0 swept=0 claims_removed=0\n"), "default grace 1h protects fresh objects: " + r.describe());
    Cli.Result none = new Cli().run("gc", "--pipeline", "other", "--keep", "1", "--grace", "0s", "--store", store);
    assertEquals(0, none.code(), none.describe());
    assertTrue(none.err().contains("no pointer"), none.describe());
    Cli.Result bad = new Cli().run("gc", "--pipeline", "p", "--keep", "0", "--store", store);
    assertEquals(ExitCodes.USAGE, bad.code(), bad.describe());
  }

  @Test
  void gc_storeDirectoryMissing_exits4AndCreatesNothing() {
    Path typo = dir.resolve("stroe");
    Cli.Result r = new Cli().run("gc", "--pipeline", "p", "--keep", "1", "--store", "file:" + typo);
    assertEquals(ExitCodes.STORE_UNAVAILABLE, r.code(), r.describe());
    assertEquals("idem gc: no idem store at file:" + typo + ": the directory does not exist\n", r.err(), r.describe());
    assertFalse(Files.exists(typo), "a command that only deletes never creates a store");
  }

  @Test
  void gc_divergentGeneration_evidenceOutlivesRetentionUnlessDropped() throws Exception {
    for (int n = 0; n < 3; n++) {
      publish("p", n, "gen " + n);
    }
    Cli.Result clash = publish("p", 0, "other bytes");
    assertEquals(ExitCodes.DIVERGENT, clash.code(), clash.describe());

    Cli.Result r = new Cli().run("gc", "--pipeline", "p", "--keep", "1", "--grace", "0s", "--store", store);
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.out().contains("kept the records and evidence of " + key("p", 0) + " (divergent;"), r.describe());
    assertTrue(r.out().endsWith("removed=2 records=1 evidence_kept=1 swept=0 claims_removed=0\n"), r.describe());
    Cli.Result scan = new Cli().run("scan", "--pipeline", "p", "--store", store);
    assertEquals(ExitCodes.DIVERGENT, scan.code(), "the keying bug is still reported: " + scan.describe());
    assertTrue(scan.out().contains("DIVERGENT " + key("p", 0)), scan.describe());
    assertFalse(scan.out().contains(key("p", 1)), "a clean removed generation leaves the history: " + scan.describe());

    Cli.Result drop = new Cli().run("gc", "--pipeline", "p", "--keep", "1", "--grace", "0s",
        "--drop-divergent-evidence", "--store", store);
    assertEquals(0, drop.code(), drop.describe());
    assertTrue(drop.out().contains("removed the records of " + key("p", 0)), drop.describe());
    Cli.Result clean = new Cli().run("scan", "--pipeline", "p", "--store", store);
    assertEquals(0, clean.code(), clean.describe());
  }
}
