package dev.idem.core.publish;

import dev.idem.core.Names;
import dev.idem.core.Window;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;

/**
 * The one way a pipeline's pointer moves backwards: an operator's repair, for a pointer that names a
 * generation readers must not get (a bad build's output, a window published from a mistyped time).
 * {@link PointerAdvancer} never moves a pointer back (G2); this class exists so that the repair is
 * deliberate, cannot race a publisher unseen, and stays on record.
 *
 * <p>Protocol: read the pointer and its token; unless it names exactly the key the operator expects,
 * stop (POINTER_MOVED, nothing written). Then compare-and-swap, with that token, a pointer to the
 * target that carries a {@link Pointer.Rewind} record (from, to, by, at, why). A publisher that moved
 * the pointer in between turns the swap into CONFLICT, reported as POINTER_MOVED: the operator decides
 * again on what is there now. One attempt only; a repair is never retried blindly.
 *
 * <p>Refused with {@link IllegalArgumentException} before anything is written: a target window that
 * has not closed (G5), a target object that is missing or differs from the pointer's hash and size
 * (G1), a target that is not behind the current pointer (use {@link PointerAdvancer}), a blank or
 * multi-line reason. An {@link IOException} leaves the pointer whole, old or new.
 */
public final class PointerRewinder {
  private final ObjectStore store;
  private final ClosedWindowGuard windows;

  /** @param windows judges whether the target's window has closed; its clock stamps the record */
  public PointerRewinder(ObjectStore store, ClosedWindowGuard windows) {
    this.store = Objects.requireNonNull(store, "store");
    this.windows = Objects.requireNonNull(windows, "windows");
  }

  /**
   * Moves the pointer of {@code target}'s pipeline back to {@code target} if it still names {@code
   * expectedKey}.
   *
   * @param target the pointer to write, naming an object that exists (its rewind record is replaced)
   * @param expectedKey the key the operator saw the pointer name
   * @param operator who asks, recorded as {@code rewound_by}
   * @param reason why, recorded as {@code rewind_reason}; see {@link Pointer.Rewind#requireReason}
   */
  public RewindReport rewind(Pointer target, String expectedKey, String operator, String reason) throws IOException {
    windows.requireClosed(new Window(target.windowStart(), target.windowLength()),
        "rewind " + target.pipeline() + " to");
    Names.requireWriterId(operator);
    Pointer.Rewind.requireReason(reason);
    ObjectInfo stored = store.stat(target.key()).orElseThrow(() -> new IllegalArgumentException(
        "refusing to rewind to " + target.key() + ": no such object in " + store.describe()));
    if (!stored.sha256().equals(target.sha256()) || stored.size() != target.size()) {
      throw new IllegalArgumentException("refusing to rewind to " + target.key() + ": stored object has sha256 "
          + stored.sha256() + " size " + stored.size() + ", pointer says " + target.sha256() + " size " + target.size());
    }
    Optional<PointerState> read = store.readPointer(target.pipeline());
    if (read.isEmpty()) {
      return new RewindReport(RewindStatus.NO_POINTER, null);
    }
    Pointer current = read.get().pointer();
    if (!current.key().equals(expectedKey)) {
      return new RewindReport(RewindStatus.POINTER_MOVED, current);
    }
    if (target.position().compareTo(current.position()) >= 0) {
      throw new IllegalArgumentException("refusing to rewind " + target.pipeline() + " to " + target.key() + " "
          + target.position() + ": it is not behind the pointer at " + current.key() + " " + current.position()
          + " (moving forward is 'pointer advance')");
    }
    Pointer next = target.withRewind(
        new Pointer.Rewind(current.key(), target.key(), operator, windows.clock().instant(), reason));
    CasResult r = store.compareAndSetPointer(target.pipeline(), read.get().token(), next);
    return switch (r) {
      case SWAPPED -> new RewindReport(RewindStatus.REWOUND, next);
      case BUSY -> new RewindReport(RewindStatus.BUSY, current);
      case CONFLICT -> new RewindReport(RewindStatus.POINTER_MOVED,
          store.readPointer(target.pipeline()).map(PointerState::pointer).orElse(null));
    };
  }
}
