package dev.idem.core.publish;

import dev.idem.core.store.Pointer;
import java.time.Duration;
import java.util.Objects;

/**
 * Result of one {@link PointerRewinder#rewind} call.
 *
 * @param status what happened
 * @param current the pointer as this call last saw it: the one written after REWOUND (its {@link
 *     Pointer#rewind()} is the record), the one that stood in the way after POINTER_MOVED or BUSY,
 *     {@code null} after NO_POINTER
 * @param elapsed how long the call took, the wait for the store's lock included: after BUSY, how long
 *     the lock was waited for before the deadline ran out
 */
public record RewindReport(RewindStatus status, Pointer current, Duration elapsed) {
  public RewindReport {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(elapsed, "elapsed");
  }
}
