package dev.idem.core.publish;

import dev.idem.core.store.ClaimWait;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * How a {@link Publisher} uses the store's advisory claims ({@link dev.idem.core.store.Claims}) to
 * avoid running a task that another replica is already running: claim the key before the task runs,
 * renew the claim every {@link #heartbeat()} while it runs, release it when done; a replica that finds
 * a fresh claim waits up to {@link #waitAtMost()} for the claimant's object, looking every {@link
 * #poll()}.
 *
 * <p>Claims are advice: whatever a policy says, publishing stays create-only and the pointer
 * monotonic, so a policy can only change how much work is duplicated and how long a replica waits,
 * never what is published. {@link #off()} turns claims off (every replica runs, as before claims).
 *
 * <p>Defaults ({@link #defaults()}): ttl {@value #DEFAULT_TTL_SECONDS} s, a heartbeat every third of
 * the ttl, a wait of at most {@value #DEFAULT_WAIT_SECONDS} s, a look every {@value
 * #DEFAULT_POLL_SECONDS} s, no expected duration. A ttl well above the heartbeat leaves room for a
 * slow renewal and the stores' clock allowances; the wait bound is what a replica loses, at worst, to
 * a claimant that hangs while renewing. Immutable.
 */
public final class ClaimPolicy {
  static final long DEFAULT_TTL_SECONDS = 60;
  static final long DEFAULT_WAIT_SECONDS = 600;
  static final long DEFAULT_POLL_SECONDS = 5;

  private static final ClaimPolicy OFF = new ClaimPolicy(false, Duration.ofSeconds(DEFAULT_TTL_SECONDS), null,
      Duration.ofSeconds(DEFAULT_WAIT_SECONDS), Duration.ofSeconds(DEFAULT_POLL_SECONDS), null, null, null);

  private final boolean enabled;
  private final Duration ttl;
  /** {@code null}: a third of the ttl. */
  private final Duration heartbeat;
  private final Duration waitAtMost;
  private final Duration poll;
  private final Duration expected;
  /** {@code null}: the system's monotonic clock and {@link Thread#sleep}. */
  private final LongSupplier ticker;
  private final ClaimWait.Sleeper sleeper;

  private ClaimPolicy(boolean enabled, Duration ttl, Duration heartbeat, Duration waitAtMost, Duration poll,
      Duration expected, LongSupplier ticker, ClaimWait.Sleeper sleeper) {
    this.enabled = enabled;
    this.ttl = ttl;
    this.heartbeat = heartbeat;
    this.waitAtMost = waitAtMost;
    this.poll = poll;
    this.expected = expected;
    this.ticker = ticker;
    this.sleeper = sleeper;
    if (heartbeat != null && heartbeat.compareTo(ttl) >= 0) {
      throw new IllegalArgumentException("claim heartbeat (" + heartbeat + ") must be shorter than the claim ttl ("
          + ttl + "), or the claim goes stale between renewals");
    }
  }

  /** Claims on, with the defaults in the class comment. */
  public static ClaimPolicy defaults() {
    return OFF.enabled(true);
  }

  /** Claims off: no claim is read or written, every replica runs its task. */
  public static ClaimPolicy off() {
    return OFF;
  }

  private ClaimPolicy enabled(boolean on) {
    return new ClaimPolicy(on, ttl, heartbeat, waitAtMost, poll, expected, ticker, sleeper);
  }

  /** A claim not renewed for {@code ttl} is stale: its writer is taken to have died, and is taken over. */
  public ClaimPolicy ttl(Duration ttl) {
    return new ClaimPolicy(enabled, positive(ttl, "claim ttl"), heartbeat, waitAtMost, poll, expected, ticker,
        sleeper);
  }

  /** Renews a held claim every {@code interval} while the task runs; shorter than the ttl. */
  public ClaimPolicy heartbeat(Duration interval) {
    return new ClaimPolicy(enabled, ttl, positive(interval, "claim heartbeat"), waitAtMost, poll, expected, ticker,
        sleeper);
  }

  /**
   * Waits at most {@code bound} for a claimant's object before running anyway. {@link Duration#ZERO}
   * looks once: the object there is a skip, a stale claim is taken over, a fresh one is run beside.
   */
  public ClaimPolicy waitAtMost(Duration bound) {
    Objects.requireNonNull(bound, "claim wait");
    if (bound.isNegative()) {
      throw new IllegalArgumentException("claim wait must be >= 0, was " + bound);
    }
    return new ClaimPolicy(enabled, ttl, heartbeat, bound, poll, expected, ticker, sleeper);
  }

  /** While waiting, looks at the claim and the object every {@code interval}. */
  public ClaimPolicy poll(Duration interval) {
    return new ClaimPolicy(enabled, ttl, heartbeat, waitAtMost, positive(interval, "claim poll interval"), expected,
        ticker, sleeper);
  }

  /** Tells waiters how long the task is expected to take (written in the claim; {@code null}: unknown). */
  public ClaimPolicy expected(Duration duration) {
    if (duration != null && duration.isNegative()) {
      throw new IllegalArgumentException("expected duration must be >= 0, was " + duration);
    }
    return new ClaimPolicy(enabled, ttl, heartbeat, waitAtMost, poll, duration, ticker, sleeper);
  }

  /**
   * Waits on {@code ticker} (nanoseconds, as {@link System#nanoTime}) with {@code sleeper} instead of the
   * system's clock and {@link Thread#sleep}: how a test runs a waiting replica on a fake clock. The
   * heartbeat keeps real time.
   */
  public ClaimPolicy waitingOn(LongSupplier ticker, ClaimWait.Sleeper sleeper) {
    return new ClaimPolicy(enabled, ttl, heartbeat, waitAtMost, poll, expected, Objects.requireNonNull(ticker, "ticker"),
        Objects.requireNonNull(sleeper, "sleeper"));
  }

  public boolean enabled() {
    return enabled;
  }

  public Duration ttl() {
    return ttl;
  }

  public Duration heartbeat() {
    return heartbeat != null ? heartbeat : ttl.dividedBy(3);
  }

  public Duration waitAtMost() {
    return waitAtMost;
  }

  public Duration poll() {
    return poll;
  }

  /** The expected duration written in the claim, or {@code null} when unknown. */
  public Duration expected() {
    return expected;
  }

  /** The waiting rule for what is left of the bound. */
  ClaimWait waitRule(Duration bound) {
    return ticker == null ? ClaimWait.of(ttl, bound, poll) : ClaimWait.of(ttl, bound, poll, ticker, sleeper);
  }

  /** Nanoseconds on the policy's clock, the one its waits are measured by. */
  long nanoTime() {
    return ticker == null ? System.nanoTime() : ticker.getAsLong();
  }

  private static Duration positive(Duration d, String what) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be > 0, was " + d);
    }
    return d;
  }

  @Override
  public String toString() {
    return !enabled ? "claims off"
        : "claims ttl=" + ttl + " heartbeat=" + heartbeat() + " wait=" + waitAtMost + " poll=" + poll
            + (expected != null ? " expected=" + expected : "");
  }
}
