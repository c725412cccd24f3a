package dev.idem.core.publish;

import dev.idem.core.store.Pointer;
import java.time.Duration;
import java.util.Objects;

/**
 * Result of one {@link PointerAdvancer#advance} call.
 *
 * @param status what happened
 * @param requested the pointer the caller asked for
 * @param current the pointer as it stands after the call, as far as this call knows (the requested one
 *     after ADVANCED; the one that made it back off otherwise; {@code null} if none was read)
 * @param attempts compare-and-swap attempts made
 * @param elapsed how long the call took, waits included (what a BUSY or CONFLICT spent of its deadline)
 */
public record AdvanceReport(AdvanceStatus status, Pointer requested, Pointer current, int attempts, Duration elapsed) {
  public AdvanceReport {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(requested, "requested");
    Objects.requireNonNull(elapsed, "elapsed");
  }
}
