package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** The completion script and the man pages cover every command and every option of the command model. */
class DocGeneratorTest {
  @TempDir
  Path dir;

  static List<CommandLine> commands(CommandLine cl) {
    List<CommandLine> all = new ArrayList<>(List.of(cl));
    for (CommandLine sub : cl.getSubcommands().values()) {
      all.addAll(commands(sub));
    }
    return all;
  }

  @Test
  void bashCompletion_namesEverySubcommandAndOption() {
    CommandLine root = NativeConfigTest.root();
    String script = DocGenerator.bashCompletion(root);
    assertTrue(script.contains("bashcompinit"), "zsh loads it through bashcompinit");
    for (CommandLine c : commands(root)) {
      assertTrue(script.contains(c.getCommandName()), "completion names " + c.getCommandSpec().qualifiedName());
      for (OptionSpec o : c.getCommandSpec().options()) {
        for (String name : o.names()) {
          assertTrue(script.contains(name), c.getCommandSpec().qualifiedName() + " " + name + " is completed");
        }
      }
    }
  }

  @Test
  void manPages_onePerCommandNamingEveryOption() {
    CommandLine root = NativeConfigTest.root();
    Map<String, String> pages = DocGenerator.manPages(root, "1.2.3", "2026-01-01");
    List<CommandLine> all = commands(root);
    assertEquals(all.size(), pages.size(), pages.keySet().toString());
    assertTrue(pages.containsKey("idem.1") && pages.containsKey("idem-run.1") && pages.containsKey("idem-pointer-show.1"),
        pages.keySet().toString());
    for (CommandLine c : all) {
      String page = pages.get(c.getCommandSpec().qualifiedName("-") + ".1");
      assertTrue(page.startsWith(".TH \"" + c.getCommandSpec().qualifiedName("-").toUpperCase(java.util.Locale.ROOT)),
          page.lines().findFirst().orElse(""));
      assertTrue(page.contains("\"idem 1.2.3\""), "the version in the header");
      for (OptionSpec o : c.getCommandSpec().options()) {
        for (String name : o.names()) {
          assertTrue(page.contains(".B " + DocGenerator.roff(name)) || page.contains(", " + DocGenerator.roff(name)),
              c.getCommandSpec().qualifiedName() + " page names " + name);
        }
      }
      assertTrue(page.contains(".SH EXIT STATUS\n"), "exit codes");
      assertFalse(page.lines().anyMatch(l -> l.startsWith(".") && !l.matches("\\.(TH|SH|TP|B|I|PP)( .*)?")),
          "only the requests this writer emits start a line: " + page);
    }
  }

  @Test
  void roff_leadingDotAndBackslash_areEscaped() {
    assertEquals("\\&.idem \\e\\-x", DocGenerator.roff(".idem \\-x"));
  }

  @Test
  void main_writesCompletionAndOnePagePerCommand() throws Exception {
    DocGenerator.main(new String[] {dir.toString()});
    assertTrue(Files.readString(dir.resolve("completion/idem.bash")).contains("idem"));
    try (var pages = Files.list(dir.resolve("man/man1"))) {
      assertEquals(commands(NativeConfigTest.root()).size(), pages.count());
    }
  }
}
