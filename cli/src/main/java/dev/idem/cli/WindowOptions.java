package dev.idem.cli;

import dev.idem.core.RunSpec;
import dev.idem.core.Sha256;
import dev.idem.core.Window;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The spec fields besides the pipeline: which window, which schema, which declared inputs. Used as
 * a mixin by {@code run}, {@code key}, {@code publish} and {@code pointer advance}, and as an
 * argument group by {@code get} (where it is the alternative to {@code --latest}).
 *
 * <p>The window is the newest one of {@code --window} length that had closed at {@code --at}
 * (default: now), so two replicas that start seconds apart compute the same window and key.
 */
public final class WindowOptions {
  @Option(names = "--window", paramLabel = "D", required = true, converter = Durations.class,
      description = "Window length: 60s, 5m, 1h, 1d (or ISO-8601 like PT1H). Whole seconds.")
  Duration length;

  @Option(names = "--at", paramLabel = "TIME", converter = Instants.class,
      description = "Take the newest window that had closed at TIME (ISO-8601 with zone, or epoch seconds). Default: now")
  Instant at;

  @Option(names = "--offset", paramLabel = "D", converter = Durations.class,
      description = "Shift window boundaries by D (less than the window), e.g. --window 1h --offset 15m runs :15 to :15. Default: 0s")
  Duration offset;

  @Option(names = "--schema", paramLabel = "N", required = true,
      description = "Output schema version; bump it when the output format changes.")
  int schema;

  @Option(names = "--input", paramLabel = "NAME=VALUE",
      description = "A declared input that defines the unit of work (repeatable). NAME=@FILE uses the file's "
          + "SHA-256 as the value (\"sha256:<hex>\"); NAME=@@x is the literal value \"@x\".")
  List<String> inputs = new ArrayList<>();

  /**
   * Builds the spec.
   *
   * @throws UsageException for an invalid pipeline or input name, window, schema or input file
   */
  public RunSpec toSpec(String pipeline, Clock clock) {
    Window window;
    try {
      window = Window.closedAt(at != null ? at : clock.instant(), length, offset != null ? offset : Duration.ZERO);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage(), e);
    }
    if (schema < 0) {
      throw new UsageException("--schema must be >= 0, was " + schema);
    }
    try {
      RunSpec spec = RunSpec.of(pipeline, window, schema);
      for (String input : inputs) {
        int eq = input.indexOf('=');
        if (eq <= 0) {
          throw new UsageException("--input must be NAME=VALUE, was '" + input + "'");
        }
        spec = spec.withInput(input.substring(0, eq), inputValue(input.substring(eq + 1)));
      }
      return spec;
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage(), e);
    }
  }

  private static String inputValue(String raw) {
    if (raw.startsWith("@@")) {
      return raw.substring(1);
    }
    if (!raw.startsWith("@")) {
      return raw;
    }
    String name = raw.substring(1);
    Path file;
    try {
      file = Path.of(name);
    } catch (InvalidPathException e) {
      throw new UsageException("--input file '" + name + "': " + e.getReason());
    }
    if (!Files.isRegularFile(file)) {
      throw new UsageException("--input file '" + name + "' is not a readable regular file");
    }
    try (InputStream in = Files.newInputStream(file)) {
      return "sha256:" + Sha256.of(in);
    } catch (IOException e) {
      throw new UsageException("cannot read --input file '" + name + "': " + ExitCodes.oneLine(e), e);
    }
  }
}
