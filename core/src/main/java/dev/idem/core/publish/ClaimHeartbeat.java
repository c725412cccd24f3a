package dev.idem.core.publish;

import dev.idem.core.store.Claim;
import dev.idem.core.store.Claims;
import java.io.IOException;
import java.time.Duration;

/**
 * Keeps a held claim fresh while a task runs, and removes it when the task is done. A daemon thread
 * renews the claim every heartbeat interval; {@link #close()} stops it and releases the claim as last
 * renewed.
 *
 * <p>Guarantees: at most one renewal is in flight, and none starts after {@link #close()} returns; a
 * renewal that was in flight when close gave up waiting for it releases its own new entry when it
 * completes, so no entry of this writer outlives the run except one whose write or release failed (it
 * goes stale, which costs a waiter at most a ttl). A renewal that fails is counted and tried again at
 * the next beat: a claim is advice, and the task is never stopped for it.
 */
final class ClaimHeartbeat implements AutoCloseable {
  /** How long close waits for a renewal in flight before leaving that renewal to clean up after itself. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

  private final Claims claims;
  private final Duration interval;
  private final Thread thread;
  private Claim current;
  private boolean closed;
  private int renewals;
  private int failures;

  private ClaimHeartbeat(Claims claims, Claim held, Duration interval) {
    this.claims = claims;
    this.current = held;
    this.interval = interval;
    this.thread = new Thread(this::beat, "idem-claim-heartbeat " + held.key());
    this.thread.setDaemon(true);
  }

  /** Starts renewing {@code held} every {@code interval}. */
  static ClaimHeartbeat start(Claims claims, Claim held, Duration interval) {
    ClaimHeartbeat heartbeat = new ClaimHeartbeat(claims, held, interval);
    heartbeat.thread.start();
    return heartbeat;
  }

  private void beat() {
    while (true) {
      Claim renewing;
      synchronized (this) {
        long deadline = System.nanoTime() + interval.toNanos();
        long left;
        while (!closed && (left = deadline - System.nanoTime()) > 0) {
          try {
            wait(left / 1_000_000, (int) (left % 1_000_000));
          } catch (InterruptedException e) {
            // Only close interrupts; it set closed first.
          }
        }
        if (closed) {
          return;
        }
        renewing = current;
      }
      Claim renewed = null;
      try {
        renewed = claims.renewClaim(renewing);
      } catch (IOException | RuntimeException e) {
        // Advice: the claim ages and a waiter may run beside; the next beat tries again.
      }
      boolean releaseRenewed;
      synchronized (this) {
        if (renewed == null) {
          failures++;
          continue;
        }
        renewals++;
        current = renewed;
        releaseRenewed = closed;
      }
      if (releaseRenewed) {
        release(renewed);
        return;
      }
    }
  }

  /** Renewals done so far. */
  synchronized int renewals() {
    return renewals;
  }

  /** Renewals failed so far. */
  synchronized int failures() {
    return failures;
  }

  /** Stops renewing and releases the claim. Never throws: a claim left behind goes stale. */
  @Override
  public void close() {
    Claim last;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      notifyAll();
    }
    boolean interrupted = false;
    try {
      thread.join(CLOSE_WAIT.toMillis());
    } catch (InterruptedException e) {
      interrupted = true;
    }
    synchronized (this) {
      // A renewal still in flight releases the entry it writes (see beat); this releases the last one known.
      last = current;
    }
    release(last);
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void release(Claim claim) {
    try {
      claims.releaseClaim(claim);
    } catch (IOException | RuntimeException e) {
      // Left behind: it goes stale and gc removes it.
    }
  }
}
