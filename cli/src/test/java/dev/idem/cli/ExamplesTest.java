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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * The manifests under examples/kubernetes cannot rot: the idem invocation of every container in them is
 * parsed by the real command line, so a renamed or removed flag, a bad duration or a missing required
 * option fails here ({@code KubernetesExamplesE2E} runs them in the image). A container that runs the
 * idem image names no command (the image's entrypoint is idem) and gives idem's arguments as
 * {@code args}; a task container runs {@code idem} from its {@code command}, directly or through
 * {@code /bin/sh -c '... exec idem SUBCOMMAND "$@"' idem} with idem's arguments as {@code args}.
 * Line-based reading of the one YAML form the examples use (block sequences and mappings).
 */
class ExamplesTest {
  static final Path EXAMPLES = Path.of("").toAbsolutePath().getParent().resolve("examples/kubernetes");

  /** One container: its image, command, args, literal env values and env values from the downward API. */
  record Container(Path file, String name, String image, List<String> command, List<String> args,
      Map<String, String> env, Map<String, String> fieldRefs) {}

  /** One idem invocation: its file and arguments (after the idem executable). */
  record Invocation(Path file, List<String> args) {}

  private static final Pattern SHELL_EXEC = Pattern.compile("exec idem ([a-z]+) \"\\$@\"$");

  static List<Container> containers(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    List<Container> found = new ArrayList<>();
    for (int i = 0; i + 1 < lines.size(); i++) {
      String s = lines.get(i).strip();
      if (!s.startsWith("- name:") || !lines.get(i + 1).strip().startsWith("image:")) {
        continue;
      }
      int indent = indent(lines.get(i));
      String image = value(lines.get(i + 1).strip().substring("image:".length()));
      List<String> command = new ArrayList<>();
      List<String> args = new ArrayList<>();
      Map<String, String> env = new LinkedHashMap<>();
      Map<String, String> refs = new LinkedHashMap<>();
      int j = i + 2;
      while (j < lines.size() && (skipped(lines.get(j)) || indent(lines.get(j)) > indent)) {
        String key = lines.get(j).strip();
        if (key.equals("command:")) {
          j = readList(lines, j + 1, command);
        } else if (key.equals("args:")) {
          j = readList(lines, j + 1, args);
        } else if (key.equals("env:")) {
          j = readEnv(lines, j + 1, env, refs);
        } else {
          j++;
        }
      }
      found.add(new Container(file, value(s.substring("- name:".length())), image, command, args, env, refs));
    }
    return found;
  }

  private static boolean skipped(String line) {
    return line.isBlank() || line.strip().startsWith("#");
  }

  private static int indent(String line) {
    int n = 0;
    while (n < line.length() && line.charAt(n) == ' ') {
      n++;
    }
    return n;
  }

  /** A scalar: plain, or quoted ('' is a quote inside single quotes). */
  static String value(String raw) {
    String v = raw.strip();
    if (v.length() >= 2 && v.startsWith("'") && v.endsWith("'")) {
      return v.substring(1, v.length() - 1).replace("''", "'");
    }
    if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
      return v.substring(1, v.length() - 1);
    }
    return v;
  }

  /** Reads {@code - item} lines (comments between them skipped); returns the index of the first other line. */
  private static int readList(List<String> lines, int from, List<String> into) {
    int i = from;
    for (; i < lines.size(); i++) {
      String s = lines.get(i).strip();
      if (s.startsWith("#")) {
        continue;
      }
      if (!s.startsWith("- ")) {
        break;
      }
      into.add(value(s.substring(2)));
    }
    return i;
  }

  /** Reads env entries: {@code - name: N} with {@code value: V}, or {@code valueFrom: fieldRef: fieldPath: P}. */
  private static int readEnv(List<String> lines, int from, Map<String, String> env, Map<String, String> refs) {
    int i = from;
    int indent = -1;
    String name = null;
    for (; i < lines.size(); i++) {
      String line = lines.get(i);
      if (skipped(line)) {
        continue;
      }
      String s = line.strip();
      if (s.startsWith("- name:") && (indent < 0 || indent(line) == indent)) {
        indent = indent(line);
        name = value(s.substring("- name:".length()));
      } else if (indent >= 0 && indent(line) > indent && s.startsWith("value:")) {
        env.put(name, value(s.substring("value:".length())));
      } else if (indent >= 0 && indent(line) > indent && s.startsWith("fieldPath:")) {
        refs.put(name, value(s.substring("fieldPath:".length())));
      } else if (indent < 0 || indent(line) <= indent) {
        break;
      }
    }
    return i;
  }

  /** Whether the container runs the idem image itself (its entrypoint is idem). */
  static boolean idemImage(Container c) {
    return c.image().startsWith("ghcr.io/idem-dev/idem:");
  }

  /** What idem receives from the container, or null when it does not run idem. */
  static Invocation invocation(Container c) {
    List<String> args = new ArrayList<>();
    if (c.command().isEmpty() && idemImage(c)) {
      args.addAll(c.args());
    } else if (!c.command().isEmpty() && Path.of(c.command().get(0)).getFileName().toString().equals("idem")) {
      args.addAll(c.command().subList(1, c.command().size()));
      args.addAll(c.args());
    } else if (c.command().size() == 4 && c.command().get(0).equals("/bin/sh") && c.command().get(1).equals("-c")) {
      Matcher m = SHELL_EXEC.matcher(c.command().get(2));
      assertTrue(m.find(), c.file().getFileName() + ": a shell command that does not end in exec idem SUBCOMMAND \"$@\"");
      args.add(m.group(1));
      args.addAll(c.args());
    } else {
      return null;
    }
    return new Invocation(c.file(), args);
  }

  static List<Invocation> invocations(Path file) throws IOException {
    return containers(file).stream().map(ExamplesTest::invocation).filter(java.util.Objects::nonNull).toList();
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
    assertEquals(List.of("ack", "run", "scan"), commands.stream().sorted().toList(),
        "the CronJob's run, the gate's scan and the acknowledgement");
  }

  @Test
  void parse_unknownFlag_failsTheCheck() {
    Invocation typo = new Invocation(Path.of("typo.yaml"), List.of("scan", "--store", "s3://b/p", "--pipline", "p"));
    AssertionError e = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class, () -> parse(typo));
    assertTrue(e.getMessage().contains("--pipline"), e.getMessage());
  }

  @Test
  void containers_ofTheIdemImageNameNoCommand() throws IOException {
    // The image's entrypoint is idem in the JVM and in the native image; a command would have to name a
    // path that only one of them has.
    List<Container> all = new ArrayList<>();
    try (Stream<Path> files = Files.list(EXAMPLES)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
        all.addAll(containers(f));
      }
    }
    assertEquals(3, all.size(), all.toString());
    for (Container c : all.stream().filter(ExamplesTest::idemImage).toList()) {
      assertEquals(List.of(), c.command(), c.file().getFileName() + " " + c.name());
    }
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
