package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands an operator reaches for on a bad day, on a filesystem store: {@code history} (a
 * pipeline's generations), {@code pipelines} (and "did you mean" on a mistyped {@code --pipeline}),
 * {@code ack} (a reviewed divergence passes the gate, and only until something new is written), and
 * {@code get --latest-of-schema}.
 */
class OperatorCommandsTest {
  static final long AT = 1726000020L;

  @TempDir
  Path dir;

  String store;

  @BeforeEach
  void setUp() {
    store = "file:" + dir.resolve("store");
  }

  Cli.Result publish(String pipeline, int window, int schema, String content, String writer) throws Exception {
    Path f = Files.writeString(Files.createTempFile(dir, "payload", ""), content);
    return new Cli().run("publish", "--file", f.toString(), "--pipeline", pipeline, "--window", "60s",
        "--at", Long.toString(AT + 60L * window), "--schema", Integer.toString(schema), "--store", store,
        "--writer", writer);
  }

  String key(String pipeline, int window, int schema) {
    return new Cli().run("key", "--pipeline", pipeline, "--window", "60s", "--at", Long.toString(AT + 60L * window),
        "--schema", Integer.toString(schema)).out().strip();
  }

  Cli.Result run(String... args) {
    List<String> a = new ArrayList<>(List.of(args));
    a.addAll(List.of("--store", store));
    return new Cli().run(a.toArray(new String[0]));
  }

  // --- ack ---

  @Test
  void ack_divergentKey_scanPassesReportingItApartAndTheEvidenceStays() throws Exception {
    assertEquals(0, publish("orders", 0, 1, "alpha", "host-a").code());
    assertEquals(ExitCodes.DIVERGENT, publish("orders", 0, 1, "omega", "host-b").code());
    String k = key("orders", 0, 1);
    assertEquals(ExitCodes.DIVERGENT, run("scan", "--pipeline", "orders").code());

    Cli.Result ack = run("ack", k, "--reason", "INC-42: input added to the key in build 44", "--writer", "ops-alice");
    assertEquals(0, ack.code(), ack.describe());
    assertTrue(ack.out().startsWith("ACKNOWLEDGED " + k + " writes=2 payloads=2 divergent_attempts=1 by ops-alice at "),
        ack.describe());

    Cli.Result scan = run("scan", "--pipeline", "orders");
    assertEquals(0, scan.code(), scan.describe());
    assertEquals("scanned prefix=orders/ divergent_keys=0\n", scan.out(), scan.describe());
    assertTrue(scan.err().contains("idem scan: ACKNOWLEDGED " + k + " writes=2 payloads=2 by ops-alice at "), scan.describe());
    assertTrue(scan.err().contains(": INC-42: input added to the key in build 44\n"), scan.describe());
    assertTrue(scan.err().contains(", 1 acknowledged divergent"), scan.describe());

    Cli.Result json = run("scan", "--pipeline", "orders", "--json");
    String[] lines = json.outLines();
    Map<String, Object> acknowledged = MiniJson.object(lines[0]);
    assertEquals("acknowledged", acknowledged.get("type"), json.describe());
    @SuppressWarnings("unchecked")
    Map<String, Object> record = (Map<String, Object>) acknowledged.get("acknowledgement");
    assertEquals("ops-alice", record.get("by"));
    Map<String, Object> summary = MiniJson.object(lines[lines.length - 1]);
    assertEquals(1L, ((Number) summary.get("acknowledged_keys")).longValue(), json.describe());
    assertEquals(0L, ((Number) summary.get("divergent_keys")).longValue(), json.describe());

    try (Stream<Path> evidence = Files.walk(dir.resolve("store/_idem/evidence"))) {
      assertTrue(evidence.anyMatch(Files::isRegularFile), "the divergent attempt's bytes are kept");
    }
  }

  @Test
  void ack_thenTheBuggyBuildWritesAgain_gateFailsAgain() throws Exception {
    publish("orders", 0, 1, "alpha", "host-a");
    publish("orders", 0, 1, "omega", "host-b");
    String k = key("orders", 0, 1);
    assertEquals(0, run("ack", k, "--reason", "reviewed", "--writer", "ops-alice").code());
    assertEquals(ExitCodes.DIVERGENT, publish("orders", 0, 1, "omega", "host-c").code(), "the old build again");

    Cli.Result scan = run("scan", "--pipeline", "orders");
    assertEquals(ExitCodes.DIVERGENT, scan.code(), scan.describe());
    assertTrue(scan.out().startsWith("DIVERGENT " + k + " writes=3 payloads=2\n"), scan.describe());
  }

  @Test
  void ack_keyNotDivergentOrNeverPublished_refusedNothingWritten() throws Exception {
    publish("orders", 0, 1, "alpha", "host-a");
    Cli.Result clean = run("ack", key("orders", 0, 1), "--reason", "reviewed");
    assertEquals(ExitCodes.USAGE, clean.code(), clean.describe());
    assertTrue(clean.err().contains(" is not divergent (writes=1 payloads=1): nothing to acknowledge"), clean.describe());

    Cli.Result missing = run("ack", key("ordrs", 0, 1), "--reason", "reviewed");
    assertEquals(ExitCodes.NOT_FOUND, missing.code(), missing.describe());
    assertTrue(missing.err().contains("; did you mean orders?"), missing.describe());

    Cli.Result noReason = run("ack", key("orders", 0, 1), "--reason", " ");
    assertEquals(ExitCodes.USAGE, noReason.code(), noReason.describe());
    assertFalse(Files.exists(dir.resolve("store/_idem/acks")), "nothing written");
  }

  // --- history ---

  @Test
  void history_generationsWithOutcomePointerAndRewind() throws Exception {
    publish("orders", 0, 1, "alpha", "host-a");
    publish("orders", 0, 1, "omega", "host-b");
    publish("orders", 1, 1, "two", "host-a");
    publish("orders", 1, 1, "two", "host-b");
    publish("orders", 2, 1, "three", "host-a");
    Cli.Result rewind = run("pointer", "rewind", "--pipeline", "orders", "--window", "60s", "--at",
        Long.toString(AT + 60), "--schema", "1", "--expect", key("orders", 2, 1), "--reason", "INC-7: bad rows",
        "--writer", "ops-alice");
    assertEquals(0, rewind.code(), rewind.describe());

    Cli.Result h = run("history", "--pipeline", "orders");
    assertEquals(0, h.code(), h.describe());
    String[] lines = h.outLines();
    assertTrue(lines[0].matches("WINDOW_START +SCHEMA +SIZE +WRITER +PUBLISHED_AT +OUTCOME +WRITES +POINTER +KEY"),
        h.describe());
    assertTrue(lines[1].matches("1725999960 \\(2024-09-10T20:26:00Z\\) +1 +5 +host-a +\\S+ +DIVERGENT\\(1\\) +2 +behind +"
        + key("orders", 0, 1)), h.describe());
    assertTrue(lines[2].matches("1726000020 \\(\\S+\\) +1 +3 +host-a +\\S+ +IDENTICAL +2 +latest +" + key("orders", 1, 1)),
        h.describe());
    assertTrue(lines[3].matches("1726000080 \\(\\S+\\) +1 +5 +host-a +\\S+ +CREATED +1 +rewound +" + key("orders", 2, 1)),
        h.describe());
    assertEquals("orders: 3 generations, 1 divergent, 0 acknowledged", lines[4], h.describe());
    assertEquals("pointer: " + key("orders", 1, 1) + " (window_start=1726000020 schema=1)", lines[5]);
    assertTrue(lines[6].startsWith("rewound: from " + key("orders", 2, 1) + " to " + key("orders", 1, 1)
        + " by ops-alice at "), h.describe());
    assertTrue(lines[6].endsWith(": INC-7: bad rows"), h.describe());

    run("ack", key("orders", 0, 1), "--reason", "reviewed", "--writer", "ops-bob");
    Cli.Result json = run("history", "--pipeline", "orders", "--limit", "2", "--json");
    String[] js = json.outLines();
    assertEquals(3, js.length, json.describe());
    assertEquals(key("orders", 1, 1), MiniJson.object(js[0]).get("key"), "the newest two, oldest first");
    Map<String, Object> sum = MiniJson.object(js[2]);
    assertEquals(3L, ((Number) sum.get("generations")).longValue(), json.describe());
    assertEquals(2L, ((Number) sum.get("shown")).longValue());
    assertEquals(1L, ((Number) sum.get("acknowledged")).longValue());

    Cli.Result all = run("history", "--pipeline", "orders", "--json");
    Map<String, Object> first = MiniJson.object(all.outLines()[0]);
    assertEquals("ACKNOWLEDGED", first.get("outcome"), all.describe());
    assertEquals(1L, ((Number) first.get("divergent_attempts")).longValue());
  }

  @Test
  void history_schemaFilterAndSince() throws Exception {
    publish("orders", 0, 3, "s3", "host-a");
    publish("orders", 0, 4, "s4", "host-b");
    publish("orders", 1, 3, "s3 next", "host-a");
    Cli.Result h = run("history", "--pipeline", "orders", "--schema", "4", "--json");
    assertEquals(2, h.outLines().length, h.describe());
    Map<String, Object> g = MiniJson.object(h.outLines()[0]);
    assertEquals(key("orders", 0, 4), g.get("key"));
    assertEquals("behind", g.get("pointer"), "behind the pointer at window N+1, schema 3");
    Cli.Result recent = new Cli().clock(java.time.Clock.fixed(java.time.Instant.ofEpochSecond(AT + 60),
        java.time.ZoneOffset.UTC)).run("history", "--pipeline", "orders", "--since", "1m", "--json", "--store", store);
    assertEquals(2, recent.outLines().length, recent.describe());
    assertEquals(key("orders", 1, 3), MiniJson.object(recent.outLines()[0]).get("key"));
  }

  @Test
  void history_mistypedPipeline_notFoundWithTheClosestNames() throws Exception {
    publish("border-state", 0, 1, "a", "host-a");
    publish("orders", 0, 1, "b", "host-a");
    Cli.Result typo = run("history", "--pipeline", "border-stat");
    assertEquals(ExitCodes.NOT_FOUND, typo.code(), typo.describe());
    assertTrue(typo.err().endsWith("; did you mean border-state?\n"), typo.describe());
    Cli.Result far = run("history", "--pipeline", "zzz");
    assertTrue(far.err().endsWith("; its pipelines: border-state, orders\n"), far.describe());
  }

  // --- pipelines and did you mean ---

  @Test
  void pipelines_listedWithTheirPointers_andSuggestedOnEveryNotFound() throws Exception {
    assertEquals("", run("pipelines").out());
    publish("border-state", 0, 1, "a", "host-a");
    publish("orders", 0, 2, "b", "host-a");
    Cli.Result list = run("pipelines");
    assertEquals(0, list.code(), list.describe());
    assertEquals("border-state key=" + key("border-state", 0, 1) + " window_start=1725999960 schema=1\n"
        + "orders key=" + key("orders", 0, 2) + " window_start=1725999960 schema=2\n", list.out());
    Map<String, Object> first = MiniJson.object(run("pipelines", "--json").outLines()[0]);
    assertEquals("border-state", first.get("pipeline"));

    for (String[] cmd : List.of(new String[] {"get", "--pipeline", "border-stat"},
        new String[] {"pointer", "show", "--pipeline", "border-stat"})) {
      Cli.Result r = run(cmd);
      assertEquals(ExitCodes.NOT_FOUND, r.code(), r.describe());
      assertTrue(r.err().contains("no pointer for pipeline border-stat in file:") && r.err().endsWith(
          "; did you mean border-state?\n"), r.describe());
    }
    Cli.Result scan = run("scan", "--pipeline", "border-stat");
    assertEquals(ExitCodes.NOTHING_EXAMINED, scan.code(), scan.describe());
    assertTrue(scan.err().endsWith("; did you mean border-state?\n"), scan.describe());
  }

  // --- get --latest-of-schema ---

  @Test
  void get_latestOfSchema_theNewestOfThatSchemaWhileThePointerFlips() throws Exception {
    publish("orders", 0, 4, "schema 4, window N", "new-build");
    publish("orders", 1, 3, "schema 3, window N+1", "old-build");
    assertEquals(key("orders", 1, 3), MiniJson.object(run("pointer", "show", "--pipeline", "orders", "--json").out())
        .get("key"), "a later window wins whatever its schema");

    Cli.Result four = run("get", "--pipeline", "orders", "--latest-of-schema", "4");
    assertEquals(0, four.code(), four.describe());
    assertEquals("schema 4, window N", new String(four.raw(), StandardCharsets.UTF_8));
    assertEquals("schema 3, window N+1", new String(run("get", "--pipeline", "orders", "--latest-of-schema", "3").raw(),
        StandardCharsets.UTF_8));
    Cli.Result none = run("get", "--pipeline", "orders", "--latest-of-schema", "5");
    assertEquals(ExitCodes.NOT_FOUND, none.code(), none.describe());
    assertTrue(none.err().contains("no generation of schema 5 of pipeline orders at or behind its pointer"), none.describe());
    Cli.Result both = run("get", "--pipeline", "orders", "--latest", "--latest-of-schema", "4");
    assertEquals(ExitCodes.USAGE, both.code(), both.describe());
  }
}
