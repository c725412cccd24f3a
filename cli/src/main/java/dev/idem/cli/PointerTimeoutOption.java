package dev.idem.cli;

import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.store.ObjectStore;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * {@code --pointer-timeout}: the one total deadline of a command's pointer advance (B1), shared by
 * every command that moves a pointer so that a lock nobody releases costs the same bounded wait
 * everywhere. Parsing only; the deadline itself is {@link PointerAdvancer}'s.
 */
final class PointerTimeoutOption {
  @Option(names = "--pointer-timeout", paramLabel = "D", converter = Durations.class,
      defaultValue = PointerAdvancer.DEFAULT_DEADLINE_SECONDS + "s",
      description = "Give up advancing the pointer after D in all, lock waits and retries included: BUSY when "
          + "the pointer's lock was not obtained in time, CONFLICT when other writers kept moving the pointer "
          + "(both exit 3; nothing is lost, run again to complete it). 0s tries once without waiting. "
          + "Default: ${DEFAULT-VALUE}")
  Duration timeout;

  /** The advancer that honours this deadline on {@code store}. */
  PointerAdvancer advancer(ObjectStore store) {
    return new PointerAdvancer(store).withDeadline(timeout);
  }
}
