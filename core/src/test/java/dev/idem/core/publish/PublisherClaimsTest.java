package dev.idem.core.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Idem;
import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.publish.ClaimReport.ClaimStatus;
import dev.idem.core.store.Claim;
import dev.idem.core.store.Claims;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The publisher's use of advisory claims, on a fake clock: the waiting replica's sleeps advance the
 * clock and play the claimant's acts (publish, release, renew), so every outcome follows from the
 * claim rule alone; only the heartbeat runs in real time, and its test waits for renewals to happen,
 * not for time to pass.
 */
class PublisherClaimsTest {
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final Duration POLL = Duration.ofSeconds(5);
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Window WINDOW = new Window(Instant.parse("2024-09-11T03:00:00Z").getEpochSecond(), 3600);

  /** One clock for the store (claim ages) and the waiter (ticker); sleeping advances it and plays acts. */
  private static final class FakeTime extends Clock {
    long nanos = Instant.parse("2024-09-11T05:00:00Z").getEpochSecond() * 1_000_000_000L;
    final TreeMap<Long, List<Runnable>> acts = new TreeMap<>();
    final List<Duration> sleeps = new ArrayList<>();

    FakeTime at(long secondsFromNow, Runnable act) {
      acts.computeIfAbsent(nanos + secondsFromNow * 1_000_000_000L, t -> new ArrayList<>()).add(act);
      return this;
    }

    void sleep(Duration d) {
      sleeps.add(d);
      nanos += d.toNanos();
      while (!acts.isEmpty() && acts.firstKey() <= nanos) {
        acts.pollFirstEntry().getValue().forEach(Runnable::run);
      }
    }

    void advance(Duration d) {
      nanos += d.toNanos();
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochSecond(0, nanos);
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }

  private final FakeTime time = new FakeTime();
  private final InMemoryObjectStore store = new InMemoryObjectStore(time);
  private final RunSpec spec = RunSpec.of("orders", WINDOW, 1).withInput("rows", "v1");
  private final String key = spec.outputKey().toString();
  private final AtomicInteger runs = new AtomicInteger();

  private ClaimPolicy policy() {
    return ClaimPolicy.defaults().ttl(TTL).poll(POLL).waitAtMost(WAIT).waitingOn(() -> time.nanos, time::sleep);
  }

  private Publisher publisher(ObjectStore s, ClaimPolicy policy) {
    return Idem.publisher(s).writer("host-b").clock(time).claims(policy).build();
  }

  private Publisher.Task task(String content) {
    return (sp, k) -> {
      runs.incrementAndGet();
      return Payload.ofBytes(content.getBytes(StandardCharsets.UTF_8));
    };
  }

  private Claim othersClaim() throws IOException {
    Claims.Claimed c = store.claim(key, "host-a", Duration.ofMinutes(2), TTL);
    assertEquals(Claims.Result.HELD, c.result());
    return c.claim();
  }

  private void publishAsOther(String content) {
    try {
      store.putIfAbsent(key, Payload.ofBytes(content.getBytes(StandardCharsets.UTF_8)), "host-a");
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void publish_unclaimedKey_holdsTheClaimWhileTheTaskRunsAndReleasesIt() throws Exception {
    List<Optional<Claim>> seenByTask = new ArrayList<>();
    PublishReport report = publisher(store, policy()).publish(spec, (sp, k) -> {
      seenByTask.add(store.readClaim(key));
      return Payload.ofBytes(new byte[] {1});
    });
    assertEquals(PublishStatus.CREATED, report.status());
    assertEquals(ClaimStatus.HELD, report.claim().status());
    assertEquals("host-b", seenByTask.get(0).orElseThrow().writer());
    assertEquals(List.of(), store.listClaims(""), "released after the publish");
    assertEquals(Duration.ZERO, report.claim().waited());
  }

  @Test
  void publish_freshClaimWhoseObjectAppears_skipsNamingTheClaimantAndAdvances() throws Exception {
    Claim other = othersClaim();
    time.at(12, () -> {
      publishAsOther("theirs");
      store.releaseClaim(other);
    });
    PublishReport report = publisher(store, policy()).publish(spec, task("mine"));
    assertEquals(PublishStatus.SKIPPED, report.status());
    assertEquals(0, runs.get(), "the task never ran");
    assertEquals(ClaimStatus.WAITED_SKIPPED, report.claim().status());
    assertEquals("host-a", report.claim().claimant().writer());
    assertEquals(Duration.ofSeconds(15), report.claim().waited(), "three polls of 5 s");
    assertEquals(AdvanceStatus.ADVANCED, report.pointer().status());
  }

  @Test
  void publish_claimReleasedWithoutObject_takesOverAndRuns() throws Exception {
    Claim other = othersClaim();
    time.at(7, () -> {
      store.releaseClaim(other);
    });
    PublishReport report = publisher(store, policy()).publish(spec, task("mine"));
    assertEquals(PublishStatus.CREATED, report.status());
    assertEquals(1, runs.get());
    assertEquals(ClaimStatus.TAKEN_OVER, report.claim().status());
    assertEquals("host-a", report.claim().claimant().writer());
    assertEquals(Duration.ofSeconds(10), report.claim().waited());
    assertEquals(List.of(), store.listClaims(""));
  }

  @Test
  void publish_staleClaimFound_takesOverAtOnceWithoutWaiting() throws Exception {
    othersClaim();
    time.advance(TTL.plusSeconds(1));
    PublishReport report = publisher(store, policy()).publish(spec, task("mine"));
    assertEquals(PublishStatus.CREATED, report.status());
    assertEquals(ClaimStatus.TAKEN_OVER, report.claim().status());
    assertEquals("host-a", report.claim().claimant().writer());
    assertEquals(Duration.ZERO, report.claim().waited());
    assertEquals(List.of(), time.sleeps);
    assertEquals(List.of("host-a"), store.listClaims("").stream().map(Claim::writer).toList(),
        "the stale claim is left for gc; only this writer's own entry is released");
  }

  @Test
  void publish_claimStaysFreshPastTheBound_runsAnywayAfterExactlyTheBound() throws Exception {
    Claim[] held = {othersClaim()};
    for (long s = 10; s <= 120; s += 10) {
      time.at(s, () -> held[0] = store.renewClaim(held[0]));
    }
    PublishReport report = publisher(store, policy()).publish(spec, task("mine"));
    assertEquals(PublishStatus.CREATED, report.status());
    assertEquals(1, runs.get());
    assertEquals(ClaimStatus.WAIT_EXPIRED, report.claim().status());
    assertEquals(WAIT, report.claim().waited(), "never past the bound");
    assertEquals(List.of("host-a"), store.listClaims("").stream().map(Claim::writer).toList(),
        "ran without a claim of its own: the claimant's entry is all there is");
  }

  /**
   * Claims that cannot be read look gone to the waiting rule, while claiming still finds the other
   * writer's fresh claim: each look says "take over", each claim says "taken". The bound still ends it.
   */
  @Test
  void publish_claimsUnreadableAndAFreshClaimPastTheBound_runsAtTheBound() throws Exception {
    Claim[] held = {othersClaim()};
    AtomicInteger claimCalls = new AtomicInteger();
    ObjectStore unreadable = new ForwardingObjectStore(store) {
      @Override
      public Claimed claim(String k, String writer, Duration expected, Duration ttl) throws IOException {
        // Each call takes a second; the other writer renews every ten, for three minutes.
        time.advance(Duration.ofSeconds(1));
        if (claimCalls.incrementAndGet() % 10 == 0 && claimCalls.get() <= 180) {
          held[0] = store.renewClaim(held[0]);
        }
        return super.claim(k, writer, expected, ttl);
      }

      @Override
      public Optional<Claim> readClaim(String k) throws IOException {
        throw new IOException("claims unreadable");
      }
    };
    PublishReport report = publisher(unreadable, policy()).publish(spec, task("mine"));
    assertEquals(PublishStatus.CREATED, report.status());
    assertEquals(ClaimStatus.WAIT_EXPIRED, report.claim().status(), () -> claimCalls + " claim calls");
    assertTrue(report.claim().waited().compareTo(WAIT.plusSeconds(1)) <= 0,
        () -> "waited " + report.claim().waited() + ", past the bound of " + WAIT + " and one more claim call");
    assertEquals(1, runs.get());
  }

  @Test
  void publish_zeroWaitAndAFreshClaim_runsAtOnceBesideIt() throws Exception {
    othersClaim();
    PublishReport report = publisher(store, policy().waitAtMost(Duration.ZERO)).publish(spec, task("mine"));
    assertEquals(ClaimStatus.WAIT_EXPIRED, report.claim().status());
    assertEquals(1, runs.get());
    assertEquals(List.of(), time.sleeps);
  }

  @Test
  void publish_claimsOff_writesNoClaimAndDoesNotWait() throws Exception {
    othersClaim();
    PublishReport report = publisher(store, ClaimPolicy.off()).publish(spec, task("mine"));
    assertEquals(ClaimStatus.OFF, report.claim().status());
    assertEquals(1, runs.get());
    assertEquals(List.of("host-a"), store.listClaims("").stream().map(Claim::writer).toList());
  }

  @Test
  void publish_storeWithoutClaims_runsAndSaysSo() throws Exception {
    ObjectStore noClaims = ForwardingObjectStore.without(store, ForwardingObjectStore.Capability.CLAIMS);
    PublishReport report = publisher(noClaims, policy()).publish(spec, task("mine"));
    assertEquals(PublishStatus.CREATED, report.status());
    assertEquals(ClaimStatus.UNSUPPORTED, report.claim().status());
  }

  @Test
  void publish_claimWriteFails_runsWithoutAClaim() throws Exception {
    ObjectStore failing = new ForwardingObjectStore(store) {
      @Override
      public Claimed claim(String k, String writer, Duration expected, Duration ttl) throws IOException {
        throw new IOException("claims unreachable");
      }
    };
    PublishReport report = publisher(failing, policy()).publish(spec, task("mine"));
    assertEquals(PublishStatus.CREATED, report.status());
    assertEquals(ClaimStatus.FAILED, report.claim().status());
    assertEquals(1, runs.get());
  }

  @Test
  void publish_claimantPublishesDifferentBytesAfterTheBound_stillDivergentNeverClobbered() throws Exception {
    othersClaim();
    Publisher publisher = publisher(store, policy().waitAtMost(Duration.ofSeconds(10)));
    PublishReport report = publisher.publish(spec, (sp, k) -> {
      publishAsOther("theirs"); // the claimant finishes while this replica runs anyway
      return Payload.ofBytes("mine".getBytes(StandardCharsets.UTF_8));
    });
    assertEquals(ClaimStatus.WAIT_EXPIRED, report.claim().status());
    assertEquals(PublishStatus.DIVERGENT, report.status());
    try (var in = store.open(key).orElseThrow()) {
      assertEquals("theirs", new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void publish_taskFails_releasesTheClaim() throws Exception {
    TaskFailedException e = assertThrows(TaskFailedException.class,
        () -> publisher(store, policy()).publish(spec, (sp, k) -> {
          throw new IllegalStateException("boom");
        }));
    assertTrue(e.getMessage().contains("boom"));
    assertEquals(List.of(), store.listClaims(""));
  }

  @Test
  void publish_interruptedWhileWaiting_failsWithoutRunningAndKeepsTheInterrupt() throws Exception {
    othersClaim();
    ClaimPolicy interrupted = ClaimPolicy.defaults().ttl(TTL).poll(POLL).waitAtMost(WAIT)
        .waitingOn(() -> time.nanos, d -> {
          throw new InterruptedException("stop");
        });
    try {
      TaskFailedException e = assertThrows(TaskFailedException.class,
          () -> publisher(store, interrupted).publish(spec, task("mine")));
      assertTrue(e.getMessage().contains("host-a"), e.getMessage());
      assertTrue(Thread.currentThread().isInterrupted());
    } finally {
      Thread.interrupted();
    }
    assertEquals(0, runs.get());
    assertFalse(store.exists(key));
  }

  @Test
  void publish_longTask_renewsTheClaimOnTheHeartbeat() throws Exception {
    CountDownLatch renewed = new CountDownLatch(2);
    AtomicInteger failures = new AtomicInteger();
    ObjectStore counting = new ForwardingObjectStore(store) {
      @Override
      public Claim renewClaim(Claim held) throws IOException {
        if (failures.getAndIncrement() == 0) {
          throw new IOException("first renewal lost");
        }
        Claim c = store.renewClaim(held);
        renewed.countDown();
        return c;
      }
    };
    ClaimPolicy fast = ClaimPolicy.defaults().ttl(Duration.ofSeconds(30)).heartbeat(Duration.ofMillis(5));
    PublishReport report = publisher(counting, fast).publish(spec, (sp, k) -> {
      assertTrue(renewed.await(30, TimeUnit.SECONDS), "two renewals while the task ran");
      return Payload.ofBytes(new byte[] {1});
    });
    assertEquals(ClaimStatus.HELD, report.claim().status());
    assertTrue(report.claim().renewals() >= 2, report.claim().toString());
    assertTrue(report.claim().renewalFailures() >= 1, report.claim().toString());
    assertEquals(List.of(), store.listClaims(""), "the claim as last renewed is released");
  }

  @Test
  void publish_keyPublishedAtTheFirstLook_readsNoClaim() throws Exception {
    publishAsOther("theirs");
    ObjectStore noReads = new ForwardingObjectStore(store) {
      @Override
      public Claimed claim(String k, String writer, Duration expected, Duration ttl) {
        throw new AssertionError("a published key needs no claim");
      }
    };
    PublishReport report = publisher(noReads, policy()).publish(spec, task("mine"));
    assertEquals(PublishStatus.SKIPPED, report.status());
    assertNull(report.claim());
  }

  @Test
  void policy_heartbeatNotShorterThanTtl_refused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ClaimPolicy.defaults().heartbeat(Duration.ofSeconds(60)).ttl(Duration.ofSeconds(60)));
    assertTrue(e.getMessage().contains("shorter than the claim ttl"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ClaimPolicy.defaults().poll(Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> ClaimPolicy.defaults().waitAtMost(Duration.ofSeconds(-1)));
    assertEquals(Duration.ofSeconds(20), ClaimPolicy.defaults().heartbeat());
    assertFalse(ClaimPolicy.off().enabled());
  }
}
