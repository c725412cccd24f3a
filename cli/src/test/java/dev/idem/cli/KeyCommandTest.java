package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Sha256;
import dev.idem.core.Window;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyCommandTest {
  @TempDir
  Path dir;

  @Test
  void key_isTheReferenceKeyOfTheClosedWindow() {
    Cli.Result r = new Cli().run("key", "--pipeline", "border-state", "--window", "60s", "--at", "1726000030", "--schema", "3");
    assertEquals(0, r.code(), r.describe());
    String expected = RunSpec.of("border-state", new Window(1725999960, 60), 3).outputKey() + "\n";
    assertEquals(expected, r.out(), r.describe());
    assertEquals("", r.err(), r.describe());
  }

  @Test
  void key_replicasStartingSecondsApartAgree() {
    Cli.Result a = new Cli().run("key", "--pipeline", "p", "--window", "1h", "--at", "2024-09-10T21:00:01Z", "--schema", "1");
    Cli.Result b = new Cli().run("key", "--pipeline", "p", "--window", "1h", "--at", "2024-09-10T21:00:59Z", "--schema", "1");
    assertEquals(a.out(), b.out(), a.describe() + b.describe());
  }

  @Test
  void key_defaultsToNowFromTheClock() {
    Clock fixed = Clock.fixed(Instant.ofEpochSecond(1726000030), ZoneOffset.UTC);
    Cli.Result r = new Cli().clock(fixed).run("key", "--pipeline", "p", "--window", "60s", "--schema", "0");
    assertEquals(RunSpec.of("p", new Window(1725999960, 60), 0).outputKey() + "\n", r.out(), r.describe());
  }

  @Test
  void key_offsetShiftsTheBoundaries() {
    Cli.Result r = new Cli().run("key", "--pipeline", "p", "--window", "1h", "--offset", "15m",
        "--at", "2024-09-10T21:20:00Z", "--schema", "1", "--json");
    Map<String, Object> j = MiniJson.object(r.out());
    assertEquals(Instant.parse("2024-09-10T20:15:00Z").getEpochSecond(), j.get("window_start"), r.describe());
    assertEquals("2024-09-10T21:15:00Z", j.get("window_end_time"), r.describe());
  }

  @Test
  void key_jsonHasTheWindowBoundsAndInputNames() {
    Cli.Result r = new Cli().run("key", "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "2",
        "--input", "snapshot=v7", "--input", "model=m1", "--json");
    assertEquals(0, r.code(), r.describe());
    Map<String, Object> j = MiniJson.object(r.out());
    RunSpec spec = RunSpec.of("p", new Window(1725999960, 60), 2).withInput("snapshot", "v7").withInput("model", "m1");
    assertEquals(spec.outputKey().toString(), j.get("key"), r.describe());
    assertEquals(1725999960L, j.get("window_start"));
    assertEquals(1726000020L, j.get("window_end"));
    assertEquals(60L, j.get("window_length"));
    assertEquals(2L, j.get("schema_version"));
    assertEquals(List.of("model", "snapshot"), j.get("inputs"));
  }

  @Test
  void key_inputsChangeTheKey() {
    Cli.Result plain = new Cli().run("key", "--pipeline", "p", "--window", "60s", "--at", "100000", "--schema", "1");
    Cli.Result with = new Cli().run("key", "--pipeline", "p", "--window", "60s", "--at", "100000", "--schema", "1", "--input", "a=b");
    assertNotEquals(plain.out(), with.out());
  }

  @Test
  void key_inputFromFileIsItsSha256() throws Exception {
    Path f = dir.resolve("snapshot.bin");
    Files.write(f, "rows".getBytes(StandardCharsets.UTF_8));
    Cli.Result r = new Cli().run("key", "--pipeline", "p", "--window", "60s", "--at", "100000", "--schema", "1",
        "--input", "snap=@" + f);
    RunSpec spec = RunSpec.of("p", new Window(99900, 60), 1).withInput("snap", "sha256:" + Sha256.of("rows".getBytes(StandardCharsets.UTF_8)));
    assertEquals(spec.outputKey() + "\n", r.out(), r.describe());
    Cli.Result literal = new Cli().run("key", "--pipeline", "p", "--window", "60s", "--at", "100000", "--schema", "1",
        "--input", "snap=@@x");
    assertEquals(RunSpec.of("p", new Window(99900, 60), 1).withInput("snap", "@x").outputKey() + "\n", literal.out(), literal.describe());
  }

  @Test
  void key_badInputsAreUsageErrors() {
    for (String input : List.of("snap=@" + dir.resolve("missing"), "snap=@" + dir, "Bad=x", "=x", "a=1")) {
      String[] args = {"key", "--pipeline", "p", "--window", "60s", "--schema", "1", "--input", input, "--input", "a=2"};
      Cli.Result r = new Cli().run(args);
      assertEquals(ExitCodes.USAGE, r.code(), input + "\n" + r.describe());
      assertEquals(1, r.errLines().length, r.describe());
      assertTrue(r.err().startsWith("idem key: "), r.describe());
    }
  }

  @Test
  void key_quietPrintsNothing() {
    Cli.Result r = new Cli().run("key", "--pipeline", "p", "--window", "60s", "--schema", "1", "-q");
    assertEquals(0, r.code(), r.describe());
    assertEquals("", r.out() + r.err(), r.describe());
  }
}
