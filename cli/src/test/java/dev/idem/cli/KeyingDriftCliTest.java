package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.Payload;
import dev.idem.store.fs.FsObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two builds with different declared inputs for one window and schema: told at publish, listed by the scan. */
class KeyingDriftCliTest {
  @TempDir
  Path dir;

  String store;

  @BeforeEach
  void setUp() {
    store = "file:" + dir.resolve("store");
  }

  Cli.Result publish(String content, String... inputs) throws Exception {
    return publishSchema("3", content, inputs);
  }

  Cli.Result publishSchema(String schema, String content, String... inputs) throws Exception {
    Path f = Files.writeString(Files.createTempFile(dir, "payload", ""), content);
    List<String> args = new java.util.ArrayList<>(List.of("publish", "--file", f.toString(), "--pipeline", "border-state",
        "--window", "60s", "--at", "1726000030", "--schema", schema, "--store", store));
    for (String i : inputs) {
      if (!i.startsWith("--")) {
        args.add("--input");
      }
      args.add(i);
    }
    return new Cli().run(args.toArray(new String[0]));
  }

  String key(String... inputs) {
    List<String> args = new java.util.ArrayList<>(List.of("key", "--pipeline", "border-state", "--window", "60s",
        "--at", "1726000030", "--schema", "3"));
    for (String i : inputs) {
      args.add("--input");
      args.add(i);
    }
    return new Cli().run(args.toArray(new String[0])).out().strip();
  }

  @Test
  void publish_samePositionOtherKey_exits0AndSaysDrift() throws Exception {
    assertEquals(0, publish("rows", "snapshot=v1").code());
    Cli.Result r = publish("rows,cols", "snapshot=v1", "columns=v2");
    assertEquals(0, r.code(), "the output is published and complete: " + r.describe());
    assertTrue(r.out().startsWith("CREATED " + key("snapshot=v1", "columns=v2") + " "), r.describe());
    assertTrue(r.out().contains(" pointer=SAME_POSITION_OTHER_KEY(" + key("snapshot=v1") + ")"), r.describe());
    assertTrue(r.err().startsWith("idem: KEYING DRIFT: the pointer of border-state already names " + key("snapshot=v1")),
        r.describe());
    assertEquals(1, r.errLines().length, r.describe());

    Cli.Result json = publish("rows,cols", "snapshot=v1", "columns=v2", "--json");
    @SuppressWarnings("unchecked")
    Map<String, Object> pointer = (Map<String, Object>) MiniJson.object(json.out()).get("pointer");
    assertEquals("SAME_POSITION_OTHER_KEY", pointer.get("status"), json.describe());
    assertEquals(key("snapshot=v1"), pointer.get("current_key"), json.describe());
  }

  @Test
  void run_samePositionOtherKey_exits0AndSaysDrift() throws Exception {
    assertEquals(0, publish("rows", "snapshot=v1").code());
    Cli.Result r = new Cli().run("run", "--pipeline", "border-state", "--window", "60s", "--at", "1726000030",
        "--schema", "3", "--input", "snapshot=v2", "--store", store, "--", "sh", "-c", "printf new > \"$IDEM_OUTPUT\"");
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.out().contains(" pointer=SAME_POSITION_OTHER_KEY(" + key("snapshot=v1") + ")"), r.describe());
    assertTrue(r.err().contains("KEYING DRIFT"), r.describe());
  }

  @Test
  void scan_windowWithTwoKeys_listedAndFailsOnlyWithFailOnDrift() throws Exception {
    publish("rows", "snapshot=v1");
    publish("rows,cols", "snapshot=v1", "columns=v2");
    Cli.Result r = new Cli().run("scan", "--pipeline", "border-state", "--store", store);
    assertEquals(0, r.code(), r.describe());
    assertEquals("scanned prefix=border-state/ divergent_keys=0\n", r.out(), "stdout keeps the reference lines: " + r.describe());
    assertTrue(r.err().contains("idem scan: drift: 1 window holds several keys of one schema ("), r.describe());
    assertTrue(r.err().contains("e.g. border-state window_start=1725999960 schema=3: "), r.describe());
    assertTrue(r.err().contains(key("snapshot=v1")) && r.err().contains(key("snapshot=v1", "columns=v2")), r.describe());
    Cli.Result verbose = new Cli().run("scan", "--pipeline", "border-state", "--store", store, "-v");
    assertTrue(verbose.err().contains("idem scan: DRIFT border-state window_start=1725999960 schema=3 holds 2 keys: "),
        verbose.describe());

    Cli.Result gate = new Cli().run("scan", "--pipeline", "border-state", "--store", store, "--fail-on-drift");
    assertEquals(ExitCodes.DIVERGENT, gate.code(), gate.describe());
    assertTrue(gate.err().contains("1 positions with more than one key (failing: --fail-on-drift)"), gate.describe());

    Cli.Result json = new Cli().run("scan", "--pipeline", "border-state", "--store", store, "--json", "--fail-on-drift");
    assertEquals(ExitCodes.DIVERGENT, json.code(), json.describe());
    String[] lines = json.outLines();
    assertEquals(2, lines.length, json.describe());
    Map<String, Object> drift = MiniJson.object(lines[0]);
    assertEquals("drift", drift.get("type"));
    assertEquals(1725999960L, drift.get("window_start"));
    assertEquals(3L, drift.get("schema"));
    assertEquals(2, ((List<?>) drift.get("keys")).size(), json.describe());
    Map<String, Object> summary = MiniJson.object(lines[1]);
    assertEquals(1L, summary.get("drift_positions"));
    assertEquals(1L, summary.get("exit_code"));
  }

  @Test
  void scan_schemaBumpOverlap_cleanWithFailOnDrift() throws Exception {
    // The old build (schema 1) and the new one (schema 2, another input) publish the same window
    // during the deploy: one key per position, not drift.
    assertEquals(0, publishSchema("1", "rows", "snapshot=v1").code());
    assertEquals(0, publishSchema("2", "rows,cols", "snapshot=v1", "columns=v2").code());
    Cli.Result r = new Cli().run("scan", "--pipeline", "border-state", "--store", store, "--fail-on-drift");
    assertEquals(0, r.code(), r.describe());
    assertTrue(!r.err().contains("DRIFT") && !r.err().contains("idem scan: drift:"), r.describe());
    assertTrue(r.err().contains("idem scan: notes: 1 window holds one key per schema ("), r.describe());
    Cli.Result json = new Cli().run("scan", "--pipeline", "border-state", "--store", store, "--json", "--fail-on-drift");
    assertEquals(0, json.code(), json.describe());
    assertEquals(2, json.outLines().length, "no drift object: the overlap, then the summary: " + json.describe());
    Map<String, Object> overlap = MiniJson.object(json.outLines()[0]);
    assertEquals("schema_overlap", overlap.get("type"), json.describe());
    assertEquals(List.of(1L, 2L), overlap.get("schemas"), json.describe());
  }

  @Test
  void scan_legacyKeysWithoutSchema_windowJudgedWholeAndSaysSo() throws Exception {
    // Objects published without a schema (an older idem, or a library caller bypassing Publisher).
    try (FsObjectStore fs = FsObjectStore.open(dir.resolve("store"))) {
      fs.putIfAbsent(key("snapshot=v1"), Payload.ofBytes(new byte[] {1}), "old-build");
      fs.putIfAbsent(key("snapshot=v2"), Payload.ofBytes(new byte[] {2}), "old-build");
    }
    Cli.Result r = new Cli().run("scan", "--pipeline", "border-state", "--store", store, "--fail-on-drift", "-v");
    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
    assertTrue(r.err().contains("idem scan: DRIFT border-state window_start=1725999960 schema=unknown holds 2 keys: "),
        r.describe());
    assertTrue(r.err().contains("(a key's schema is not known: the window is judged whole)"), r.describe());
    assertTrue(r.err().contains("idem scan: drift: 1 window of several keys judged whole ("), r.describe());
    Cli.Result json = new Cli().run("scan", "--pipeline", "border-state", "--store", store, "--json");
    Map<String, Object> drift = MiniJson.object(json.outLines()[0]);
    assertTrue(drift.containsKey("schema") && drift.get("schema") == null, json.describe());
    assertEquals(2, ((List<?>) drift.get("keys_of_unknown_schema")).size(), json.describe());
  }

  @Test
  void scan_oneKeyPerWindow_passesWithFailOnDrift() throws Exception {
    publish("rows", "snapshot=v1");
    publish("rows", "snapshot=v1");
    Cli.Result r = new Cli().run("scan", "--pipeline", "border-state", "--store", store, "--fail-on-drift");
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.err().contains("0 positions with more than one key"), r.describe());
  }
}
