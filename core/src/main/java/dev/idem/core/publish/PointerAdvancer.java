package dev.idem.core.publish;

import dev.idem.core.Window;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Deadline;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Moves a pipeline's {@code latest} pointer forward, never backward (G2), and never loses a concurrent
 * advance (G3), within one total deadline (B1).
 *
 * <p>Protocol, per attempt: read the pointer and its token; if it stands at the requested position or
 * later, stop (ALREADY_CURRENT, or SAME_POSITION_OTHER_KEY when it names another key there; NEWER_PRESENT)
 * without writing; otherwise compare-and-swap with the
 * token just read. The decision is made on the value the CAS then verifies, so a pointer moved by
 * someone else in between turns the CAS into CONFLICT, and the next attempt decides again on the new
 * value. This is what stops a slow old replica from swapping in an older generation after a new one
 * advanced (a bare CAS with a stale expectation would not). Attempts back off with full jitter. The
 * last operator rewind recorded in the pointer read ({@link Pointer#rewind()}) is carried into the
 * pointer written; moving backwards is {@link PointerRewinder}'s alone.
 *
 * <p>Waiting: the whole call, lock waits and backoffs included, ends by its deadline (default
 * {@value #DEFAULT_DEADLINE_SECONDS} s). Each compare-and-swap is given only the time left, so a lock
 * held by a process that never lets go costs one deadline, not one store lock timeout per attempt. The
 * first attempt is always made (a zero deadline tries once without waiting). Under a caller's overall
 * deadline ({@link #within}) the call ends by whichever comes first. Giving up is reported by
 * what the last attempt met: BUSY (the lock wait ran out) or CONFLICT (the pointer kept moving under
 * this call); both leave the pointer as others wrote it, and a retry is safe.
 *
 * <p>Before the first attempt the target object is checked to exist with the pointer's SHA-256 and
 * size, so a pointer never names a missing or different object (G1), and its window is checked to have
 * closed ({@link ClosedWindowGuard}, G5), so a pointer is never moved ahead of the present, from where
 * no later generation could move it on. Either refusal writes nothing.
 */
public final class PointerAdvancer {
  /** The default total deadline of one {@link #advance} call, in seconds. */
  public static final long DEFAULT_DEADLINE_SECONDS = 30;

  private final ObjectStore store;
  private final int maxAttempts;
  private final long baseBackoffMillis;
  private final Duration deadline;
  private final LongSupplier nanoTime;
  private final ClosedWindowGuard windows;
  /** The caller's overall deadline, or {@code null}: only {@link #deadline} bounds a call. */
  private final Deadline overall;

  /**
   * @param maxAttempts compare-and-swap attempts before giving up, {@code >= 1}
   * @param baseBackoffMillis first backoff ceiling; doubles per attempt up to 32x (full jitter), {@code >= 0}
   */
  public PointerAdvancer(ObjectStore store, int maxAttempts, long baseBackoffMillis) {
    this(store, maxAttempts, baseBackoffMillis, Duration.ofSeconds(DEFAULT_DEADLINE_SECONDS), System::nanoTime,
        ClosedWindowGuard.systemDefault(), null);
  }

  public PointerAdvancer(ObjectStore store) {
    this(store, 64, 2);
  }

  private PointerAdvancer(ObjectStore store, int maxAttempts, long baseBackoffMillis, Duration deadline, LongSupplier nanoTime,
      ClosedWindowGuard windows, Deadline overall) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
    }
    if (baseBackoffMillis < 0) {
      throw new IllegalArgumentException("baseBackoffMillis must be >= 0, was " + baseBackoffMillis);
    }
    Objects.requireNonNull(deadline, "deadline");
    if (deadline.isNegative()) {
      throw new IllegalArgumentException("deadline must be >= 0, was " + deadline);
    }
    this.store = Objects.requireNonNull(store, "store");
    this.maxAttempts = maxAttempts;
    this.baseBackoffMillis = baseBackoffMillis;
    this.deadline = deadline;
    this.nanoTime = nanoTime;
    this.windows = Objects.requireNonNull(windows, "windows");
    this.overall = overall;
  }

  /**
   * This advancer with another total deadline per {@link #advance} call.
   *
   * @param total {@code >= 0}; zero makes one attempt that does not wait for a lock
   */
  public PointerAdvancer withDeadline(Duration total) {
    return new PointerAdvancer(store, maxAttempts, baseBackoffMillis, total, nanoTime, windows, overall);
  }

  /**
   * This advancer with each {@link #advance} call also ending by {@code overall}, a command's deadline
   * over all its store work (B2): a call gets the shorter of its own deadline and the time left of
   * {@code overall} when it starts.
   */
  public PointerAdvancer within(Deadline overall) {
    return new PointerAdvancer(store, maxAttempts, baseBackoffMillis, deadline, nanoTime, windows,
        Objects.requireNonNull(overall, "overall"));
  }

  /** This advancer's total deadline per {@link #advance} call. */
  public Duration deadline() {
    return deadline;
  }

  /** For tests: the same advancer reading time from {@code ticker} (nanoseconds, as {@link System#nanoTime}). */
  PointerAdvancer withTicker(LongSupplier ticker) {
    return new PointerAdvancer(store, maxAttempts, baseBackoffMillis, deadline, ticker, windows, overall);
  }

  /** The same advancer judging "closed" by {@code windows} (its clock and allowed skew) instead of the default. */
  public PointerAdvancer withClosedWindowGuard(ClosedWindowGuard windows) {
    return new PointerAdvancer(store, maxAttempts, baseBackoffMillis, deadline, nanoTime, windows, overall);
  }

  /**
   * Advances the pipeline's pointer to {@code next} if that moves it forward.
   *
   * @throws IllegalArgumentException when the object {@code next} names is missing or has another
   *     SHA-256 or size (G1), or its window has not closed (G5); nothing is written
   * @throws IOException when the store failed; the pointer then holds either the old or the new
   *     document, whole
   */
  public AdvanceReport advance(Pointer next) throws IOException {
    ObjectInfo target = store.stat(next.key()).orElseThrow(() -> new IllegalArgumentException(
        "refusing to point at " + next.key() + ": no such object in " + store.describe()));
    return advance(next, target);
  }

  /**
   * Advances to {@code next}, given what the store just reported for the object it names (from {@code
   * stat} or {@code putIfAbsent}), so the publish path does not ask the store a second time.
   *
   * @throws IllegalArgumentException when {@code target} is another key or has another SHA-256 or size
   *     than {@code next} (G1), or the window of {@code next} has not closed (G5); nothing is written
   * @throws IOException as {@link #advance(Pointer)}
   */
  public AdvanceReport advance(Pointer next, ObjectInfo target) throws IOException {
    windows.requireClosed(new Window(next.windowStart(), next.windowLength()), "point " + next.pipeline() + " at");
    if (!target.key().equals(next.key()) || !target.sha256().equals(next.sha256()) || target.size() != next.size()) {
      throw new IllegalArgumentException("refusing to point at " + next.key() + ": stored object " + target.key()
          + " has sha256 " + target.sha256() + " size " + target.size() + ", pointer says " + next.sha256()
          + " size " + next.size());
    }
    long start = nanoTime.getAsLong();
    long end = start + shorter(deadline, overall);
    Pointer seen = null;
    CasResult last = null;
    int attempt = 0;
    while (attempt < maxAttempts && (attempt == 0 || end - nanoTime.getAsLong() > 0)) {
      attempt++;
      Optional<PointerState> current = store.readPointer(next.pipeline());
      if (current.isPresent()) {
        seen = current.get().pointer();
        int c = seen.position().compareTo(next.position());
        if (c > 0) {
          return report(AdvanceStatus.NEWER_PRESENT, next, seen, attempt - 1, start);
        }
        if (c == 0) {
          // Same position is a no-op only for the same key; another key there is keying drift, told apart
          // so it is not reported as success-as-usual.
          AdvanceStatus same = seen.key().equals(next.key())
              ? AdvanceStatus.ALREADY_CURRENT : AdvanceStatus.SAME_POSITION_OTHER_KEY;
          return report(same, next, seen, attempt - 1, start);
        }
      }
      Duration left = Duration.ofNanos(Math.max(0, end - nanoTime.getAsLong()));
      // The record of an operator's rewind rides along, so moving on from a repaired pointer keeps it visible.
      Pointer written = current.map(st -> st.pointer().rewind()).map(next::withRewind).orElse(next);
      last = store.compareAndSetPointer(next.pipeline(), current.map(PointerState::token).orElse(null), written, left);
      if (last == CasResult.SWAPPED) {
        return report(AdvanceStatus.ADVANCED, next, written, attempt, start);
      }
      if (attempt < maxAttempts) {
        backoff(attempt, end);
      }
    }
    return report(last == CasResult.BUSY ? AdvanceStatus.BUSY : AdvanceStatus.CONFLICT, next, seen, attempt, start);
  }

  /** The nanoseconds a call may take: {@code own}, or what is left of {@code overall} when that is less. */
  static long shorter(Duration own, Deadline overall) {
    return overall == null ? own.toNanos() : Math.min(own.toNanos(), Math.max(0, overall.nanosLeft()));
  }

  private AdvanceReport report(AdvanceStatus status, Pointer requested, Pointer current, int attempts, long start) {
    return new AdvanceReport(status, requested, current, attempts, Duration.ofNanos(nanoTime.getAsLong() - start));
  }

  /** Sleeps a jittered backoff, never past the deadline {@code end}. */
  private void backoff(int attempt, long end) throws IOException {
    if (baseBackoffMillis == 0) {
      return;
    }
    // Capped at 32x the base: a pointer write takes milliseconds, so contention clears fast, and an
    // uncapped doubling would make 64 attempts wait for tens of seconds.
    long ceiling = baseBackoffMillis << Math.min(attempt - 1, 5);
    long sleepNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextLong(ceiling + 1)),
        Math.max(0, end - nanoTime.getAsLong()));
    try {
      TimeUnit.NANOSECONDS.sleep(sleepNanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while backing off a pointer advance");
    }
  }
}
