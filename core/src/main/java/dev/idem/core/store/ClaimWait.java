package dev.idem.core.store;

import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The waiting rule of a replica that finds another writer's fresh claim ({@link Claims}) on a key it
 * was about to produce: poll, bounded, until the object appears, the claim goes away or goes stale, or
 * the bound is reached. It exists so that every caller (the command line, a runner inside a JVM, the
 * fuzz and simulation models) waits by the same rule, and so the rule can be tested on a fake clock.
 *
 * <p>Each poll reads the key's claim first and then whether the object exists: a claimant publishes
 * before it releases, so a released claim read before the existence check never hides a published
 * object (the waiter skips, it does not run again).
 *
 * <ul>
 *   <li>{@link Outcome#SKIP}: the object is there; the result names the claimant last seen, if any.
 *   <li>{@link Outcome#TAKEOVER}: no object, and no fresh claim: none at all, released without an object
 *       (its writer failed or was stopped), stale (older than the ttl: its writer stopped renewing), or
 *       unreadable (a failure reading claims counts as none). The caller claims and runs.
 *   <li>{@link Outcome#WAIT_EXPIRED}: the claim was still fresh and the object still missing when the
 *       bound was reached; the caller runs anyway.
 * </ul>
 *
 * <p>Guarantee: it never sleeps past its bound. Every sleep is the poll interval or what is left of the
 * bound, whichever is shorter, and once the bound is reached it polls one last time and returns. (A
 * sleeper that oversleeps is the only way past it: the real one, {@link Thread#sleep}, oversleeps by
 * the scheduler's latency.) A store without claims has nothing to wait for: TAKEOVER at once, unless
 * the object is there. Immutable and thread-safe.
 */
public final class ClaimWait {
  private final Duration ttl;
  private final Duration bound;
  private final Duration poll;
  private final LongSupplier ticker;
  private final Sleeper sleeper;

  private ClaimWait(Duration ttl, Duration bound, Duration poll, LongSupplier ticker, Sleeper sleeper) {
    this.ttl = positive(ttl, "claim ttl");
    this.bound = Objects.requireNonNull(bound, "bound");
    if (bound.isNegative()) {
      throw new IllegalArgumentException("claim wait must be >= 0, was " + bound);
    }
    this.poll = positive(poll, "claim poll interval");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
  }

  /**
   * The rule on the system's monotonic clock, sleeping with {@link Thread#sleep}.
   *
   * @param ttl a claim older than this is stale
   * @param bound the longest the wait lasts ({@link Duration#ZERO}: look once)
   * @param poll how often the claim and the object are looked at
   */
  public static ClaimWait of(Duration ttl, Duration bound, Duration poll) {
    return new ClaimWait(ttl, bound, poll, System::nanoTime,
        d -> Thread.sleep(d.toMillis(), d.toNanosPart() % 1_000_000));
  }

  /**
   * As {@link #of(Duration, Duration, Duration)}, on {@code ticker} (nanoseconds, as {@link
   * System#nanoTime}) and {@code sleeper}: how tests run it on a fake clock.
   */
  public static ClaimWait of(Duration ttl, Duration bound, Duration poll, LongSupplier ticker, Sleeper sleeper) {
    return new ClaimWait(ttl, bound, poll, ticker, sleeper);
  }

  /**
   * Waits by the rule for {@code key}'s object in {@code store}.
   *
   * @throws IOException when the store could not say whether the object exists; nothing was written
   * @throws InterruptedException when the sleeper was interrupted (the caller is being stopped)
   */
  public Result await(ObjectStore store, String key) throws IOException, InterruptedException {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(key, "key");
    Optional<Claims> claims = store.claims();
    long start = ticker.getAsLong();
    Claim seen = null;
    while (true) {
      Optional<Claim> claim = claims.isEmpty() ? Optional.empty() : readOrNone(claims.get(), key);
      Duration waited = Duration.ofNanos(ticker.getAsLong() - start);
      if (store.exists(key)) {
        return new Result(Outcome.SKIP, claim.orElse(seen), waited);
      }
      if (claim.isEmpty() || !claim.get().isFresh(ttl)) {
        return new Result(Outcome.TAKEOVER, claim.orElse(seen), waited);
      }
      seen = claim.get();
      if (waited.compareTo(bound) >= 0) {
        return new Result(Outcome.WAIT_EXPIRED, seen, waited);
      }
      Duration left = bound.minus(waited);
      sleeper.sleep(left.compareTo(poll) < 0 ? left : poll);
    }
  }

  /** The key's claim, or none when claims cannot be read: unreadable advice costs duplicated work only. */
  private static Optional<Claim> readOrNone(Claims claims, String key) {
    try {
      return claims.readClaim(key);
    } catch (IOException unreadable) {
      return Optional.empty();
    }
  }

  private static Duration positive(Duration d, String what) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be > 0, was " + d);
    }
    return d;
  }

  /** How the wait ended. */
  public enum Outcome {
    /** The object is there: the caller reports SKIPPED, naming the claimant. */
    SKIP,
    /** No fresh claim and no object: the caller claims and runs. */
    TAKEOVER,
    /** The bound was reached with the claim still fresh: the caller runs anyway. */
    WAIT_EXPIRED
  }

  /**
   * How a wait ended.
   *
   * @param outcome what the caller does next
   * @param claimant the claim last seen (for SKIP, whose object it most likely is; for TAKEOVER, the
   *     stale claim taken over), or {@code null} when none was seen
   * @param waited how long the wait lasted, by the ticker
   */
  public record Result(Outcome outcome, Claim claimant, Duration waited) {
    public Result {
      Objects.requireNonNull(outcome, "outcome");
      Objects.requireNonNull(waited, "waited");
    }

    /** The claim last seen, when one was. */
    public Optional<Claim> lastClaim() {
      return Optional.ofNullable(claimant);
    }
  }

  /** Sleeps for a duration; the seam through which tests advance a fake clock instead. */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(Duration d) throws InterruptedException;
  }
}
