package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The command line {@link Main} runs builds only the invoked command in full; these tests pin that
 * a user cannot tell: every help page, version, usage error and suggestion reads exactly as from the
 * full model, and the commands not invoked really are left unbuilt.
 */
class LazyModelTest {
  private static final Class<?>[] COMMANDS = IdemCommand.class.getAnnotation(Command.class).subcommands();

  static Stream<Arguments> argumentLines() {
    List<String[]> lines = new ArrayList<>(List.of(
        new String[] {},
        new String[] {"--help"},
        new String[] {"-h"},
        new String[] {"--version"},
        new String[] {"-V"},
        new String[] {"--bogus"},
        new String[] {"bogus"},
        new String[] {"pubish"},
        new String[] {"pointer"},
        new String[] {"pointer", "shwo"},
        new String[] {"key", "--bogus"},
        new String[] {"key", "--pipeline", "p", "--window", "1h", "--schema", "1", "--input", "a=b"},
        new String[] {"publish"},
        new String[] {"run"},
        new String[] {"-h", "key"},
        new String[] {"--", "key"},
        new String[] {"key", "publish", "--help"}));
    for (String[] path : HelpAndExitCodesTest.allCommands()) {
      String[] help = Arrays.copyOf(path, path.length + 1);
      help[path.length] = "--help";
      lines.add(help);
    }
    return lines.stream().map(line -> Arguments.of((Object) line));
  }

  @ParameterizedTest
  @MethodSource("argumentLines")
  void everyLine_readsAsFromTheFullModel(String[] args) {
    String lazy = run(Main.commandLineFor(context(), args), args);
    String full = run(Main.commandLine(context()), args);
    assertEquals(full, lazy, String.join(" ", args));
  }

  @Test
  void keyLine_buildsKeyInFullAndTheOthersAsSummaries() {
    CommandLine cl = Main.commandLineFor(context(), "key", "--pipeline", "p");
    assertInstanceOf(KeyCommand.class, cl.getSubcommands().get("key").getCommandSpec().userObject());
    for (String other : List.of("run", "publish", "get", "pointer", "scan", "gc", "demo", "doctor")) {
      CommandLine sub = cl.getSubcommands().get(other);
      assertTrue(sub.getCommandSpec().options().isEmpty(), other + " was built in full");
      Object user = sub.getCommandSpec().userObject();
      assertFalse(Arrays.stream(COMMANDS).anyMatch(c -> c.isInstance(user)), other);
    }
  }

  @Test
  void helpLine_buildsNoCommandInFullButListsThemAll() {
    CommandLine cl = Main.commandLineFor(context(), "--help");
    assertEquals(COMMANDS.length, cl.getSubcommands().size());
    for (CommandLine sub : cl.getSubcommands().values()) {
      assertTrue(sub.getCommandSpec().options().isEmpty(), sub.getCommandName() + " was built in full");
      assertFalse(sub.getCommandSpec().usageMessage().description().length == 0, sub.getCommandName());
    }
  }

  private static CliContext context() {
    return new CliContext(new ByteArrayInputStream(new byte[0]), OutputStream.nullOutputStream(), Map.of(),
        Clock.systemUTC(), null);
  }

  private static String run(CommandLine cl, String[] args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    cl.getOut().flush();
    cl.getErr().flush();
    return "exit=" + code + "\n--- stdout ---\n" + out + "--- stderr ---\n" + err;
  }
}
