package dev.idem.core.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.Claim;
import dev.idem.core.store.Claims;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.ForwardingObjectStore.Capability;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The scan's report of the claims under its prefix, on the in-memory store whose claims age by a clock
 * the test moves: held and stale by the scan's ttl, one listing per scan, never part of the verdict, and
 * a store without claims, or whose claims cannot be listed, scanned as before.
 */
class ScanClaimsTest {
  private static final Duration TTL = Duration.ofSeconds(60);
  private final Instant[] now = {Instant.parse("2024-09-10T00:00:00Z")};
  private final InMemoryObjectStore memory = new InMemoryObjectStore(new Clock() {
    @Override public ZoneId getZone() { return ZoneOffset.UTC; }
    @Override public Clock withZone(ZoneId zone) { return this; }
    @Override public Instant instant() { return now[0]; }
  });

  private static String key(String pipeline, long day) {
    return RunSpec.of(pipeline, new Window(day * 86_400, 86_400), 1).outputKey().toString();
  }

  private void advance(Duration d) {
    now[0] = now[0].plus(d);
  }

  private void publish(String key, String text) throws IOException {
    memory.putIfAbsent(key, Payload.ofBytes(text.getBytes(StandardCharsets.UTF_8)), "w");
  }

  private Claim claim(String key, String writer, Duration expected) throws IOException {
    Claims.Claimed c = memory.claim(key, writer, expected, TTL);
    assertEquals(Claims.Result.HELD, c.result());
    return c.claim();
  }

  /** What a scan's listener heard of claims, one line each: {@code held|stale key writer age}. */
  private final List<String> heard = new ArrayList<>();

  private ScanSummary scan(ObjectStore store, String prefix, DivergenceScan scan) throws IOException {
    return scan.run(store, prefix, new DivergenceScan.Listener() {
      @Override
      public void divergent(KeyVerdict verdict) {}

      @Override
      public void claim(Claim c, boolean stale) {
        heard.add((stale ? "stale " : "held ") + c.key() + " " + c.writer() + " " + c.age().toSeconds());
      }
    });
  }

  @Test
  void run_heldAndStaleClaims_reportedAndCountedVerdictUnchanged() throws IOException {
    publish(key("daily", 1), "one");
    Claim dead = claim(key("daily", 2), "host-a:1", null);
    advance(Duration.ofMinutes(5));
    Claim live = claim(key("daily", 3), "host-b:2", Duration.ofMinutes(2));
    advance(Duration.ofSeconds(10));

    ScanSummary s = scan(memory, "daily/", new DivergenceScan());

    assertEquals(List.of("stale " + dead.key() + " host-a:1 310", "held " + live.key() + " host-b:2 10"), heard);
    assertEquals(new ScanSummary.ClaimCounts(1, 1, null), s.claims());
    assertTrue(s.clean(), "claims are advice: the one published key is clean");
    assertEquals(1, s.keys(), "a claim is not a key");
  }

  @Test
  void run_claimTtl_decidesHeldOrStale() throws IOException {
    publish(key("daily", 1), "one");
    claim(key("daily", 2), "host-a:1", null);
    advance(Duration.ofMinutes(5));

    assertEquals(new ScanSummary.ClaimCounts(1, 0, null),
        scan(memory, "daily/", new DivergenceScan().withClaimTtl(Duration.ofMinutes(6))).claims());
    assertEquals(new ScanSummary.ClaimCounts(0, 1, null), scan(memory, "daily/", new DivergenceScan()).claims());
    assertThrows(IllegalArgumentException.class, () -> new DivergenceScan().withClaimTtl(Duration.ZERO));
  }

  @Test
  void run_onlyClaimsUnderThePrefix_oneListing() throws IOException {
    publish(key("daily", 1), "one");
    publish(key("daily", 2), "two");
    claim(key("daily", 3), "host-a:1", null);
    claim(key("hourly", 3), "host-a:1", null);
    List<String> listings = new ArrayList<>();
    ObjectStore counting = countingListings(listings, null);

    ScanSummary s = scan(counting, "daily/", new DivergenceScan());

    assertEquals(List.of("daily/"), listings, "one listing for the prefix, none per key");
    assertEquals(new ScanSummary.ClaimCounts(1, 0, null), s.claims());
    assertEquals(List.of("held " + key("daily", 3) + " host-a:1 0"), heard);
  }

  @Test
  void run_claimsCannotBeListed_reportedVerdictUnchanged() throws IOException {
    publish(key("daily", 1), "one");
    ObjectStore failing = countingListings(new ArrayList<>(), new IOException("listing refused"));

    ScanSummary s = scan(failing, "daily/", new DivergenceScan());

    assertEquals(new ScanSummary.ClaimCounts(0, 0, "listing refused"), s.claims());
    assertTrue(s.clean());
  }

  @Test
  void run_divergentKeyWithAHeldClaim_stillDivergent() throws IOException {
    String k = key("daily", 1);
    publish(k, "one");
    publish(k, "other bytes");
    claim(k, "host-a:1", null);

    ScanSummary s = scan(memory, "daily/", new DivergenceScan());

    assertFalse(s.clean());
    assertEquals(1, s.divergentKeys());
    assertEquals(1, s.claims().held());
  }

  @Test
  void run_storeWithoutClaims_noClaimCountsSameVerdict() throws IOException {
    publish(key("daily", 1), "one");
    claim(key("daily", 2), "host-a:1", null);

    ScanSummary s = scan(ForwardingObjectStore.without(memory, Capability.CLAIMS), "daily/", new DivergenceScan());

    assertNull(s.claims());
    assertEquals(List.of(), heard);
    assertTrue(s.clean());
  }

  /** The memory store, recording each claim listing's prefix, or failing every listing with {@code failure}. */
  private ObjectStore countingListings(List<String> listings, IOException failure) {
    return new ForwardingObjectStore(memory) {
      @Override
      public List<Claim> listClaims(String prefix) throws IOException {
        listings.add(prefix);
        if (failure != null) {
          throw failure;
        }
        return super.listClaims(prefix);
      }
    };
  }
}
