package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Options typed before the command, as git and aws users do: {@code idem --store X key ...}. */
class LeadingOptionsTest {
  @TempDir
  Path dir;

  @Test
  void key_storeAndJsonBeforeTheCommand_sameAsAfter() {
    Cli.Result before = new Cli().run("--store", "file:" + dir, "--json", "key", "--pipeline", "p", "--window", "60s",
        "--at", "1726000030", "--schema", "3");
    Cli.Result after = new Cli().run("key", "--store", "file:" + dir, "--json", "--pipeline", "p", "--window", "60s",
        "--at", "1726000030", "--schema", "3");
    assertEquals(0, before.code(), before.describe());
    assertEquals(after.out(), before.out(), before.describe());
  }

  @Test
  void pointerShow_optionsBeforeANestedCommand_reachTheLeaf() throws Exception {
    Path rows = Files.writeString(dir.resolve("rows"), "rows\n");
    String store = "file:" + dir.resolve("store");
    assertEquals(0, new Cli().run("--store=" + store, "-q", "publish", "--file", rows.toString(), "--pipeline", "p",
        "--window", "60s", "--at", "1726000030", "--schema", "3").code());
    Cli.Result show = new Cli().run("--store", store, "pointer", "show", "--pipeline", "p");
    assertEquals(0, show.code(), show.describe());
    assertTrue(show.out().startsWith("pipeline=p\n"), show.describe());
  }

  @Test
  void run_optionsBeforeTheCommand_cmdArgumentsUntouched() {
    Cli.Result r = new Cli().run("--store", "file:" + dir.resolve("store"), "--json", "run", "--pipeline", "p",
        "--window", "60s", "--at", "1726000030", "--schema", "3", "--", "sh", "-c",
        "printf '%s' \"$1\" > \"$IDEM_OUTPUT\"", "sh", "--json");
    assertEquals(0, r.code(), r.describe());
    assertEquals("CREATED", MiniJson.object(r.out()).get("status"), r.describe());
  }

  @Test
  void anOptionTheCommandDoesNotHave_saysExactlyThat() {
    Cli.Result r = new Cli().run("--grace", "5s", "key", "--pipeline", "p", "--window", "60s", "--schema", "3");
    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
    assertTrue(r.err().startsWith("idem: option '--grace' comes before the command 'key', which has no such option"),
        r.describe());
    assertFalse(r.err().contains("'--pipeline'"), "the tokens after the command are not to blame: " + r.describe());
  }

  @Test
  void moveAfterCommand_leavesEverythingElseAlone() {
    String[][] unchanged = {{"--help"}, {"-V"}, {"key", "--store", "x"}, {}, {"--store", "x"}};
    for (String[] args : unchanged) {
      assertArrayEquals(args, LeadingOptions.moveAfterCommand(args), String.join(" ", args));
    }
    assertArrayEquals(new String[] {"pointer", "show", "--store", "x", "--pipeline", "p"},
        LeadingOptions.moveAfterCommand(new String[] {"--store", "x", "pointer", "show", "--pipeline", "p"}));
  }
}
