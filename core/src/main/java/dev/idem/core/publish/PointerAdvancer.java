package dev.idem.core.publish;

import dev.idem.core.store.CasResult;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Moves a pipeline's {@code latest} pointer forward, never backward (G2), and never loses a concurrent
 * advance (G3).
 *
 * <p>Protocol, per attempt: read the pointer and its token; if it stands at the requested position or
 * later, stop (ALREADY_CURRENT / NEWER_PRESENT) without writing; otherwise compare-and-swap with the
 * token just read. The decision is made on the value the CAS then verifies, so a pointer moved by
 * someone else in between turns the CAS into CONFLICT, and the next attempt decides again on the new
 * value. This is what stops a slow old replica from swapping in an older generation after a new one
 * advanced (a bare CAS with a stale expectation would not). Attempts back off with full jitter.
 *
 * <p>Before the first attempt the target object is checked to exist with the pointer's SHA-256 and
 * size, so a pointer never names a missing or different object (G1).
 */
public final class PointerAdvancer {
  private final ObjectStore store;
  private final int maxAttempts;
  private final long baseBackoffMillis;

  /**
   * @param maxAttempts compare-and-swap attempts before giving up with CONTENDED, {@code >= 1}
   * @param baseBackoffMillis first backoff ceiling; doubles per attempt up to 32x (full jitter), {@code >= 0}
   */
  public PointerAdvancer(ObjectStore store, int maxAttempts, long baseBackoffMillis) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
    }
    if (baseBackoffMillis < 0) {
      throw new IllegalArgumentException("baseBackoffMillis must be >= 0, was " + baseBackoffMillis);
    }
    this.store = store;
    this.maxAttempts = maxAttempts;
    this.baseBackoffMillis = baseBackoffMillis;
  }

  public PointerAdvancer(ObjectStore store) {
    this(store, 64, 2);
  }

  /**
   * Advances the pipeline's pointer to {@code next} if that moves it forward.
   *
   * @throws IllegalArgumentException when the object {@code next} names is missing or has another
   *     SHA-256 or size (G1); nothing is written
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
   *     than {@code next} (G1); nothing is written
   * @throws IOException as {@link #advance(Pointer)}
   */
  public AdvanceReport advance(Pointer next, ObjectInfo target) throws IOException {
    if (!target.key().equals(next.key()) || !target.sha256().equals(next.sha256()) || target.size() != next.size()) {
      throw new IllegalArgumentException("refusing to point at " + next.key() + ": stored object " + target.key()
          + " has sha256 " + target.sha256() + " size " + target.size() + ", pointer says " + next.sha256()
          + " size " + next.size());
    }
    Pointer seen = null;
    for (int attempt = 1; attempt <= maxAttempts; attempt++) {
      Optional<PointerState> current = store.readPointer(next.pipeline());
      if (current.isPresent()) {
        seen = current.get().pointer();
        int c = seen.position().compareTo(next.position());
        if (c == 0) {
          return new AdvanceReport(AdvanceStatus.ALREADY_CURRENT, next, seen, attempt - 1);
        }
        if (c > 0) {
          return new AdvanceReport(AdvanceStatus.NEWER_PRESENT, next, seen, attempt - 1);
        }
      }
      CasResult r = store.compareAndSetPointer(
          next.pipeline(), current.map(PointerState::token).orElse(null), next);
      if (r == CasResult.SWAPPED) {
        return new AdvanceReport(AdvanceStatus.ADVANCED, next, next, attempt);
      }
      backoff(attempt);
    }
    return new AdvanceReport(AdvanceStatus.CONTENDED, next, seen, maxAttempts);
  }

  private void backoff(int attempt) throws IOException {
    if (baseBackoffMillis == 0) {
      Thread.yield();
      return;
    }
    // Capped at 32x the base: a pointer write takes milliseconds, so contention clears fast, and an
    // uncapped doubling would make 64 attempts wait for tens of seconds.
    long ceiling = baseBackoffMillis << Math.min(attempt - 1, 5);
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(ceiling + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while backing off a pointer advance");
    }
  }
}
