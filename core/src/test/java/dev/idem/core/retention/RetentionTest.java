package dev.idem.core.retention;

import dev.idem.core.Idem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.publish.ClosedWindowGuard;
import dev.idem.core.publish.PointerRewinder;
import dev.idem.core.publish.Publisher;
import dev.idem.core.publish.RewindReport;
import dev.idem.core.publish.RewindStatus;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RetentionTest {
  private static final long DAY = 86_400;
  private final Instant now = Instant.ofEpochSecond(100 * DAY);
  private final InMemoryObjectStore store = new InMemoryObjectStore(Clock.fixed(now.minus(Duration.ofHours(1)), ZoneOffset.UTC));
  private final Clock clock = Clock.fixed(now, ZoneOffset.UTC);

  private String publish(long day, boolean advance) throws Exception {
    RunSpec spec = RunSpec.of("daily", new Window(day * DAY, DAY), 1);
    Publisher.Builder b = Idem.publisher(store).writer("w").clock(clock);
    Publisher p = (advance ? b.pointer(new dev.idem.core.publish.PointerAdvancer(store)) : b.withoutPointer()).build();
    p.publish(spec, Payload.ofBytes(("day " + day).getBytes()));
    return spec.outputKey().toString();
  }

  private List<String> keys() throws IOException {
    List<String> out = new ArrayList<>();
    store.list("", o -> out.add(o.key()));
    return out;
  }

  @Test
  void run_keepTwo_deletesOlderThanNewestTwo() throws Exception {
    List<String> k = new ArrayList<>();
    for (long d = 90; d < 95; d++) {
      k.add(publish(d, true));
    }
    Retention.Report r = new Retention(store, clock).run("daily", new Retention.Policy(2, null, Duration.ofMinutes(10), false));
    assertEquals(5, r.generations());
    assertEquals(List.of(k.get(0), k.get(1), k.get(2)), r.deleted().stream().sorted().toList());
    assertEquals(List.of(k.get(3), k.get(4)), keys().stream().sorted().toList());
  }

  private List<String> historyKeys() throws IOException {
    List<String> out = new ArrayList<>();
    store.history("", h -> out.add(h.key()));
    return out;
  }

  @Test
  void run_cleanGenerationDeleted_itsRecordsGoToo() throws Exception {
    String old = publish(90, true);
    String kept = publish(91, true);
    store.putIfAbsent(old, Payload.ofBytes("day 90".getBytes()), "w2"); // a benign duplicate

    Retention.Report r = new Retention(store, clock).run("daily", new Retention.Policy(1, null, Duration.ZERO, false));

    assertEquals(List.of(old), r.deleted());
    assertEquals(2, r.records(), "its VERSION and IDENTICAL records");
    assertEquals(List.of(), r.evidenceKept());
    assertEquals(List.of(kept), historyKeys(), "the scan no longer counts a removed generation");
  }

  @Test
  void run_divergentGenerationDeleted_recordsAndEvidenceKeptUnlessAsked() throws Exception {
    String old = publish(90, true);
    String kept = publish(91, true);
    store.putIfAbsent(old, Payload.ofBytes("other bytes".getBytes()), "w2");

    Retention.Report r = new Retention(store, clock).run("daily", new Retention.Policy(1, null, Duration.ZERO, false));

    assertEquals(List.of(old), r.deleted());
    assertEquals(List.of(old), r.evidenceKept());
    assertEquals(0, r.records());
    assertEquals(List.of(old, kept), historyKeys(), "the evidence of a keying bug outlives retention");

    Retention.Report again = new Retention(store, clock).run("daily", new Retention.Policy(1, null, Duration.ZERO, false));
    assertEquals(List.of(), again.recordsOnly(), "kept by every run that is not asked to drop them");
    Retention.Report dropped = new Retention(store, clock).run("daily", new Retention.Policy(1, null, Duration.ZERO, false, true));
    assertEquals(List.of(old), dropped.recordsOnly());
    assertEquals(List.of(kept), historyKeys());
  }

  @Test
  void run_divergentGenerationWithDropDivergentEvidence_everythingRemoved() throws Exception {
    String old = publish(90, true);
    String kept = publish(91, true);
    store.putIfAbsent(old, Payload.ofBytes("other bytes".getBytes()), "w2");

    Retention.Report r = new Retention(store, clock).run("daily", new Retention.Policy(1, null, Duration.ZERO, false, true));

    assertEquals(List.of(old), r.deleted());
    assertEquals(List.of(), r.evidenceKept());
    assertEquals(2, r.records());
    assertEquals(List.of(kept), historyKeys());
  }

  @Test
  void run_dryRun_recordsUntouchedDivergentKeysNamed() throws Exception {
    String old = publish(90, true);
    publish(91, true);
    store.putIfAbsent(old, Payload.ofBytes("other bytes".getBytes()), "w2");

    Retention.Report r = new Retention(store, clock).run("daily", new Retention.Policy(1, null, Duration.ZERO, true));

    assertEquals(List.of(old), r.evidenceKept());
    assertEquals(0, r.records());
    assertEquals(2, historyKeys().size());
  }

  @Test
  void run_pointerBehindNewest_keepsPointerAndEverythingNewer() throws Exception {
    String a = publish(90, true);
    String b = publish(91, true);
    String c = publish(92, false); // published ahead of the pointer, not advanced (yet)
    String d = publish(93, false);
    Retention.Report r = new Retention(store, clock).run("daily", new Retention.Policy(1, null, Duration.ZERO, false));
    assertEquals(List.of(a), r.deleted());
    assertTrue(keys().containsAll(List.of(b, c, d)), "the pointer's generation and newer ones stay");
  }

  @Test
  void run_noPointer_deletesNothing() throws Exception {
    publish(90, false);
    publish(91, false);
    Retention.Report r = new Retention(store, clock).run("daily", new Retention.Policy(1, null, Duration.ZERO, false));
    assertEquals(List.of(), r.deleted());
    assertEquals(2, keys().size());
  }

  @Test
  void run_dryRun_reportsButKeeps() throws Exception {
    publish(90, true);
    publish(91, true);
    Retention.Report r = new Retention(store, clock).run("daily", new Retention.Policy(1, null, Duration.ZERO, true));
    assertEquals(1, r.deleted().size());
    assertEquals(2, keys().size());
  }

  @Test
  void run_olderThan_keepsRecentWindows() throws Exception {
    for (long d = 90; d < 100; d++) {
      publish(d, true);
    }
    // Windows that ended more than 5 days before day 100 are days 90..94 (ends 91..95 < 95 → 90..93).
    Retention.Report r = new Retention(store, clock).run("daily", new Retention.Policy(1, Duration.ofDays(5), Duration.ZERO, false));
    assertEquals(4, r.deleted().size(), r.deleted().toString());
  }

  @Test
  void run_withinGrace_notDeleted() throws Exception {
    publish(90, true);
    publish(91, true);
    // Objects were written an hour ago; a two-hour grace protects them.
    Retention.Report r = new Retention(store, clock).run("daily", new Retention.Policy(1, null, Duration.ofHours(2), false));
    assertEquals(List.of(), r.deleted());
  }

  @Test
  void run_otherPipelinesAndForeignKeys_untouched() throws Exception {
    publish(90, true);
    publish(91, true);
    RunSpec other = RunSpec.of("daily-v2", new Window(10 * DAY, DAY), 1);
    Idem.publisher(store).writer("w").build().publish(other, Payload.ofBytes(new byte[] {1}));
    new Retention(store, clock).run("daily", new Retention.Policy(1, null, Duration.ZERO, false));
    assertTrue(store.exists(other.outputKey().toString()));
  }

  @Test
  void run_dropDivergentEvidence_clearsTheRecordsOfEveryRetiredKey_andCountsThem() throws Exception {
    String a = publish(90, true);
    String b = publish(91, true);
    String kept = publish(92, true);
    store.putIfAbsent(a, Payload.ofBytes("other bytes".getBytes()), "w2");
    store.putIfAbsent(b, Payload.ofBytes("other bytes".getBytes()), "w2");
    Retention.Report first = new Retention(store, clock).run("daily", new Retention.Policy(1, null, Duration.ZERO, false));
    assertEquals(List.of(a, b), first.evidenceKept().stream().sorted().toList());

    Retention.Report dropped = new Retention(store, clock).run("daily", new Retention.Policy(1, null, Duration.ZERO, false, true));

    assertEquals(List.of(a, b), dropped.recordsOnly(), "every key the history walk meets, not only the first");
    assertEquals(4, dropped.records(), "each key's VERSION and DIVERGENT records, summed");
    assertEquals(List.of(kept), historyKeys());
  }

  @Test
  void run_nothingLeftToRetire_reportsTheMarkAnEarlierRunRaised() throws Exception {
    publish(90, true);
    publish(91, true);
    Retention.Report first = new Retention(store, clock).run("daily", new Retention.Policy(1, null, Duration.ZERO, false));
    assertEquals(90 * DAY, first.retirement().windowStart());

    Retention.Report again = new Retention(store, clock).run("daily", new Retention.Policy(1, null, Duration.ZERO, false));

    assertEquals(List.of(), again.deleted());
    assertEquals(first.retirement(), again.retirement(), "the pipeline's mark, read back, not forgotten");
  }

  @Test
  void run_retiringTheWindowAtTheEpoch_raisesTheMarkToZero() throws Exception {
    String epoch = publish(0, true);
    publish(1, true);

    Retention.Report r = new Retention(store, clock).run("daily", new Retention.Policy(1, null, Duration.ZERO, false));

    assertEquals(List.of(epoch), r.deleted());
    assertEquals(0, r.retirement().windowStart());
    assertEquals(0, store.readRetirement("daily").orElseThrow().windowStart(), "window 0 is a window like any other");
  }

  @Test
  void policy_invalid_rejected() {
    assertThrows(IllegalArgumentException.class, () -> new Retention.Policy(0, null, Duration.ZERO, false));
    assertThrows(IllegalArgumentException.class, () -> new Retention.Policy(1, Duration.ofDays(-1), Duration.ZERO, false));
    assertThrows(IllegalArgumentException.class, () -> new Retention.Policy(1, null, Duration.ofDays(-1), false));
    assertFalse(new Retention.Policy(1, null, Duration.ZERO, false).dryRun());
  }

  /** A rewind of the pointer to {@code to} while gc runs: what {@code idem pointer rewind} does. */
  private void rewindTo(String to) throws IOException {
    Pointer current = store.readPointer("daily").orElseThrow().pointer();
    Pointer target = Pointer.to(store.stat(to).orElseThrow(), DAY, 1, "w", now);
    RewindReport r = new PointerRewinder(store, new ClosedWindowGuard(clock, Duration.ZERO))
        .rewind(target, current.key(), "ops", "bad rows");
    assertEquals(RewindStatus.REWOUND, r.status(), r.toString());
  }

  @Test
  void run_pointerRewoundBetweenTwoDeletes_rewindTargetAndWhatFollowsItKept() throws Exception {
    List<String> k = new ArrayList<>();
    for (long d = 90; d < 95; d++) {
      k.add(publish(d, true));
    }
    List<String> deleteCalls = new ArrayList<>();
    ObjectStore racing = new ForwardingObjectStore(store) {
      @Override
      public boolean delete(String key) throws IOException {
        deleteCalls.add(key);
        boolean deleted = super.delete(key);
        if (deleteCalls.size() == 1) {
          rewindTo(k.get(2)); // after gc read the pointer at day 94 and chose days 90 to 93
        }
        return deleted;
      }
    };

    Retention.Report r = new Retention(racing, clock).run("daily", new Retention.Policy(1, null, Duration.ZERO, false));

    assertEquals(k.get(2), store.readPointer("daily").orElseThrow().pointer().key());
    assertTrue(store.exists(k.get(2)), "the generation the pointer was rewound to is still there");
    assertEquals(List.of(k.get(0), k.get(1)), r.deleted(), "only what lies behind the pointer as it is now");
    assertEquals(List.of(k.get(2), k.get(3), k.get(4)), keys().stream().sorted().toList());
  }

  @Test
  void run_keyWithAWindowStartPastLongMax_leftAloneNotAnError() throws Exception {
    String old = publish(90, true);
    String kept = publish(91, true);
    String stray = "daily/9999999999999999999/state-" + "ab".repeat(32);
    store.putIfAbsent(stray, Payload.ofBytes("not idem's".getBytes()), "w");

    Retention.Report r = new Retention(store, clock).run("daily", new Retention.Policy(1, null, Duration.ZERO, false));

    assertEquals(List.of(old), r.deleted());
    assertEquals(List.of(kept, stray), keys().stream().sorted().toList());
  }
}
