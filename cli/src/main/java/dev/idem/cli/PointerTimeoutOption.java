package dev.idem.cli;

import dev.idem.core.publish.ClosedWindowGuard;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.publish.PointerRewinder;
import dev.idem.core.store.Deadline;
import dev.idem.core.store.ObjectStore;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * {@code --pointer-timeout}: the one total deadline of a command's pointer move (B1), shared by every
 * command that moves a pointer, forward or back, so that a lock nobody releases costs the same bounded
 * wait everywhere, and never past the command's overall deadline ({@code --max-time}). Parsing only; the
 * deadline itself is {@link PointerAdvancer}'s or {@link PointerRewinder}'s.
 */
final class PointerTimeoutOption {
  @Option(names = "--pointer-timeout", paramLabel = "D", converter = Durations.class,
      defaultValue = PointerAdvancer.DEFAULT_DEADLINE_SECONDS + "s",
      description = "Give up moving the pointer after D in all, lock waits and retries included: BUSY when "
          + "the pointer's lock was not obtained in time (on S3: conditional writes kept conflicting), CONFLICT "
          + "when other writers kept moving the pointer (both exit 3; nothing is lost, run again to complete "
          + "it). 0s tries once without waiting. Default: ${DEFAULT-VALUE}")
  Duration timeout;

  /** The advancer that honours this deadline on {@code store}, ending by {@code overall} too. */
  PointerAdvancer advancer(ObjectStore store, Deadline overall) {
    return new PointerAdvancer(store).withDeadline(timeout).within(overall);
  }

  /**
   * Which bound a pointer move that gave up ran out of, for its message: what was left of {@code overall}
   * once that has passed, else this option.
   */
  String ranOut(Deadline overall) {
    return overall.passed() ? "what was left of " + overall.describe() : "--pointer-timeout " + Durations.format(timeout);
  }

  /** The rewinder that honours this deadline on {@code store}, ending by {@code overall} too. */
  PointerRewinder rewinder(ObjectStore store, ClosedWindowGuard windows, Deadline overall) {
    return new PointerRewinder(store, windows).withDeadline(timeout).within(overall);
  }
}
