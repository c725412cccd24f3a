package dev.idem.core.publish;

import dev.idem.core.Names;
import dev.idem.core.Window;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Deadline;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;

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
 * <p>Waiting (B1): the call has one total deadline (default {@value PointerAdvancer#DEFAULT_DEADLINE_SECONDS}
 * s, {@link #withDeadline}), the same as an advance's. The swap is given only the time left of it for
 * whatever the store waits on (the filesystem store's lock, S3's retries), so a lock held by a process
 * that never lets go ends the rewind as BUSY at the deadline, nothing written, instead of after the
 * store's own lock timeout; {@link RewindReport#elapsed()} says how long it waited. Under a caller's
 * overall deadline ({@link #within}) the call ends by whichever comes first.
 *
 * <p>Refused with {@link IllegalArgumentException} before anything is written: a target window that
 * has not closed (G5), a target object that is missing or differs from the pointer's hash and size
 * (G1), a target that is not behind the current pointer (use {@link PointerAdvancer}), a blank or
 * multi-line reason. An {@link IOException} leaves the pointer whole, old or new.
 */
public final class PointerRewinder {
  private final ObjectStore store;
  private final ClosedWindowGuard windows;
  private final Duration deadline;
  private final LongSupplier nanoTime;
  /** The caller's overall deadline, or {@code null}: only {@link #deadline} bounds a call. */
  private final Deadline overall;

  /** @param windows judges whether the target's window has closed; its clock stamps the record */
  public PointerRewinder(ObjectStore store, ClosedWindowGuard windows) {
    this(store, windows, Duration.ofSeconds(PointerAdvancer.DEFAULT_DEADLINE_SECONDS), System::nanoTime, null);
  }

  private PointerRewinder(ObjectStore store, ClosedWindowGuard windows, Duration deadline, LongSupplier nanoTime,
      Deadline overall) {
    this.store = Objects.requireNonNull(store, "store");
    this.windows = Objects.requireNonNull(windows, "windows");
    Objects.requireNonNull(deadline, "deadline");
    if (deadline.isNegative()) {
      throw new IllegalArgumentException("deadline must be >= 0, was " + deadline);
    }
    this.deadline = deadline;
    this.nanoTime = nanoTime;
    this.overall = overall;
  }

  /**
   * This rewinder with another total deadline per {@link #rewind} call.
   *
   * @param total {@code >= 0}; zero tries the swap once without waiting for a lock
   */
  public PointerRewinder withDeadline(Duration total) {
    return new PointerRewinder(store, windows, total, nanoTime, overall);
  }

  /**
   * This rewinder with each {@link #rewind} call also ending by {@code overall}, a command's deadline
   * over all its store work (B2): a call gets the shorter of its own deadline and the time left of
   * {@code overall} when it starts.
   */
  public PointerRewinder within(Deadline overall) {
    return new PointerRewinder(store, windows, deadline, nanoTime, Objects.requireNonNull(overall, "overall"));
  }

  /** This rewinder's total deadline per {@link #rewind} call. */
  public Duration deadline() {
    return deadline;
  }

  /** For tests: the same rewinder reading time from {@code ticker} (nanoseconds, as {@link System#nanoTime}). */
  PointerRewinder withTicker(LongSupplier ticker) {
    return new PointerRewinder(store, windows, deadline, ticker, overall);
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
    long start = nanoTime.getAsLong();
    long end = start + PointerAdvancer.shorter(deadline, overall);
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
      return report(RewindStatus.NO_POINTER, null, start);
    }
    Pointer current = read.get().pointer();
    if (!current.key().equals(expectedKey)) {
      return report(RewindStatus.POINTER_MOVED, current, start);
    }
    if (target.position().compareTo(current.position()) >= 0) {
      throw new IllegalArgumentException("refusing to rewind " + target.pipeline() + " to " + target.key() + " "
          + target.position() + ": it is not behind the pointer at " + current.key() + " " + current.position()
          + " (moving forward is 'pointer advance')");
    }
    Pointer next = target.withRewind(
        new Pointer.Rewind(current.key(), target.key(), operator, windows.clock().instant(), reason));
    Duration left = Duration.ofNanos(Math.max(0, end - nanoTime.getAsLong()));
    CasResult r = store.compareAndSetPointer(target.pipeline(), read.get().token(), next, left);
    return switch (r) {
      case SWAPPED -> report(RewindStatus.REWOUND, next, start);
      case BUSY -> report(RewindStatus.BUSY, current, start);
      case CONFLICT -> report(RewindStatus.POINTER_MOVED,
          store.readPointer(target.pipeline()).map(PointerState::pointer).orElse(null), start);
    };
  }

  private RewindReport report(RewindStatus status, Pointer current, long start) {
    return new RewindReport(status, current, Duration.ofNanos(nanoTime.getAsLong() - start));
  }
}
