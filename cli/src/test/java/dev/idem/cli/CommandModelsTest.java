package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.ITypeInfo;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * {@link CommandModels} (generated as the module compiles, plain code) against the model picocli builds
 * from the annotated classes: the two agree on every attribute picocli exposes (names, labels, arity,
 * types, defaults, descriptions, required, hidden, positionals, mixins, subcommands, usage and parser
 * settings), on every help page byte for byte (plain and coloured), and on the values representative
 * lines parse to. So an annotation the command-model processor reproduces wrongly fails here.
 */
class CommandModelsTest {
  /** The model picocli builds from the annotations, with the handlers and help settings Main adds. */
  static CommandLine annotated() {
    CliContext ctx = context();
    return Main.configure(new CommandLine(new IdemCommand(ctx)), ctx);
  }

  static CommandLine generated() {
    return Main.commandLine(context());
  }

  @Test
  void everyCommand_generatedModelEqualsTheAnnotatedOne() {
    assertEquals(List.of(), differences(annotated().getCommandSpec(), generated().getCommandSpec()));
  }

  @Test
  void onlyTheCommandsWithArgumentGroups_areLeftToReflection() {
    Class<?>[] commands = IdemCommand.class.getAnnotation(Command.class).subcommands();
    assertEquals(commands.length, CommandModels.NAMES.length);
    List<String> reflected = new ArrayList<>();
    for (int i = 0; i < commands.length; i++) {
      Object command = CommandModels.command(i);
      if (command instanceof Class<?> c) {
        assertSame(commands[i], c);
        reflected.add(CommandModels.NAMES[i]);
      } else {
        assertInstanceOf(commands[i], ((CommandSpec) command).userObject());
      }
    }
    assertEquals(List.of("get", "scan"), reflected);
  }

  static Stream<Arguments> commandPaths() {
    return HelpAndExitCodesTest.allCommands().stream().map(path -> Arguments.of((Object) path));
  }

  @ParameterizedTest
  @MethodSource("commandPaths")
  void everyHelpPage_isTheSameByteForByte(String[] path) {
    for (Help.Ansi ansi : List.of(Help.Ansi.OFF, Help.Ansi.ON)) {
      assertEquals(select(annotated(), path).getUsageMessage(ansi), select(generated(), path).getUsageMessage(ansi),
          String.join(" ", path) + " " + ansi);
    }
  }

  static Stream<Arguments> lines() {
    return Stream.of(
        "key --pipeline p --window 1h --schema 1",
        "key --pipeline p --window 1h --at 1726000000 --offset 15m --schema 3 --input a=b --input c=@@d --store file:x --json -q",
        "run --pipeline p --window 60s --schema 1 --stdout --grace 3s --metrics-file m.prom --push-metrics http://x "
            + "--push-timeout 2s --max-clock-skew 1m --pointer-timeout 0s --writer w --allow-empty -- sh -c x --y",
        "run --pipeline p --window 60s --schema 1 sh -c x --y",
        "publish --file f --allow-empty --pipeline p --window 1h --schema 0 --store file:s",
        "pointer show --pipeline p --json",
        "pointer advance --pipeline p --window 1h --schema 1 --writer w --pointer-timeout 1s",
        "pointer rewind --pipeline p --window 1h --schema 1 --expect k --reason r --max-clock-skew 0s",
        "gc --pipeline p --keep 2 --older-than 1d --grace 5m --dry-run --drop-divergent-evidence",
        "demo --store file:x --keep-store",
        "doctor --no-probe -q",
        "get --pipeline p --window 1h --schema 1",
        "scan --pipeline p --since 1d --max-keys 3",
        "key --window xx",
        "key --pipeline p --window 1h --schema one",
        "key --pipeline",
        "gc --keep",
        "run --pipeline p --window 1h --schema 1",
        "-V",
        "key --help").map(line -> Arguments.of(line));
  }

  @ParameterizedTest
  @MethodSource("lines")
  void representativeLines_parseToTheSameValues(String line) {
    String[] args = line.split(" ");
    CommandLine a = annotated();
    CommandLine g = generated();
    assertEquals(parsed(a, args), parsed(g, args), line);
    // Parsed again on the same command line: options reset to their initial values first.
    String[] key = {"key", "--pipeline", "q", "--window", "2h", "--schema", "2"};
    assertEquals(parsed(a, key), parsed(g, key), line + ", then " + String.join(" ", key));
  }

  @Test
  void generatedBindings_writeTheCommandsFields() {
    CommandLine g = generated();
    g.parseArgs("key", "--pipeline", "p", "--window", "1h", "--schema", "3", "--input", "a=b", "--store", "file:x", "--json");
    KeyCommand key = (KeyCommand) g.getSubcommands().get("key").getCommandSpec().userObject();
    assertEquals("p", key.specOptions.pipeline);
    assertEquals(Duration.ofHours(1), key.specOptions.window.length);
    assertEquals(3, key.specOptions.window.schema);
    assertEquals(List.of("a=b"), key.specOptions.window.inputs);
    assertEquals("file:x", key.store.uri);
    assertTrue(key.output.json);
    assertSame(g.getSubcommands().get("key").getCommandSpec(), key.spec);
    assertSame(key.spec, key.store.mixee);
  }

  static Stream<Arguments> drifts() {
    return Stream.<Arguments>of(
        drift("description", o -> OptionSpec.builder(o).description("other").build()),
        drift("defaultValue", o -> OptionSpec.builder(o).defaultValue("2h").build()),
        drift("arity", o -> OptionSpec.builder(o).arity("0..1").build()),
        drift("hidden", o -> OptionSpec.builder(o).hidden(true).build()),
        drift("paramLabel", o -> OptionSpec.builder(o).paramLabel("LEN").build()),
        drift("required", o -> OptionSpec.builder(o).required(false).build()),
        drift("type", o -> OptionSpec.builder(o).typeInfo(OptionSpec.builder("--s").type(String.class).build().typeInfo()).build()),
        drift("names", o -> OptionSpec.builder(o).names("--window", "-w").build()));
  }

  private static Arguments drift(String attribute, UnaryOperator<OptionSpec> change) {
    return Arguments.of(attribute, change);
  }

  /** The comparison itself: it must see each kind of drift, or the tests above would pass on anything. */
  @ParameterizedTest
  @MethodSource("drifts")
  void differences_reportAChangedOption(String attribute, UnaryOperator<OptionSpec> change) {
    CommandSpec key = generated().getSubcommands().get("key").getCommandSpec();
    List<OptionSpec> options = new ArrayList<>(key.options());
    for (OptionSpec o : options) {
      key.remove(o);
    }
    for (OptionSpec o : options) {
      key.addOption(o.longestName().equals("--window") ? change.apply(o) : o);
    }
    List<String> found = differences(annotated().getSubcommands().get("key").getCommandSpec(), key);
    assertTrue(found.stream().anyMatch(d -> d.contains("--window") && d.contains(attribute)), attribute + ": " + found);
  }

  @Test
  void differences_reportAnAddedOptionAliasOrSubcommand() {
    CommandSpec annotatedKey = annotated().getSubcommands().get("key").getCommandSpec();
    CommandSpec key = generated().getSubcommands().get("key").getCommandSpec();
    key.addOption(OptionSpec.builder("--extra").build());
    assertNotEquals(List.of(), differences(annotatedKey, key));

    CommandSpec aliased = generated().getSubcommands().get("key").getCommandSpec().aliases("k");
    assertTrue(differences(annotatedKey, aliased).stream().anyMatch(d -> d.contains("aliases")));

    CommandSpec pointer = generated().getSubcommands().get("pointer").getCommandSpec();
    pointer.addSubcommand("extra", CommandSpec.create());
    assertTrue(differences(annotated().getSubcommands().get("pointer").getCommandSpec(), pointer).stream()
        .anyMatch(d -> d.contains("subcommands")));

    CommandSpec run = generated().getSubcommands().get("run").getCommandSpec();
    List<ArgSpec> args = new ArrayList<>(run.args());
    args.forEach(run::remove);
    for (ArgSpec arg : args) {
      run.add(arg instanceof PositionalParamSpec p ? PositionalParamSpec.builder(p).arity("0..*").build() : arg);
    }
    List<String> found = differences(annotated().getSubcommands().get("run").getCommandSpec(), run);
    assertTrue(found.stream().anyMatch(d -> d.contains("CMD") && d.contains("arity")), found.toString());
  }

  // ---- the comparison ----

  /** Every difference between two command trees, one line each; empty when they agree. */
  static List<String> differences(CommandSpec a, CommandSpec b) {
    List<String> out = new ArrayList<>();
    compareCommand(a, b, out);
    return out;
  }

  private static final Set<String> COMMAND_SKIPPED = Set.of("parent", "root", "commandLine", "userObject", "args", "options",
      "positionalParameters", "requiredArgs", "optionsMap", "negatedOptionsMap", "posixOptionsMap", "argGroups", "mixins",
      "mixinAnnotatedElements", "specElements", "parentCommandElements", "unmatchedArgsBindings", "subcommands",
      "usageMessage", "parser", "toString", "addMethodSubcommands" /* not a getter: it adds subcommands */);
  /** The bindings (fields by reflection against generated code) differ by design; their values are compared by parsing. */
  private static final Set<String> ARG_SKIPPED = Set.of("toBuilder", "group", "getter", "setter", "scope", "command", "userObject",
      "messages", "typeInfo", "stringValues", "originalStringValues", "typedValues", "getValue", "root");
  private static final Set<String> USAGE_SKIPPED = Set.of("messages", "toString");

  private static void compareCommand(CommandSpec a, CommandSpec b, List<String> out) {
    String where = a.qualifiedName(" ");
    if (a.userObject().getClass() != b.userObject().getClass()) {
      out.add(where + ": user object " + a.userObject().getClass() + " vs " + b.userObject().getClass());
    }
    compareGetters(where, COMMAND_SKIPPED, a, b, out);
    compareGetters(where + " usage", USAGE_SKIPPED, a.usageMessage(), b.usageMessage(), out);
    compareGetters(where + " parser", Set.of("toString"), a.parser(), b.parser(), out);
    compareArgs(where, a.args(), b.args(), out);
    compareMixins(where, a.mixins(), b.mixins(), out);
    if (a.argGroups().size() != b.argGroups().size()) {
      out.add(where + ": argGroups " + a.argGroups().size() + " vs " + b.argGroups().size());
    }
    if (!new ArrayList<>(a.subcommands().keySet()).equals(new ArrayList<>(b.subcommands().keySet()))) {
      out.add(where + ": subcommands " + a.subcommands().keySet() + " vs " + b.subcommands().keySet());
      return;
    }
    for (String name : a.subcommands().keySet()) {
      compareCommand(a.subcommands().get(name).getCommandSpec(), b.subcommands().get(name).getCommandSpec(), out);
    }
  }

  private static void compareArgs(String where, List<ArgSpec> a, List<ArgSpec> b, List<String> out) {
    List<String> an = a.stream().map(CommandModelsTest::label).toList();
    List<String> bn = b.stream().map(CommandModelsTest::label).toList();
    if (!an.equals(bn)) {
      out.add(where + ": options and parameters " + an + " vs " + bn);
      return;
    }
    for (int i = 0; i < a.size(); i++) {
      String arg = where + " " + an.get(i);
      compareGetters(arg, ARG_SKIPPED, a.get(i), b.get(i), out);
      ITypeInfo ta = a.get(i).typeInfo();
      ITypeInfo tb = b.get(i).typeInfo();
      compareGetters(arg + " typeInfo", Set.of("getActualGenericTypeArguments", "getAuxiliaryTypeInfos", "toString"), ta, tb, out);
    }
  }

  /** Mixins by name, in order, with the class of the object each binds and what it holds. */
  private static void compareMixins(String where, Map<String, CommandSpec> a, Map<String, CommandSpec> b, List<String> out) {
    if (!new ArrayList<>(a.keySet()).equals(new ArrayList<>(b.keySet()))) {
      out.add(where + ": mixins " + a.keySet() + " vs " + b.keySet());
      return;
    }
    for (String name : a.keySet()) {
      CommandSpec ma = a.get(name);
      CommandSpec mb = b.get(name);
      String mixin = where + " mixin " + name;
      if (!name.equals("mixinStandardHelpOptions")) {
        if (ma.userObject().getClass() != mb.userObject().getClass()) {
          out.add(mixin + ": user object " + ma.userObject().getClass() + " vs " + mb.userObject().getClass());
        }
        if (!Objects.equals(ma.toString(), mb.toString())) {
          out.add(mixin + ": toString " + ma + " vs " + mb);
        }
      }
      compareArgs(mixin, ma.args(), mb.args(), out);
      compareMixins(mixin, ma.mixins(), mb.mixins(), out);
    }
  }

  private static String label(ArgSpec arg) {
    return arg instanceof OptionSpec o ? o.longestName() : ((PositionalParamSpec) arg).paramLabel();
  }

  /** Every public no-argument getter of {@code a}'s class, but the skipped ones, on both objects. */
  private static void compareGetters(String where, Set<String> skipped, Object a, Object b, List<String> out) {
    for (Method m : a.getClass().getMethods()) {
      if (m.getParameterCount() != 0 || Modifier.isStatic(m.getModifiers()) || m.getReturnType() == void.class
          || skipped.contains(m.getName()) || m.getName().equals("hashCode") || m.getName().equals("getClass")) {
        continue;
      }
      Object va = normalized(invoke(m, a));
      Object vb = normalized(invoke(m, b));
      if (!Objects.equals(va, vb)) {
        out.add(where + ": " + m.getName() + " " + va + " vs " + vb);
      }
    }
  }

  private static Object invoke(Method m, Object target) {
    try {
      m.setAccessible(true);
      return m.invoke(target);
    } catch (InvocationTargetException e) {
      return "throws " + e.getCause();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(m.toString(), e);
    }
  }

  /** A value comparable across the two models: arrays and collections element by element, objects without a value by class. */
  static Object normalized(Object v) {
    if (v == null || v instanceof String || v instanceof Number || v instanceof Boolean || v instanceof Character
        || v instanceof Enum<?> || v instanceof Class<?> || v instanceof CommandLine.Range || v instanceof Duration) {
      return v;
    }
    if (v.getClass().isArray()) {
      List<Object> list = new ArrayList<>();
      for (int i = 0; i < Array.getLength(v); i++) {
        list.add(normalized(Array.get(v, i)));
      }
      return list;
    }
    if (v instanceof Map<?, ?> map) {
      Map<Object, Object> m = new LinkedHashMap<>();
      map.forEach((k, x) -> m.put(normalized(k), normalized(x)));
      return m;
    }
    if (v instanceof Iterable<?> it) {
      List<Object> list = new ArrayList<>();
      it.forEach(x -> list.add(normalized(x)));
      return list;
    }
    try {
      if (v.getClass().getMethod("toString").getDeclaringClass() == Object.class) {
        return "a " + v.getClass().getName();
      }
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
    // Some picocli values print their identity hash (RegexTransformer): not a difference.
    return v.getClass().getName() + ": " + v.toString().replaceAll("@[0-9a-f]+$", "");
  }

  /** What parsing {@code args} gave: each command's option and parameter values, or the error. */
  static String parsed(CommandLine cl, String[] args) {
    try {
      CommandLine.ParseResult result = cl.parseArgs(args);
      StringBuilder b = new StringBuilder();
      for (CommandLine c : result.asCommandLineList()) {
        b.append(c.getCommandSpec().qualifiedName(" ")).append(":\n");
        for (ArgSpec arg : c.getCommandSpec().args()) {
          b.append("  ").append(label(arg)).append(" = ").append(normalized(arg.getValue()))
              .append(arg instanceof OptionSpec o && result.asCommandLineList().size() > 0
                  && c.getParseResult().hasMatchedOption(o) ? " (matched)" : "").append('\n');
        }
      }
      return b.toString();
    } catch (CommandLine.ParameterException e) {
      return e.getClass().getName() + ": " + e.getMessage();
    }
  }

  private static CommandLine select(CommandLine cl, String[] path) {
    for (String p : path) {
      cl = cl.getSubcommands().get(p);
    }
    return cl;
  }

  private static CliContext context() {
    return new CliContext(new ByteArrayInputStream(new byte[0]), OutputStream.nullOutputStream(), Map.of(),
        Clock.systemUTC(), null);
  }
}
