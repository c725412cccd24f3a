package dev.idem.cli;

import dev.idem.core.RunSpec;
import java.time.Clock;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The full run spec: {@code --pipeline} plus {@link WindowOptions}. Shared by run, key, publish, pointer advance. */
final class SpecOptions {
  @Option(names = "--pipeline", paramLabel = "P", required = true,
      description = "Pipeline name: 1-64 of [a-z0-9._-], starting with a letter or digit.")
  String pipeline;

  @Mixin
  WindowOptions window;

  RunSpec toSpec(Clock clock) {
    return window.toSpec(pipeline, clock);
  }
}
