package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Main tells picocli to skip the built-in converters of java.sql, java.time and java.nio.file types
 * (registering them costs every start class initialisation and class-path searches). That is only
 * safe while no option or parameter of any command relies on one: these tests fail for one that has
 * such a type and no converter of its own, and check that the settings are applied.
 */
class PicocliSettingsTest {

  /** Every option or parameter, in every command, of a skipped type without its own converter. */
  static List<String> relyingOnSkippedConverters(CommandSpec spec, List<String> out, int[] skippedTypes) {
    for (ArgSpec arg : spec.args()) {
      Set<Class<?>> types = new LinkedHashSet<>(List.of(arg.type()));
      types.addAll(List.of(arg.auxiliaryTypes()));
      for (Class<?> t : types) {
        if (t.getName().matches(Main.UNUSED_CONVERTERS)) {
          skippedTypes[0]++;
          if (arg.converters().length == 0) {
            out.add(spec.qualifiedName(" ") + " " + (arg instanceof OptionSpec o ? o.longestName() : arg.paramLabel())
                + ": " + t.getName());
          }
        }
      }
    }
    for (CommandLine sub : spec.subcommands().values()) {
      relyingOnSkippedConverters(sub.getCommandSpec(), out, skippedTypes);
    }
    return out;
  }

  private static CommandLine full() {
    return Main.commandLine(new CliContext(InputStream.nullInputStream(), OutputStream.nullOutputStream(), Map.of(),
        Clock.systemUTC(), null));
  }

  @Test
  void noOptionOfAnyCommand_reliesOnASkippedBuiltInConverter() {
    int[] skippedTypes = {0};
    assertEquals(List.of(), relyingOnSkippedConverters(full().getCommandSpec(), new ArrayList<>(), skippedTypes));
    assertTrue(skippedTypes[0] > 10, "the walk met the Duration and Instant options: " + skippedTypes[0]);
  }

  @Test
  void anOptionOfASkippedTypeWithoutConverter_isReported() {
    CommandSpec spec = CommandSpec.create().name("x");
    spec.addOption(OptionSpec.builder("--d").type(Duration.class).build());
    spec.addOption(OptionSpec.builder("--e").type(Duration.class).converters(new Durations()).build());
    assertEquals(List.of("x --d: java.time.Duration"), relyingOnSkippedConverters(spec, new ArrayList<>(), new int[1]));
  }

  @Test
  void buildingACommandLine_appliesTheSettings() {
    full();
    assertEquals("true", System.getProperty("picocli.disable.closures"));
    assertEquals(Main.UNUSED_CONVERTERS, System.getProperty("picocli.converters.excludes"));
    assertTrue("java.time.Duration".matches(Main.UNUSED_CONVERTERS) && "java.sql.Time".matches(Main.UNUSED_CONVERTERS)
        && "java.nio.file.Path".matches(Main.UNUSED_CONVERTERS) && !"java.lang.String".matches(Main.UNUSED_CONVERTERS));
  }
}
