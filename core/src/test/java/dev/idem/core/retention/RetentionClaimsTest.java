package dev.idem.core.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.retention.RetirementTest.MovableClock;
import dev.idem.core.store.Claim;
import dev.idem.core.store.Claims;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.ForwardingObjectStore.Capability;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * gc's removal of stale claims, on the in-memory store whose claims age by a clock the test moves:
 * stale by the policy's ttl is removed (or, dry, listed), fresh is never, other pipelines' claims are
 * left, and a store without claims is skipped and says so.
 */
class RetentionClaimsTest {
  private static final long DAY = 86_400;
  private static final Duration TTL = Duration.ofSeconds(60);
  private final MovableClock clock = new MovableClock(Instant.ofEpochSecond(100 * DAY));
  private final InMemoryObjectStore store = new InMemoryObjectStore(clock);

  private static String key(String pipeline, long day) {
    return RunSpec.of(pipeline, new Window(day * DAY, DAY), 1).outputKey().toString();
  }

  private Claim claim(String key, String writer) throws IOException {
    Claims.Claimed c = store.claim(key, writer, null, TTL);
    assertEquals(Claims.Result.HELD, c.result());
    return c.claim();
  }

  private void advance(Duration d) {
    clock.at.set(clock.at.get().plus(d));
  }

  private Retention.Report gc(ObjectStore s, boolean dryRun, Duration claimTtl) throws IOException {
    return new Retention(s, clock, "idem test").run("daily",
        new Retention.Policy(1, null, Duration.ofMinutes(10), dryRun, false, claimTtl));
  }

  private List<String> claimKeys() throws IOException {
    return store.listClaims("").stream().map(Claim::key).toList();
  }

  @Test
  void run_staleAndFreshClaims_removesOnlyTheStale() throws IOException {
    Claim dead = claim(key("daily", 90), "host-a:1");
    advance(Duration.ofSeconds(61));
    Claim live = claim(key("daily", 91), "host-b:2");
    advance(Duration.ofSeconds(59));

    Retention.Report r = gc(store, false, TTL);

    assertEquals(List.of(dead.id()), r.claimsRemoved().stream().map(Claim::id).toList());
    assertEquals("host-a:1", r.claimsRemoved().get(0).writer());
    assertEquals(Duration.ofSeconds(120), r.claimsRemoved().get(0).age(), "the age it was judged stale by");
    assertEquals(List.of(live.key()), claimKeys(), "59 s old by a 60 s ttl: fresh, never removed");
    assertEquals(List.of(), r.skipped());
  }

  @Test
  void run_claimExactlyTtlOld_isStale() throws IOException {
    claim(key("daily", 90), "host-a:1");
    advance(TTL);
    assertEquals(1, gc(store, false, TTL).claimsRemoved().size(), "fresh means younger than the ttl");
    assertEquals(List.of(), claimKeys());
  }

  @Test
  void run_dryRun_listsStaleClaimsRemovesNone() throws IOException {
    Claim dead = claim(key("daily", 90), "host-a:1");
    advance(Duration.ofMinutes(5));

    Retention.Report r = gc(store, true, TTL);

    assertEquals(List.of(dead.id()), r.claimsRemoved().stream().map(Claim::id).toList());
    assertEquals(List.of(dead.key()), claimKeys(), "a dry run removes nothing");
  }

  @Test
  void run_longerClaimTtl_keepsWhatTheDefaultWouldRemove() throws IOException {
    claim(key("daily", 90), "host-a:1");
    advance(Duration.ofMinutes(5));

    assertEquals(List.of(), gc(store, false, Duration.ofMinutes(10)).claimsRemoved());
    assertEquals(1, claimKeys().size());
    assertEquals(1, gc(store, false, Retention.Policy.DEFAULT_CLAIM_TTL).claimsRemoved().size());
  }

  @Test
  void run_staleClaimsOfAnotherPipeline_left() throws IOException {
    claim(key("daily", 90), "host-a:1");
    Claim other = claim(key("daily2", 90), "host-a:1");
    claim(key("hourly", 90), "host-a:1");
    advance(Duration.ofHours(1));

    Retention.Report r = gc(store, false, TTL);

    assertEquals(List.of(key("daily", 90)), r.claimsRemoved().stream().map(Claim::key).toList());
    assertEquals(List.of(other.key(), key("hourly", 90)), claimKeys(), "only the named pipeline's claims");
  }

  @Test
  void run_severalEntriesOnOneKey_removesTheStaleKeepsTheFresh() throws IOException {
    String k = key("daily", 90);
    claim(k, "host-a:1");
    advance(Duration.ofMinutes(2));
    Claims.Claimed takeover = store.claim(k, "host-b:2", null, TTL);
    assertEquals(Claims.Result.HELD, takeover.result(), "the stale claim is taken over beside it");

    Retention.Report r = gc(store, false, TTL);

    assertEquals(List.of("host-a:1"), r.claimsRemoved().stream().map(Claim::writer).toList());
    assertEquals(takeover.claim().id(), store.readClaim(k).orElseThrow().id());
    assertEquals(1, store.listClaims(k).size());
  }

  @Test
  void run_renewedAfterItWasListed_theNewEntryStays() throws IOException {
    String k = key("daily", 90);
    Claim slow = claim(k, "host-a:1");
    advance(Duration.ofMinutes(2));
    Claim[] renewed = new Claim[1];
    // The holder renews between gc's listing and its removal: gc removes the entry it judged stale,
    // which the renewal replaced; the renewed entry is a new one, fresh, and stays.
    Claims renewing = new Claims() {
      @Override
      public Claimed claim(String key, String writer, Duration expected, Duration ttl) throws IOException {
        return store.claim(key, writer, expected, ttl);
      }

      @Override
      public Claim renewClaim(Claim held) throws IOException {
        return store.renewClaim(held);
      }

      @Override
      public boolean releaseClaim(Claim c) throws IOException {
        if (renewed[0] == null) {
          renewed[0] = store.renewClaim(slow);
        }
        return store.releaseClaim(c);
      }

      @Override
      public Optional<Claim> readClaim(String key) throws IOException {
        return store.readClaim(key);
      }

      @Override
      public List<Claim> listClaims(String prefix) throws IOException {
        return store.listClaims(prefix);
      }
    };
    ObjectStore racing = new ForwardingObjectStore(store) {
      @Override
      public Optional<Claims> claims() {
        return Optional.of(renewing);
      }
    };

    Retention.Report r = gc(racing, false, TTL);

    assertEquals(List.of(), r.claimsRemoved(), "the stale entry was already gone: nothing removed");
    Claim now = store.readClaim(k).orElseThrow();
    assertEquals(renewed[0].id(), now.id());
    assertTrue(now.isFresh(TTL));
  }

  @Test
  void run_storeWithoutClaims_skipsAndSaysSo() throws IOException {
    ObjectStore without = ForwardingObjectStore.without(store, Capability.CLAIMS);
    claim(key("daily", 90), "host-a:1");
    advance(Duration.ofHours(1));

    Retention.Report r = gc(without, false, TTL);

    assertEquals(List.of(), r.claimsRemoved());
    assertEquals(List.of("memory: keeps no claims: none to remove"), r.skipped());
    assertFalse(claimKeys().isEmpty(), "nothing removed behind the store's back");
  }

  @Test
  void policy_claimTtlNotPositive_refused() {
    assertThrows(IllegalArgumentException.class,
        () -> new Retention.Policy(1, null, Duration.ZERO, false, false, Duration.ZERO));
    assertThrows(IllegalArgumentException.class,
        () -> new Retention.Policy(1, null, Duration.ZERO, false, false, Duration.ofSeconds(-1)));
    assertEquals(Duration.ofSeconds(60), new Retention.Policy(1, null, Duration.ZERO, false).claimTtl());
  }
}
