package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The native binary's configuration, checked on the JVM: every class picocli reaches by reflection
 * (commands, mixins, argument groups, version providers, converters) is in the reflect-config.json that
 * picocli-codegen generates at compile time, with every annotated field, and every resource idem reads
 * is in resource-config.json. A command added without its configuration fails here, not on the first
 * native build.
 */
class NativeConfigTest {
  static final String REFLECT = "META-INF/native-image/picocli-generated/dev.idem/idem-cli/reflect-config.json";
  static final String RESOURCES = "META-INF/native-image/dev.idem/idem-cli/resource-config.json";

  static String resource(String name) throws IOException {
    try (InputStream in = NativeConfigTest.class.getClassLoader().getResourceAsStream(name)) {
      assertNotNull(in, name + " is not on the class path (is picocli-codegen still the compiler's annotation processor?)");
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** Class name to the field names the configuration grants reflective access to. */
  @SuppressWarnings("unchecked")
  static Map<String, Set<String>> configured(String reflectConfig) {
    Map<String, Set<String>> m = new LinkedHashMap<>();
    // MiniJson takes compact JSON; the names in this file (classes, fields, types) hold no whitespace.
    for (Object o : (List<Object>) MiniJson.parse(reflectConfig.replaceAll("\\s+", ""))) {
      Map<String, Object> entry = (Map<String, Object>) o;
      Set<String> fields = new LinkedHashSet<>();
      for (Object f : (List<Object>) entry.getOrDefault("fields", List.of())) {
        fields.add((String) ((Map<String, Object>) f).get("name"));
      }
      m.put((String) entry.get("name"), fields);
    }
    return m;
  }

  /** Every idem class picocli instantiates or injects into, with the fields it sets, from the root command. */
  static Map<Class<?>, Set<String>> needed(CommandLine root) {
    Map<Class<?>, Set<String>> need = new LinkedHashMap<>();
    walk(root.getCommandSpec(), need);
    return need;
  }

  private static void walk(CommandSpec spec, Map<Class<?>, Set<String>> need) {
    addClass(spec.userObject().getClass(), need);
    if (spec.versionProvider() != null) {
      need.putIfAbsent(spec.versionProvider().getClass(), new LinkedHashSet<>());
    }
    for (OptionSpec o : spec.options()) {
      for (CommandLine.ITypeConverter<?> c : o.converters()) {
        if (c.getClass().getName().startsWith("dev.idem.")) {
          need.putIfAbsent(c.getClass(), new LinkedHashSet<>());
        }
      }
    }
    for (CommandLine sub : spec.subcommands().values()) {
      walk(sub.getCommandSpec(), need);
    }
  }

  /** A command, mixin or group class: its annotated fields, and the classes its mixins and groups bring. */
  private static void addClass(Class<?> c, Map<Class<?>, Set<String>> need) {
    if (need.containsKey(c) && !need.get(c).isEmpty()) {
      return;
    }
    Set<String> fields = need.computeIfAbsent(c, k -> new LinkedHashSet<>());
    for (Field f : c.getDeclaredFields()) {
      if (f.isAnnotationPresent(Option.class) || f.isAnnotationPresent(Parameters.class) || f.isAnnotationPresent(Spec.class)
          || f.isAnnotationPresent(Mixin.class) || f.isAnnotationPresent(ArgGroup.class) || f.isAnnotationPresent(ParentCommand.class)) {
        fields.add(f.getName());
      }
      if (f.isAnnotationPresent(Mixin.class) || f.isAnnotationPresent(ArgGroup.class)) {
        Class<?> type = f.getType();
        if (f.getGenericType() instanceof ParameterizedType pt && pt.getActualTypeArguments()[0] instanceof Class<?> arg) {
          type = arg;
        }
        addClass(type, need);
      }
    }
  }

  /** What {@code configured} lacks of {@code needed}, one line per class or field. */
  static List<String> missing(Map<Class<?>, Set<String>> needed, Map<String, Set<String>> configured) {
    List<String> gaps = new ArrayList<>();
    for (Map.Entry<Class<?>, Set<String>> e : needed.entrySet()) {
      Set<String> have = configured.get(e.getKey().getName());
      if (have == null) {
        gaps.add(e.getKey().getName() + " has no reflect-config entry");
        continue;
      }
      for (String f : e.getValue()) {
        if (!have.contains(f)) {
          gaps.add(e.getKey().getName() + "." + f + " is not in its reflect-config entry");
        }
      }
    }
    return gaps;
  }

  static CommandLine root() {
    return Main.commandLine(new CliContext(InputStream.nullInputStream(), java.io.OutputStream.nullOutputStream(),
        Map.of(), java.time.Clock.systemUTC(), null));
  }

  @Test
  void reflectConfig_namesEveryCommandMixinGroupProviderAndConverter() throws Exception {
    Map<Class<?>, Set<String>> need = needed(root());
    assertTrue(need.containsKey(RunCommand.class) && need.containsKey(PointerShowCommand.class)
        && need.containsKey(IdemCommand.Version.class) && need.containsKey(Durations.class)
        && need.containsKey(MetricsOptions.class), "the walk reaches commands, mixins, providers, converters: " + need.keySet());
    assertEquals(List.of(), missing(need, configured(resource(REFLECT))));
  }

  @Test
  void reflectConfig_commandEntryRemoved_isReported() throws Exception {
    // A scratch copy of the generated configuration without publish's entry: what a command added
    // without codegen (or a build without the processor) would ship.
    Map<String, Set<String>> config = configured(resource(REFLECT));
    config.remove(PublishCommand.class.getName());
    Set<String> run = new LinkedHashSet<>(config.get(RunCommand.class.getName()));
    run.remove("metrics");
    config.put(RunCommand.class.getName(), run);
    assertEquals(List.of(RunCommand.class.getName() + ".metrics is not in its reflect-config entry",
        PublishCommand.class.getName() + " has no reflect-config entry"),
        missing(needed(root()), config).stream().filter(s -> s.contains("PublishCommand") || s.contains("RunCommand.")).toList());
  }

  @Test
  void resourceConfig_coversEveryResourceIdemReads() throws Exception {
    List<Pattern> patterns = new ArrayList<>();
    java.util.regex.Matcher m = Pattern.compile("\"pattern\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(resource(RESOURCES));
    while (m.find()) {
      patterns.add(Pattern.compile(m.group(1).replace("\\\\", "\\")));
    }
    List<String> resources = classpathResources();
    assertTrue(resources.contains("dev/idem/cli/version.properties"), resources.toString());
    for (String r : resources) {
      assertTrue(patterns.stream().anyMatch(p -> p.matcher(r).matches()), r + " is read at run time but not in " + RESOURCES);
    }
  }

  /** Every non-class file under dev/idem in this module's compiled classes. */
  static List<String> classpathResources() throws IOException, URISyntaxException {
    URL version = NativeConfigTest.class.getClassLoader().getResource("dev/idem/cli/version.properties");
    assertNotNull(version);
    Path root = Path.of(version.toURI()).getParent().getParent().getParent().getParent();
    try (Stream<Path> s = Files.walk(root.resolve("dev/idem"))) {
      return s.filter(Files::isRegularFile).map(p -> root.relativize(p).toString().replace('\\', '/'))
          .filter(n -> !n.endsWith(".class")).sorted().toList();
    }
  }
}
