package dev.idem.core.publish;

import dev.idem.core.store.Pointer;
import java.util.Objects;

/**
 * Result of one {@link PointerRewinder#rewind} call.
 *
 * @param status what happened
 * @param current the pointer as this call last saw it: the one written after REWOUND (its {@link
 *     Pointer#rewind()} is the record), the one that stood in the way after POINTER_MOVED or BUSY,
 *     {@code null} after NO_POINTER
 */
public record RewindReport(RewindStatus status, Pointer current) {
  public RewindReport {
    Objects.requireNonNull(status, "status");
  }
}
