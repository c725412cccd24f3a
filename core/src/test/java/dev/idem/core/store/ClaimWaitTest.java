package dev.idem.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The waiting rule on a fake clock: the sleeper advances the clock and plays the claimant's scheduled
 * acts (renew, publish, release, die), so no test sleeps and every outcome is decided by the rule alone.
 */
class ClaimWaitTest {
  private static final String KEY = "orders/1726000000/state-3f2a";
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final Duration POLL = Duration.ofSeconds(5);

  /** A claimant on a fake clock: what it does at which second, and the claim a reader sees meanwhile. */
  private final class World {
    final InMemoryObjectStore objects = new InMemoryObjectStore();
    final TreeMap<Long, List<Runnable>> acts = new TreeMap<>();
    /** Acts played just before a reader's claim lookup: between two of the waiter's looks in one poll. */
    final TreeMap<Long, List<Runnable>> actsAtRead = new TreeMap<>();
    final List<Duration> sleeps = new ArrayList<>();
    long nanos = 1_000_000_000L; // any origin: only differences count
    Claim claim;
    /** When the claim was last written, in ticker nanoseconds. */
    long renewedAt;
    boolean claimsUnreadable;

    World claimedAgo(Duration ago) {
      renewedAt = nanos - ago.toNanos();
      claim = new Claim(KEY, "claim.0", "host-a:1", Instant.EPOCH, Duration.ofMinutes(2), Duration.ZERO);
      return this;
    }

    World at(long second, Runnable act) {
      acts.computeIfAbsent(second, s -> new ArrayList<>()).add(act);
      return this;
    }

    World atRead(long second, Runnable act) {
      actsAtRead.computeIfAbsent(second, s -> new ArrayList<>()).add(act);
      return this;
    }

    void renew() {
      renewedAt = nanos;
    }

    void publish() {
      try {
        objects.putIfAbsent(KEY, Payload.ofBytes("state".getBytes(StandardCharsets.UTF_8)), "host-a:1");
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    }

    void release() {
      claim = null;
    }

    long start = nanos;

    void sleep(Duration d) {
      sleeps.add(d);
      nanos += d.toNanos();
      play(acts);
    }

    void play(TreeMap<Long, List<Runnable>> due) {
      long second = (nanos - start) / 1_000_000_000L;
      while (!due.isEmpty() && due.firstKey() <= second) {
        due.pollFirstEntry().getValue().forEach(Runnable::run);
      }
    }

    ObjectStore store() {
      Claims claims = new Claims() {
        @Override public Claims.Claimed claim(String key, String writer, Duration expected, Duration ttl) {
          throw new AssertionError("a waiter never claims");
        }

        @Override public Claim renewClaim(Claim held) {
          throw new AssertionError("a waiter never renews");
        }

        @Override public boolean releaseClaim(Claim c) {
          throw new AssertionError("a waiter never releases");
        }

        @Override public Optional<Claim> readClaim(String key) throws IOException {
          play(actsAtRead);
          if (claimsUnreadable) {
            throw new IOException("claims unreadable");
          }
          return claim == null || !key.equals(KEY) ? Optional.empty()
              : Optional.of(new Claim(KEY, claim.id(), claim.writer(), claim.started(), claim.expected(),
                  Duration.ofNanos(nanos - renewedAt)));
        }

        @Override public List<Claim> listClaims(String prefix) {
          throw new AssertionError("a waiter reads one key");
        }
      };
      return new ForwardingObjectStore(objects) {
        @Override public Optional<Claims> claims() {
          return Optional.of(claims);
        }
      };
    }

    ClaimWait rule(Duration bound) {
      return ClaimWait.of(TTL, bound, POLL, () -> nanos, this::sleep);
    }

    Duration slept() {
      return sleeps.stream().reduce(Duration.ZERO, Duration::plus);
    }
  }

  @Test
  void await_objectAppearsWhileClaimRenewed_skipNamingClaimant() throws Exception {
    World w = new World().claimedAgo(Duration.ofSeconds(1));
    w.at(10, w::renew).at(20, w::publish);
    ClaimWait.Result r = w.rule(Duration.ofMinutes(5)).await(w.store(), KEY);
    assertEquals(ClaimWait.Outcome.SKIP, r.outcome());
    assertEquals("host-a:1", r.claimant().writer());
    assertEquals(Duration.ofSeconds(20), r.waited());
  }

  @Test
  void await_claimantPublishesAndReleasesWithinOnePoll_skipNotTakeover() throws Exception {
    World w = new World().claimedAgo(Duration.ZERO);
    w.atRead(7, () -> {
      w.publish();
      w.release();
    });
    ClaimWait.Result r = w.rule(Duration.ofMinutes(5)).await(w.store(), KEY);
    assertEquals(ClaimWait.Outcome.SKIP, r.outcome());
    assertEquals("host-a:1", r.claimant().writer(), "the claimant seen before it released");
    assertEquals(Duration.ofSeconds(10), r.waited());
  }

  @Test
  void await_claimReleasedWithoutObject_takeover() throws Exception {
    World w = new World().claimedAgo(Duration.ZERO);
    w.at(12, w::release);
    ClaimWait.Result r = w.rule(Duration.ofMinutes(5)).await(w.store(), KEY);
    assertEquals(ClaimWait.Outcome.TAKEOVER, r.outcome());
    assertEquals(Duration.ofSeconds(15), r.waited());
  }

  @Test
  void await_claimantStopsRenewing_takeoverOnceOlderThanTtl() throws Exception {
    World w = new World().claimedAgo(Duration.ofSeconds(12));
    ClaimWait.Result r = w.rule(Duration.ofMinutes(5)).await(w.store(), KEY);
    assertEquals(ClaimWait.Outcome.TAKEOVER, r.outcome());
    assertEquals(Duration.ofSeconds(20), r.waited(), "12 s old at the start, 32 s old at the fifth poll");
    assertTrue(r.claimant().age().compareTo(TTL) >= 0);
  }

  @Test
  void await_claimAlreadyStale_takeoverWithoutSleeping() throws Exception {
    World w = new World().claimedAgo(TTL);
    ClaimWait.Result r = w.rule(Duration.ofMinutes(5)).await(w.store(), KEY);
    assertEquals(ClaimWait.Outcome.TAKEOVER, r.outcome());
    assertEquals(List.of(), w.sleeps);
  }

  @Test
  void await_claimRenewedForever_waitExpiredAtBoundNeverPast() throws Exception {
    World w = new World().claimedAgo(Duration.ZERO);
    for (long s = 1; s < 600; s++) {
      w.at(s, w::renew);
    }
    Duration bound = Duration.ofSeconds(23); // not a multiple of the poll: the last sleep is shortened
    ClaimWait.Result r = w.rule(bound).await(w.store(), KEY);
    assertEquals(ClaimWait.Outcome.WAIT_EXPIRED, r.outcome());
    assertEquals(bound, w.slept());
    assertEquals(bound, r.waited());
    assertEquals(Duration.ofSeconds(3), w.sleeps.get(w.sleeps.size() - 1));
    assertTrue(w.sleeps.stream().allMatch(d -> d.compareTo(POLL) <= 0), w.sleeps.toString());
  }

  @Test
  void await_zeroBound_looksOnceWithoutSleeping() throws Exception {
    World w = new World().claimedAgo(Duration.ZERO);
    ClaimWait.Result r = w.rule(Duration.ZERO).await(w.store(), KEY);
    assertEquals(ClaimWait.Outcome.WAIT_EXPIRED, r.outcome());
    assertEquals(List.of(), w.sleeps);
  }

  @Test
  void await_objectAtBound_skipRatherThanExpired() throws Exception {
    World w = new World().claimedAgo(Duration.ZERO);
    w.at(10, w::publish);
    ClaimWait.Result r = w.rule(Duration.ofSeconds(10)).await(w.store(), KEY);
    assertEquals(ClaimWait.Outcome.SKIP, r.outcome());
  }

  @Test
  void await_noClaim_takeoverAtOnce() throws Exception {
    World w = new World();
    ClaimWait.Result r = w.rule(Duration.ofMinutes(5)).await(w.store(), KEY);
    assertEquals(ClaimWait.Outcome.TAKEOVER, r.outcome());
    assertNull(r.claimant());
  }

  @Test
  void await_claimsUnreadable_takeoverAsIfNone() throws Exception {
    World w = new World().claimedAgo(Duration.ZERO);
    w.claimsUnreadable = true;
    ClaimWait.Result r = w.rule(Duration.ofMinutes(5)).await(w.store(), KEY);
    assertEquals(ClaimWait.Outcome.TAKEOVER, r.outcome());
    assertEquals(List.of(), w.sleeps);
  }

  @Test
  void await_storeWithoutClaims_takeoverOrSkip() throws Exception {
    World w = new World();
    ObjectStore none = ForwardingObjectStore.without(w.objects, ForwardingObjectStore.Capability.CLAIMS);
    assertEquals(ClaimWait.Outcome.TAKEOVER, w.rule(Duration.ofMinutes(5)).await(none, KEY).outcome());
    w.publish();
    assertEquals(ClaimWait.Outcome.SKIP, w.rule(Duration.ofMinutes(5)).await(none, KEY).outcome());
    assertEquals(List.of(), w.sleeps);
  }

  @Test
  void of_badDurations_refused() {
    assertThrows(IllegalArgumentException.class, () -> ClaimWait.of(Duration.ZERO, Duration.ZERO, POLL));
    assertThrows(IllegalArgumentException.class, () -> ClaimWait.of(TTL, Duration.ofSeconds(-1), POLL));
    assertThrows(IllegalArgumentException.class, () -> ClaimWait.of(TTL, Duration.ZERO, Duration.ZERO));
  }
}
