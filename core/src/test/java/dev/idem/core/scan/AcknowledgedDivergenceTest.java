package dev.idem.core.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Sha256;
import dev.idem.core.Window;
import dev.idem.core.store.Acknowledgement;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutStatus;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An operator's acknowledgement passes a reviewed divergent key, and only what was known when it was
 * made: a new content or one more divergent attempt fails the gate again.
 */
class AcknowledgedDivergenceTest {
  private static final String KEY = RunSpec.of("orders", new Window(1_726_000_000L, 60), 1).outputKey().toString();
  private static final Instant AT = Instant.parse("2026-12-02T15:40:08Z");

  private final InMemoryObjectStore store = new InMemoryObjectStore();

  private static Payload bytes(String s) {
    return Payload.ofBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  private KeyVerdict verdict() throws IOException {
    List<KeyHistory> seen = new ArrayList<>();
    store.history(KEY, seen::add);
    return KeyVerdict.of(seen.get(0));
  }

  /** Acknowledges the key as it is now, the way {@code idem ack} does. */
  private Acknowledgement acknowledgeNow(String by, Instant at) throws IOException {
    KeyVerdict v = verdict();
    Acknowledgement a = new Acknowledgement(KEY, v.contentIds(), v.divergentAttempts(), by, at, "INC-42: fixed in 44");
    store.acknowledge(a);
    return a;
  }

  private static final class Collected implements DivergenceScan.Listener {
    final List<String> divergent = new ArrayList<>();
    final List<String> acknowledged = new ArrayList<>();

    @Override
    public void divergent(KeyVerdict v) {
      divergent.add(v.key());
    }

    @Override
    public void acknowledged(KeyVerdict v, Acknowledgement ack) {
      acknowledged.add(v.key() + " by " + ack.by());
    }
  }

  @Test
  void run_acknowledgedKey_reportedApartAndTheGatePasses() throws IOException {
    store.putIfAbsent(KEY, bytes("alpha"), "w1");
    assertEquals(PutStatus.DIVERGENT, store.putIfAbsent(KEY, bytes("omega"), "w2").status());
    acknowledgeNow("ops-alice", AT);

    Collected c = new Collected();
    ScanSummary s = new DivergenceScan().run(store, "", c);
    assertEquals(List.of(), c.divergent);
    assertEquals(List.of(KEY + " by ops-alice"), c.acknowledged);
    assertEquals(0, s.divergentKeys());
    assertEquals(1, s.acknowledgedKeys());
    assertTrue(s.clean(), s.toString());
  }

  @Test
  void run_sameDivergentBytesAgainAfterTheAcknowledgement_failsAgain() throws IOException {
    store.putIfAbsent(KEY, bytes("alpha"), "w1");
    store.putIfAbsent(KEY, bytes("omega"), "w2");
    acknowledgeNow("ops-alice", AT);
    // The build that derives the wrong key still runs: no new content, one more divergent attempt.
    assertEquals(PutStatus.DIVERGENT, store.putIfAbsent(KEY, bytes("omega"), "w3").status());

    Collected c = new Collected();
    ScanSummary s = new DivergenceScan().run(store, "", c);
    assertEquals(List.of(KEY), c.divergent);
    assertEquals(List.of(), c.acknowledged);
    assertFalse(s.clean());
  }

  @Test
  void run_newContentAfterTheAcknowledgement_failsAgain() throws IOException {
    store.putIfAbsent(KEY, bytes("alpha"), "w1");
    store.putIfAbsent(KEY, bytes("omega"), "w2");
    Acknowledgement old = acknowledgeNow("ops-alice", AT);
    store.putIfAbsent(KEY, bytes("third"), "w3");
    assertFalse(verdict().acknowledgedBy(old), verdict().contentIds() + " against " + old);

    ScanSummary s = new DivergenceScan().run(store, "", new Collected());
    assertEquals(1, s.divergentKeys());
    assertEquals(0, s.acknowledgedKeys());
  }

  @Test
  void run_newerAcknowledgementCoversWhatTheOlderDidNot_theNewestCoveringOneReported() throws IOException {
    store.putIfAbsent(KEY, bytes("alpha"), "w1");
    store.putIfAbsent(KEY, bytes("omega"), "w2");
    acknowledgeNow("ops-alice", AT);
    store.putIfAbsent(KEY, bytes("third"), "w3");
    acknowledgeNow("ops-bob", AT.plusSeconds(60));

    Collected c = new Collected();
    new DivergenceScan().run(store, "", c);
    assertEquals(List.of(KEY + " by ops-bob"), c.acknowledged);
  }

  @Test
  void run_acknowledgementOfAnotherKey_coversNothing() throws IOException {
    store.putIfAbsent(KEY, bytes("alpha"), "w1");
    store.putIfAbsent(KEY, bytes("omega"), "w2");
    KeyVerdict v = verdict();
    String other = RunSpec.of("orders", new Window(1_726_000_060L, 60), 1).outputKey().toString();
    store.acknowledge(new Acknowledgement(other, v.contentIds(), 5, "ops-alice", AT, "wrong key"));

    ScanSummary s = new DivergenceScan().run(store, "", new Collected());
    assertEquals(1, s.divergentKeys());
  }

  @Test
  void run_noDivergentKey_readsNoAcknowledgements() throws IOException {
    store.putIfAbsent(KEY, bytes("alpha"), "w1");
    store.putIfAbsent(KEY, bytes("alpha"), "w2");
    AtomicInteger reads = new AtomicInteger();
    ObjectStore counting = new ForwardingObjectStore(store) {
      @Override
      public List<Acknowledgement> acknowledgements(String prefix) throws IOException {
        reads.incrementAndGet();
        return super.acknowledgements(prefix);
      }
    };
    assertTrue(new DivergenceScan().run(counting, "", new Collected()).clean());
    assertEquals(0, reads.get(), "a clean scan costs nothing more");

    String[] keys = new String[3];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = RunSpec.of("orders", new Window(1_726_000_060L + 60L * i, 60), 1).outputKey().toString();
      counting.putIfAbsent(keys[i], bytes("a"), "w1");
      counting.putIfAbsent(keys[i], bytes("b"), "w2");
    }
    new DivergenceScan().run(counting, "", new Collected());
    assertEquals(1, reads.get(), "read once, at the first divergent key");
  }

  @Test
  void contentIds_namesEachDistinctContentOnce() throws IOException {
    store.putIfAbsent(KEY, bytes("alpha"), "w1");
    store.putIfAbsent(KEY, bytes("omega"), "w2");
    store.putIfAbsent(KEY, bytes("omega"), "w3");
    TreeSet<String> expected = new TreeSet<>(List.of("sha256:" + Sha256.of("alpha".getBytes(StandardCharsets.UTF_8)),
        "sha256:" + Sha256.of("omega".getBytes(StandardCharsets.UTF_8))));
    assertEquals(expected, verdict().contentIds());
  }

  @Test
  void parse_roundTripsAndRefusesWhatIdemDidNotWrite() throws IOException {
    Acknowledgement a = new Acknowledgement(KEY, new TreeSet<>(List.of("sha256:" + "a".repeat(64), "etag:x-1")), 2,
        "ops-alice", AT, "INC-42: input added to the key");
    assertEquals(a, Acknowledgement.parse(a.toBytes(), "test", KEY));
    assertThrows(Acknowledgement.MalformedAcknowledgementException.class,
        () -> Acknowledgement.parse(a.toBytes(), "test", "orders/other"), "found under another key");
    String text = new String(a.toBytes(), StandardCharsets.UTF_8);
    for (String bad : List.of(text.replace("idem-ack 1", "idem-ack 9"), text + "extra=1\n",
        text.replace("divergent_attempts=2", "divergent_attempts=-1"), text.substring(0, text.length() - 1),
        text.replace("reason=INC-42: input added to the key", "reason= "))) {
      assertThrows(Acknowledgement.MalformedAcknowledgementException.class,
          () -> Acknowledgement.parse(bad.getBytes(StandardCharsets.UTF_8), "test", KEY), bad);
    }
    assertThrows(IllegalArgumentException.class, () -> Acknowledgement.requireReason("two\nlines"));
  }
}
