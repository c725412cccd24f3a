package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * The manifests under examples/kubernetes cannot rot: every idem invocation in them (a container's
 * {@code command:} list whose first item is idem, plus an {@code args:} list right after it) is parsed
 * by the real command line, so a renamed or removed flag, a bad duration or a missing required option
 * fails here. Line-based reading of block sequences, the one YAML form the examples use.
 */
class ExamplesTest {
  static final Path EXAMPLES = Path.of("").toAbsolutePath().getParent().resolve("examples/kubernetes");

  /** One idem invocation: its file and arguments (after the idem executable). */
  record Invocation(Path file, List<String> args) {}

  static List<Invocation> invocations(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    List<Invocation> found = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String key = lines.get(i).strip();
      if (!key.equals("command:")) {
        continue;
      }
      List<String> items = new ArrayList<>();
      int next = readList(lines, i + 1, items);
      if (next < lines.size() && lines.get(next).strip().equals("args:")) {
        next = readList(lines, next + 1, items);
      }
      if (!items.isEmpty() && Path.of(items.get(0)).getFileName().toString().equals("idem")) {
        found.add(new Invocation(file, items.subList(1, items.size())));
      }
    }
    return found;
  }

  /** Reads {@code - item} lines from {@code from}; returns the index of the first line that is not one. */
  private static int readList(List<String> lines, int from, List<String> into) {
    int i = from;
    for (; i < lines.size(); i++) {
      String s = lines.get(i).strip();
      if (!s.startsWith("- ")) {
        break;
      }
      String v = s.substring(2).strip();
      if (v.length() >= 2 && (v.startsWith("\"") && v.endsWith("\"") || v.startsWith("'") && v.endsWith("'"))) {
        v = v.substring(1, v.length() - 1);
      }
      into.add(v);
    }
    return i;
  }

  static ParseResult parse(Invocation inv) {
    CommandLine cl = Main.commandLine(new CliContext(InputStream.nullInputStream(), OutputStream.nullOutputStream(),
        Map.of(), Clock.systemUTC(), null));
    try {
      return cl.parseArgs(inv.args().toArray(new String[0]));
    } catch (CommandLine.ParameterException e) {
      return fail(inv.file().getFileName() + ": 'idem " + String.join(" ", inv.args()) + "' does not parse: " + e.getMessage());
    }
  }

  static List<Invocation> all() throws IOException {
    List<Invocation> all = new ArrayList<>();
    try (Stream<Path> files = Files.list(EXAMPLES)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
        all.addAll(invocations(f));
      }
    }
    return all;
  }

  @Test
  void manifests_everyIdemInvocationParsesWithTheRealCommandLine() throws IOException {
    List<Invocation> all = all();
    List<String> commands = all.stream().map(inv -> parse(inv).subcommand().commandSpec().name()).toList();
    assertEquals(List.of("run", "scan"), commands.stream().sorted().toList(), "the CronJob's run and the gate's scan");
  }

  @Test
  void parse_unknownFlag_failsTheCheck() {
    Invocation typo = new Invocation(Path.of("typo.yaml"), List.of("scan", "--store", "s3://b/p", "--pipline", "p"));
    AssertionError e = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class, () -> parse(typo));
    assertTrue(e.getMessage().contains("--pipline"), e.getMessage());
  }

  @Test
  void cronjob_terminationGraceOutlastsIdemGrace() throws IOException {
    Path cronjob = EXAMPLES.resolve("cronjob.yaml");
    Invocation run = invocations(cronjob).get(0);
    Duration grace = parse(run).subcommand().matchedOptionValue("--grace", Duration.ofSeconds(10));
    long termination = Files.readAllLines(cronjob).stream().map(String::strip)
        .filter(l -> l.startsWith("terminationGracePeriodSeconds:"))
        .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(':') + 1).strip())).findFirst().orElseThrow();
    assertTrue(termination > grace.toSeconds(), "terminationGracePeriodSeconds " + termination + " > --grace " + grace);
    assertTrue(Files.readString(cronjob).contains("eks.amazonaws.com/role-arn:"), "an IRSA service account");
  }
}
