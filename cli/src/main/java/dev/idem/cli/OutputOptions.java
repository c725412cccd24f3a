package dev.idem.cli;

import picocli.CommandLine.Option;

/** {@code --json} and {@code --quiet}, shared by every command that reports something. */
final class OutputOptions {
  @Option(names = "--json", description = "Print a machine-readable JSON report on stdout instead of human lines.")
  boolean json;

  @Option(names = {"-q", "--quiet"}, description = "Print nothing but errors (the exit code tells the outcome).")
  boolean quiet;

  /** Whether human lines should be printed. */
  boolean human() {
    return !json && !quiet;
  }
}
