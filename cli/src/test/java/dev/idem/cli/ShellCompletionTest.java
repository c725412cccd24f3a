package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The completion scripts, run in the shells they are for: bash (picocli's script), zsh (an interactive
 * zsh in a pseudo-terminal, completing with TAB as a user does) and fish ({@code complete -C}). A shell
 * that is not installed skips its case and says so ({@code .ci/run} installs them from Debian).
 */
class ShellCompletionTest {
  @TempDir
  Path dir;

  Path completion;

  @BeforeEach
  void generate() throws IOException {
    DocGenerator.main(new String[] {dir.toString()});
    completion = dir.resolve("completion");
  }

  static void requireShell(String shell) {
    Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin", shell)),
        shell + " is not installed (/usr/bin/" + shell + "); apt-get install " + shell + " runs this case");
  }

  /**
   * Runs {@code command} with its output in a file, bounded: a shell that hangs (a completion that never
   * shows) is killed with everything it started, and fails the test, never the build.
   */
  String run(List<String> command) throws Exception {
    Path out = Files.createTempFile(dir, "out", ".txt");
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly().waitFor();
      fail("no result within 60 s: " + command + "\n" + Files.readString(out, StandardCharsets.UTF_8));
    }
    String text = Files.readString(out, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), command + "\n" + text);
    return text;
  }

  @Test
  void bash_completesCommandsSubcommandsAndOptions() throws Exception {
    requireShell("bash");
    String script = completion.resolve("idem.bash").toString();
    String out = run(List.of("/usr/bin/bash", "-c", "source '" + script + "'; "
        // compopt works only while readline completes; called directly, the function's own choice of
        // display options has nothing to act on.
        + "compopt() { :; }; "
        + "c() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); COMP_LINE=\"$*\"; COMP_POINT=${#COMP_LINE}; "
        + "COMPREPLY=(); _complete_idem idem \"${@: -1}\" \"${@: -2:1}\"; printf '%s\\n' \"${COMPREPLY[@]}\"; echo --; }; "
        + "c idem pointer ''; c idem hi; c idem ack --reas"));
    assertEquals(List.of("show", "advance", "rewind", "--", "history", "--", "--reason", "--"), List.of(out.split("\n")),
        out);
  }

  @Test
  void fish_completesWithDescriptions() throws Exception {
    requireShell("fish");
    String script = completion.resolve("idem.fish").toString();
    String out = run(List.of("/usr/bin/fish", "--no-config", "-c", "source '" + script + "'; "
        + "complete -C 'idem pointer '; echo ==; complete -C 'idem hist'; echo ==; "
        + "complete -C 'idem history --pipeline orders --li'; echo ==; complete -C 'idem pointer show --pi'; echo ==; "
        + "complete -C 'idem get -q --latest-of'"));
    List<String> blocks = List.of(out.split("==\n", -1));
    assertTrue(blocks.get(0).contains("advance\tAdvance a pipeline's pointer to the object published for a spec.\n")
        && blocks.get(0).contains("rewind\t") && blocks.get(0).contains("show\t"), out);
    assertEquals("history\tList a pipeline's generations, oldest first, and where each stands against its pointer.\n",
        blocks.get(1), out);
    assertEquals("--limit\tShow the newest N generations (default 20; 0: all).\n", blocks.get(2), out);
    assertEquals("--pipeline\tPipeline name.\n", blocks.get(3), out);
    assertTrue(blocks.get(4).startsWith("--latest-of-schema\tThe newest generation of schema version N"), out);
  }

  @Test
  void zsh_completesInAnInteractiveShellWithDescriptions() throws Exception {
    requireShell("zsh");
    // An interactive zsh in a pseudo-terminal (zsh/zpty) with _idem on fpath: type, press TAB, read the
    // terminal until the expected completion shows (each read waits for its pattern; the process bound
    // above is the only clock).
    Path harness = Files.writeString(dir.resolve("harness.zsh"), String.join("\n",
        "zmodload zsh/zpty",
        "zpty -b z 'zsh -f -i'",
        "zpty -w z 'PS1=\"READY> \"; fpath=('$1' $fpath); autoload -U compinit; compinit -u -D; unsetopt beep; idem() {}'",
        "zpty -r z out '*READY> *'",
        "zpty -w -n z \"$2\"$'\\t'",
        "zpty -r z out \"*$3*\"",
        "print -r -- \"$out\"",
        "zpty -d z",
        ""));
    List<String[]> cases = new ArrayList<>(List.of(
        new String[] {"idem pointer ", "rewind", "advance  -- Advance a pipeline's pointer to the object published for a spec."},
        new String[] {"idem history --li", "--limit", "idem history --limit"},
        new String[] {"idem ack --reas", "--reason", "idem ack --reason"},
        new String[] {"idem hi", "idem history", "idem history"}));
    for (String[] c : cases) {
      String out = run(List.of("/usr/bin/zsh", "-f", harness.toString(), completion.toString(), c[0], c[1]))
          .replaceAll("\u001b\\[[0-9;?]*[A-Za-z]", "");
      assertTrue(out.contains(c[2]), "typing '" + c[0] + "' TAB shows '" + c[2] + "':\n" + out);
    }
  }

  @Test
  void zshAndFish_nameEveryCommandAndOption() {
    CommandLine root = NativeConfigTest.root();
    String zsh = DocGenerator.zshCompletion(root);
    String fish = DocGenerator.fishCompletion(root);
    for (CommandLine c : DocGeneratorTest.commands(root)) {
      String fn = "_" + c.getCommandSpec().qualifiedName("_").replace('-', '_') + "() {";
      assertTrue(zsh.contains(fn), "zsh has " + fn);
      for (var o : c.getCommandSpec().options()) {
        for (String name : o.names()) {
          assertTrue(zsh.contains(name), c.getCommandSpec().qualifiedName() + " " + name + " in zsh");
          assertTrue(fish.contains(name.startsWith("--") ? "-l " + name.substring(2) : "-s " + name.substring(1)),
              c.getCommandSpec().qualifiedName() + " " + name + " in fish");
        }
      }
    }
  }
}
