package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.testing.InMemoryObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Errors a person (or a script) can act on: suggestions, JSON errors, named stores, the default-store notice. */
class ActionableErrorsTest {
  @TempDir
  Path dir;

  @Test
  void mistypedCommand_suggestsTheClosest() {
    Cli.Result r = new Cli().run("rn", "--pipeline", "p");
    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
    assertTrue(r.err().contains("did you mean run?"), r.describe());
  }

  @Test
  void mistypedOption_suggestsTheClosest() {
    Cli.Result r = new Cli().run("scan", "--pipline", "p");
    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
    assertTrue(r.err().contains("did you mean --pipeline?"), r.describe());
  }

  @Test
  void mistypedRequiredOption_namesTheTypoNotTheMissingOption() {
    // picocli checks required options first: without this, the line said "Missing required options:
    // '--pipeline=P', ..." and never named --pipline.
    Cli.Result key = new Cli().run("key", "--pipline", "p", "--window", "60s", "--schema", "1");
    assertEquals(2, key.code(), key.describe());
    assertTrue(key.err().contains("Unknown option: '--pipline'; did you mean --pipeline?"), key.describe());

    Cli.Result run = new Cli().run("run", "--pipline=p", "--window", "60s", "--schema", "1", "--", "true");
    assertEquals(2, run.code(), run.describe());
    assertTrue(run.err().contains("Unknown option: '--pipline'; did you mean --pipeline?"), run.describe());
  }

  @Test
  void missingRequiredOption_afterDoubleDashIsCmdsBusiness() {
    Cli.Result r = new Cli().run("run", "--window", "60s", "--schema", "1", "--", "sh", "--pipline");
    assertEquals(2, r.code(), r.describe());
    assertTrue(r.err().contains("Missing required option: '--pipeline=P'"), r.describe());
  }

  @Test
  void distance_countsOneEditPerTypo() {
    assertEquals(1, Suggestions.distance("rn", "run"));
    assertEquals(1, Suggestions.distance("--pipline", "--pipeline"));
    assertEquals(1, Suggestions.distance("sacn", "scan"));
    assertEquals(3, Suggestions.distance("abc", ""));
  }

  @Test
  void farOffCommand_suggestsNothing() {
    Cli.Result r = new Cli().run("deploy");
    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    assertFalse(r.err().contains("did you mean"), r.describe());
  }

  @Test
  void jsonUsageError_isAJsonObjectOnStdout() {
    Cli.Result r = new Cli().run("scan", "--max-keys", "x", "--json");
    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    Map<String, Object> j = MiniJson.object(r.out());
    assertEquals("error", j.get("type"));
    assertEquals(2L, j.get("exit_code"));
    assertTrue(((String) j.get("message")).contains("--max-keys"), r.describe());
    assertEquals(1, r.errLines().length, "the stderr line stays: " + r.describe());
  }

  @Test
  void jsonCommandFailure_isAJsonObjectOnStdout() {
    Cli.Result r = new Cli().run("pointer", "show", "--pipeline", "nothing", "--store", "file:" + dir, "--json");
    assertEquals(ExitCodes.NOT_FOUND, r.code(), r.describe());
    Map<String, Object> j = MiniJson.object(r.out());
    assertEquals("error", j.get("type"));
    assertEquals(7L, j.get("exit_code"));
    String message = "no pointer for pipeline nothing in file:" + dir + "; the store holds no pipeline";
    assertEquals(message, j.get("message"), r.describe());
    assertEquals("idem pointer show: " + message + "\n", r.err(), r.describe());
  }

  @Test
  void jsonAfterDoubleDash_belongsToCmd() throws Exception {
    Cli.Result r = new Cli().opener(uri -> new InMemoryObjectStore()).run("run", "--pipeline", "p", "--window", "60s",
        "--at", "1726000030", "--schema", "1", "--store", "file:unused", "--", "false", "--json");
    assertEquals(1, r.code(), "CMD's own code passes through: " + r.describe());
    assertFalse(r.out().contains("\"type\":\"error\""), r.describe());
  }

  @Test
  void keyCommand_acceptsStoreAndChecksItsForm() {
    Cli.Result r = new Cli().run("key", "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "1",
        "--store", "s3://bucket/prefix");
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.out().startsWith("p/1725999960/state-"), r.describe());
    Cli.Result bad = new Cli().run("key", "--pipeline", "p", "--window", "60s", "--schema", "1", "--store", "ftp://x");
    assertEquals(ExitCodes.USAGE, bad.code(), bad.describe());
    assertEquals(1, bad.errLines().length, bad.describe());
  }

  @Test
  void defaultStore_writingCommandSaysSo() throws Exception {
    Path f = Files.writeString(dir.resolve("payload"), "x");
    InMemoryObjectStore memory = new InMemoryObjectStore();
    String[] publish = {"publish", "--file", f.toString(), "--pipeline", "p", "--window", "60s", "--at", "1726000030",
        "--schema", "1"};
    Cli.Result r = new Cli().opener(uri -> memory).run(publish);
    assertEquals(0, r.code(), r.describe());
    assertEquals("idem: no --store or IDEM_STORE given; writing to file:.idem (the working directory)\n", r.err(),
        r.describe());

    Cli.Result fromEnv = new Cli().opener(uri -> memory).env("IDEM_STORE", "file:/data/idem").run(publish);
    assertEquals("", fromEnv.err(), fromEnv.describe());
    Cli.Result reading = new Cli().opener(uri -> memory).run("pointer", "show", "--pipeline", "p");
    assertEquals(0, reading.code(), reading.describe());
    assertEquals("", reading.err(), "a read-only command writes nothing, so no notice: " + reading.describe());
  }
}
