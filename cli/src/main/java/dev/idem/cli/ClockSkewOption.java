package dev.idem.cli;

import dev.idem.core.publish.ClosedWindowGuard;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * {@code --max-clock-skew D}, shared by the commands that write (run, publish, pointer advance,
 * pointer rewind): how far past now a window may end and still count as closed (G5). Exists so that a
 * mistyped {@code --at} cannot move a pointer into the future, from where no later generation could
 * move it on; the skew tolerates replicas whose clocks run slightly ahead.
 */
final class ClockSkewOption {
  @Option(names = "--max-clock-skew", paramLabel = "D", converter = Durations.class, defaultValue = "5m",
      description = "Refuse (exit 2) a window that ends more than D after now: it has not closed, and a pointer "
          + "moved to it would stay ahead of every later generation. Default: ${DEFAULT-VALUE}")
  Duration maxClockSkew;

  ClosedWindowGuard guard(CliContext ctx) {
    return new ClosedWindowGuard(ctx.clock(), maxClockSkew);
  }
}
