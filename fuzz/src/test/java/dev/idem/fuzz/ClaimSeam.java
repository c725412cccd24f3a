package dev.idem.fuzz;

import dev.idem.core.publish.ClaimReport;
import dev.idem.core.store.Claim;
import dev.idem.core.store.Claims;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.testing.ForwardingObjectStore;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * One replica's view of its store's advisory claims: injects its {@link ClaimFate} at the {@link Claims}
 * interface (the same on every store), and measures how long the replica waited for another writer's
 * claim, on this JVM's monotonic clock, for the bound check ({@link InvariantChecker}).
 *
 * <p>The wait is measured from the moment a claim call first answered TAKEN (another writer's fresh
 * claim) to the moment the replica stopped waiting: its task started, it read the object it skips for
 * ({@code stat}, which the publisher calls only once a wait ends in the object), or its publish call
 * returned. Injected claim delays after that moment are counted apart, as the replica's own.
 *
 * <p>A replica thread that dies ({@link Fate.Death#THREAD_DEATH}) stands for a killed process: from then
 * on its heartbeat's renewals and its release reach nothing, so its claim is left fresh and goes stale,
 * as a killed replica's does.
 */
final class ClaimSeam extends ForwardingObjectStore {
  private static final AtomicInteger DROPPED_IDS = new AtomicInteger();

  private final ClaimFate fate;
  private final BooleanSupplier dead;
  private final Optional<Claims> claims;
  private long firstTaken = -1;
  private long waitEnd = -1;
  private long delayAfterTaken;

  ClaimSeam(ObjectStore delegate, ClaimFate fate, BooleanSupplier dead) {
    super(delegate);
    this.fate = fate;
    this.dead = dead;
    this.claims = delegate.claims().map(Faulty::new);
  }

  @Override
  public Optional<Claims> claims() {
    return claims;
  }

  @Override
  public Optional<ObjectInfo> stat(String key) throws IOException {
    waitEnded(System.nanoTime());
    return super.stat(key);
  }

  /** Starts measuring a new publish call. */
  synchronized void beginAttempt() {
    firstTaken = -1;
    waitEnd = -1;
    delayAfterTaken = 0;
  }

  /** The replica stopped waiting (if it was): its task started, or it read the object it skips for. */
  synchronized void waitEnded(long nanos) {
    if (firstTaken >= 0 && waitEnd < 0) {
      waitEnd = nanos;
    }
  }

  private synchronized void taken() {
    if (firstTaken < 0) {
      firstTaken = System.nanoTime();
    }
  }

  /**
   * What this publish call did with claims: {@code report} is the publish's claim report ({@code null}
   * for one published at the first look), {@code reported} whether the call returned a report at all.
   */
  synchronized Attempt.ClaimSeen seen(boolean reported, ClaimReport report, long returnNanos) {
    long wait = firstTaken < 0 ? -1 : ((waitEnd >= 0 ? waitEnd : returnNanos) - firstTaken) / 1_000_000;
    String status = !reported ? null : report == null ? Attempt.ClaimSeen.NONE : report.status().name();
    String claimant = report == null ? null : report.lastClaimant().map(Claim::writer).orElse(null);
    return new Attempt.ClaimSeen(status, claimant, report == null ? -1 : report.waited().toMillis(), wait,
        delayAfterTaken / 1_000_000);
  }

  private void delay(int millis) throws IOException {
    long t0 = System.nanoTime();
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted in an injected claim delay");
    } finally {
      synchronized (this) {
        if (firstTaken >= 0) {
          delayAfterTaken += System.nanoTime() - t0;
        }
      }
    }
  }

  private boolean is(ClaimFate.Kind kind) {
    return fate.kind() == kind;
  }

  /** A claim seen through this replica's clock ({@link ClaimFate.Kind#SKEWED}). */
  private Claim skewed(Claim c) {
    if (c == null || !is(ClaimFate.Kind.SKEWED)) {
      return c;
    }
    Duration age = c.age().plusMillis(fate.millis());
    return new Claim(c.key(), c.id(), c.writer(), c.started(), c.expected(), age.isNegative() ? Duration.ZERO : age);
  }

  /** The ttl that makes the store judge ages as this replica's clock does: fresh when age + skew < ttl. */
  private Duration skewedTtl(Duration ttl) {
    if (!is(ClaimFate.Kind.SKEWED)) {
      return ttl;
    }
    Duration t = ttl.minusMillis(fate.millis());
    return t.isNegative() || t.isZero() ? Duration.ofNanos(1) : t;
  }

  private final class Faulty implements Claims {
    private final Claims c;

    Faulty(Claims c) {
      this.c = c;
    }

    @Override
    public Claimed claim(String key, String writer, Duration expected, Duration ttl) throws IOException {
      if (is(ClaimFate.Kind.CLAIM_DELAYED)) {
        delay(fate.millis());
      }
      if (is(ClaimFate.Kind.CLAIM_FAILS)) {
        throw new IOException("injected: the claim write failed");
      }
      Claimed r;
      if (is(ClaimFate.Kind.DROPPED)) {
        Optional<Claim> other = c.readClaim(key).filter(x -> x.isFresh(ttl));
        r = other.isPresent() ? new Claimed(Result.TAKEN, other.get())
            : new Claimed(Result.HELD, new Claim(key, "dropped." + DROPPED_IDS.incrementAndGet(), writer, Instant.now(),
                expected, Duration.ZERO));
      } else {
        r = c.claim(key, writer, expected, skewedTtl(ttl));
      }
      if (is(ClaimFate.Kind.CLAIM_REPLY_LOST)) {
        throw new IOException("injected: the claim was written but its reply was lost");
      }
      if (r.result() == Result.TAKEN) {
        taken();
        return new Claimed(Result.TAKEN, skewed(r.claim()));
      }
      if (is(ClaimFate.Kind.DELETED_UNDER_IT)) {
        Claim held = r.claim();
        Thread deleter = new Thread(() -> {
          try {
            Thread.sleep(fate.millis());
            c.releaseClaim(held);
          } catch (IOException | InterruptedException ignored) {
            // The deletion is the fault; one that did not happen is the plain case.
          }
        }, "claim-deleter " + writer);
        deleter.setDaemon(true);
        deleter.start();
      }
      return new Claimed(Result.HELD, r.claim(), skewed(r.stale()));
    }

    @Override
    public Claim renewClaim(Claim held) throws IOException {
      if (dead.getAsBoolean()) {
        throw new IOException("its replica is dead: nothing renews its claim");
      }
      if (is(ClaimFate.Kind.RENEWALS_FAIL)) {
        throw new IOException("injected: the renewal failed");
      }
      if (is(ClaimFate.Kind.RENEWALS_DELAYED)) {
        delay(fate.millis());
      }
      if (is(ClaimFate.Kind.DROPPED)) {
        return held.renewedAs("dropped." + DROPPED_IDS.incrementAndGet());
      }
      return c.renewClaim(held);
    }

    @Override
    public boolean releaseClaim(Claim claim) throws IOException {
      if (dead.getAsBoolean() || is(ClaimFate.Kind.DROPPED)) {
        return false;
      }
      if (is(ClaimFate.Kind.RELEASE_FAILS)) {
        throw new IOException("injected: the release failed");
      }
      return c.releaseClaim(claim);
    }

    @Override
    public Optional<Claim> readClaim(String key) throws IOException {
      if (is(ClaimFate.Kind.CLAIM_DELAYED)) {
        delay(fate.millis());
      }
      if (is(ClaimFate.Kind.READ_FAILS)) {
        throw new IOException("injected: claims cannot be read");
      }
      return c.readClaim(key).map(ClaimSeam.this::skewed);
    }

    @Override
    public List<Claim> listClaims(String prefix) throws IOException {
      return c.listClaims(prefix);
    }
  }
}
