package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.publish.TaskFailedException;
import dev.idem.store.s3.CredentialsException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** The exit-code table: in every help page, and the one mapping from failures to codes. */
class HelpAndExitCodesTest {

  static List<String[]> allCommands() {
    List<String[]> all = new ArrayList<>();
    collect(Main.commandLine(CliContext.system()), new ArrayList<>(), all);
    return all;
  }

  private static void collect(CommandLine cl, List<String> path, List<String[]> all) {
    all.add(path.toArray(new String[0]));
    cl.getSubcommands().forEach((name, sub) -> {
      List<String> p = new ArrayList<>(path);
      p.add(name);
      collect(sub, p, all);
    });
  }

  @Test
  void help_everyCommandListsTheExitCodeTableAndEveryOption() {
    List<String[]> commands = allCommands();
    assertEquals(16, commands.size(), "idem + 12 commands + pointer show/advance/rewind");
    for (String[] path : commands) {
      String[] args = new String[path.length + 1];
      System.arraycopy(path, 0, args, 0, path.length);
      args[path.length] = "--help";
      Cli.Result r = new Cli().run(args);
      assertEquals(0, r.code(), r.describe());
      assertTrue(r.out().contains("Exit codes:"), r.describe());
      for (String code : List.of(" 0 ", " 1 ", " 2 ", " 3 ", " 4 ", " 5 ", " 6 ", " 7 ", " 8 ", "70 ", "130 ", "143 ")) {
        assertTrue(r.out().contains(code), code + " missing\n" + r.describe());
      }
      CommandLine cl = Main.commandLine(CliContext.system());
      for (String p : path) {
        cl = cl.getSubcommands().get(p);
      }
      for (CommandLine.Model.OptionSpec o : cl.getCommandSpec().options()) {
        assertTrue(!String.join(" ", o.description()).isBlank(), o.longestName() + " has no description");
        assertTrue(r.out().contains(o.longestName()), o.longestName() + " not in help\n" + r.describe());
      }
    }
  }

  @Test
  void version_printsTheBuiltVersion() {
    Cli.Result r = new Cli().run("--version");
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.out().startsWith("idem 0.") && !r.out().contains("${"), r.describe());
  }

  @Test
  void noCommand_isAUsageError() {
    Cli.Result r = new Cli().run();
    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
  }

  @ParameterizedTest
  @ValueSource(strings = {"--bogus", "key --bogus", "scan --max-keys x", "gc --pipeline p", "pointer", "pointer frob",
      "key --pipeline p --window 60s", "key --pipeline p --window 60 --schema 1", "key --pipeline P --window 60s --schema 1",
      "key --pipeline p --window 60s --schema 1 --at noon", "key --pipeline p --window 60s --schema 1 --input x",
      "key --pipeline p --window 60s --offset 60s --schema 1", "get --pipeline p --latest --window 60s --schema 1",
      "scan --prefix a --pipeline b", "run --pipeline p --window 60s --schema 1"})
  void badFlags_oneLineOnStderrAndUsageCode(String args) {
    Cli.Result r = new Cli().run(args.split(" "));
    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
    assertEquals("", r.out(), r.describe());
  }

  @Test
  void codeOf_mapsFailuresThroughTheCauseChain() {
    assertEquals(ExitCodes.STORE_UNAVAILABLE, ExitCodes.codeOf(new IOException("x")));
    assertEquals(ExitCodes.STORE_UNAVAILABLE, ExitCodes.codeOf(new UncheckedIOException(new AccessDeniedException("/x"))));
    assertEquals(ExitCodes.AUTH, ExitCodes.codeOf(new CredentialsException("environment: no key")));
    assertEquals(ExitCodes.AUTH, ExitCodes.codeOf(new AuthFailureException("403", null)));
    assertEquals(ExitCodes.CONTENDED, ExitCodes.codeOf(new ContendedException("busy")));
    assertEquals(ExitCodes.NOT_FOUND, ExitCodes.codeOf(new NotFoundException("none")));
    assertEquals(ExitCodes.STORE_REFUSED, ExitCodes.codeOf(new RuntimeException(
        new dev.idem.core.proof.StoreRefusedException("s3://b ignores If-None-Match: *"))));
    assertEquals(ExitCodes.USAGE, ExitCodes.codeOf(new UsageException("bad")));
    assertEquals(ExitCodes.USAGE, ExitCodes.codeOf(new IllegalArgumentException("bad name")));
    assertEquals(ExitCodes.TASK_FAILED, ExitCodes.codeOf(new TaskFailedException("t", new IOException("x"))));
    assertEquals(ExitCodes.INTERRUPTED_SIGINT, ExitCodes.codeOf(new InterruptedIOException("x")));
    assertEquals(ExitCodes.INTERNAL, ExitCodes.codeOf(new NullPointerException()));
    assertEquals(ExitCodes.AUTH, ExitCodes.codeOf(new RuntimeException(new CredentialsException("x"))));
  }

  @Test
  void oneLine_neverSpansLines() {
    assertEquals("a b", ExitCodes.oneLine(new IOException("a\nb")));
    assertEquals("/x: permission denied", ExitCodes.oneLine(new AccessDeniedException("/x")));
    assertEquals("NullPointerException", ExitCodes.oneLine(new NullPointerException()));
  }
}
