package dev.idem.core.scan;

import dev.idem.core.Idem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Sha256;
import dev.idem.core.Window;
import dev.idem.core.publish.AdvanceReport;
import dev.idem.core.publish.AdvanceStatus;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.publish.Publisher;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Counts that reports carry: advance attempts, scan totals and progress, verdict tallies. */
class ReportedCountsTest {

  private static Pointer pointer(InMemoryObjectStore store, long windowStart, int schema) throws IOException {
    String key = RunSpec.of("p", new Window(windowStart, 60), schema).outputKey().toString();
    store.putIfAbsent(key, Payload.ofBytes(("g" + windowStart + "/" + schema).getBytes()), "w");
    return Pointer.to(store.stat(key).orElseThrow(), 60, schema, "w", Instant.EPOCH);
  }

  // --- PointerAdvancer ---

  @Test
  void constructor_smallestLegalSettings_accepted() {
    InMemoryObjectStore s = new InMemoryObjectStore();
    assertNotNull(new PointerAdvancer(s, 1, 0));
    assertThrows(IllegalArgumentException.class, () -> new PointerAdvancer(s, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new PointerAdvancer(s, 1, -1));
  }

  @Test
  void advance_reportsTheCompareAndSwapsItMade() throws IOException {
    InMemoryObjectStore s = new InMemoryObjectStore();
    PointerAdvancer adv = new PointerAdvancer(s, 1, 0);
    AdvanceReport first = adv.advance(pointer(s, 120, 1));
    assertEquals(AdvanceStatus.ADVANCED, first.status());
    assertEquals(1, first.attempts());
    AdvanceReport again = adv.advance(pointer(s, 120, 1));
    assertEquals(AdvanceStatus.ALREADY_CURRENT, again.status());
    assertEquals(0, again.attempts());
    AdvanceReport older = adv.advance(pointer(s, 60, 1));
    assertEquals(AdvanceStatus.NEWER_PRESENT, older.status());
    assertEquals(0, older.attempts());
    assertEquals(new Pointer.Position(120, 1), older.current().position());
  }

  @Test
  void advance_alwaysOutraced_triesExactlyMaxAttemptsThenConflict() throws IOException {
    AlwaysOutracedStore store = new AlwaysOutracedStore();
    Pointer next = pointer(store.d, 60, 1);
    AdvanceReport r = new PointerAdvancer(store, 3, 0).advance(next);
    assertEquals(AdvanceStatus.CONFLICT, r.status());
    assertEquals(3, r.attempts());
    assertEquals(3, store.compareAndSwaps.get());
  }

  // --- KeyVerdict ---

  private static HistoryEntry entry(HistoryEntry.Kind kind, String sha, String etag) {
    return new HistoryEntry("k", kind, null, null, 1, sha, etag, null, null);
  }

  @Test
  void verdict_countsWritesPayloadsAndDivergentAttempts() {
    String a = Sha256.of(new byte[] {1});
    String b = Sha256.of(new byte[] {2});
    KeyVerdict v = KeyVerdict.of(new KeyHistory("k", List.of(
        entry(HistoryEntry.Kind.VERSION, a, null),
        entry(HistoryEntry.Kind.DELETE_MARKER, null, null),
        entry(HistoryEntry.Kind.DIVERGENT_ATTEMPT, b, null),
        entry(HistoryEntry.Kind.DIVERGENT_ATTEMPT, b, null),
        entry(HistoryEntry.Kind.DIVERGENT_ATTEMPT, b, null),
        entry(HistoryEntry.Kind.IDENTICAL_ATTEMPT, a, null))));
    assertEquals(5, v.writes());
    assertEquals(2, v.payloads());
    assertEquals(3, v.divergentAttempts());
    assertEquals(Basis.SHA256, v.basis());
    assertTrue(v.divergent());
    assertFalse(v.benignDuplicate());
  }

  @Test
  void verdict_benignDuplicateNeedsTwoWritesOfOneContent() {
    String a = Sha256.of(new byte[] {1});
    assertFalse(KeyVerdict.of(new KeyHistory("k", List.of(entry(HistoryEntry.Kind.VERSION, a, null)))).benignDuplicate());
    assertTrue(KeyVerdict.of(new KeyHistory("k", List.of(entry(HistoryEntry.Kind.VERSION, a, null),
        entry(HistoryEntry.Kind.IDENTICAL_ATTEMPT, a, null)))).benignDuplicate());
  }

  @Test
  void verdict_sameEtagOnTwoVersions_onePayload() {
    KeyVerdict v = KeyVerdict.of(new KeyHistory("k", List.of(
        new HistoryEntry("k", HistoryEntry.Kind.VERSION, "v1", null, 1, null, "e1", null, null),
        new HistoryEntry("k", HistoryEntry.Kind.VERSION, "v2", null, 2, null, "e1", null, null))));
    assertEquals(1, v.payloads());
    assertTrue(v.benignDuplicate());
  }

  @Test
  void publisher_exposesItsStoreAndWriter() {
    InMemoryObjectStore s = new InMemoryObjectStore();
    Publisher p = Idem.publisher(s).writer("writer-7").build();
    assertSame(s, p.store());
    assertEquals("writer-7", p.writerId());
  }

  @Test
  void verdict_basisFollowsWhatEntriesCarry() {
    String a = Sha256.of(new byte[] {1});
    assertEquals(Basis.ETAG, KeyVerdict.of(new KeyHistory("k", List.of(entry(HistoryEntry.Kind.VERSION, null, "e1")))).basis());
    assertEquals(Basis.MIXED, KeyVerdict.of(new KeyHistory("k", List.of(entry(HistoryEntry.Kind.VERSION, null, "e1"),
        entry(HistoryEntry.Kind.VERSION, a, null)))).basis());
    assertEquals(Basis.ETAG, KeyVerdict.of(new KeyHistory("k", List.of(entry(HistoryEntry.Kind.VERSION, null, null)))).basis());
  }

  // --- DivergenceScan ---

  @Test
  void constructor_rejectsNegativeKeysAndNonPositiveTime() {
    Clock c = Clock.systemUTC();
    assertThrows(IllegalArgumentException.class, () -> new DivergenceScan(c, -1, null));
    assertThrows(IllegalArgumentException.class, () -> new DivergenceScan(c, 0, Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> new DivergenceScan(c, 0, Duration.ofSeconds(-1)));
    assertNotNull(new DivergenceScan(c, 0, Duration.ofMillis(1)));
  }

  @Test
  void run_totalsEntriesAndReportsProgressPerKey() throws IOException {
    InMemoryObjectStore s = new InMemoryObjectStore();
    s.putIfAbsent("a/k", Payload.ofBytes(new byte[] {1}), "w");
    s.putIfAbsent("a/k", Payload.ofBytes(new byte[] {1}), "w");
    s.putIfAbsent("b/k", Payload.ofBytes(new byte[] {2}), "w");
    s.putIfAbsent("b/k", Payload.ofBytes(new byte[] {3}), "w");
    List<long[]> progress = new ArrayList<>();
    ScanSummary sum = new DivergenceScan().run(s, "", new DivergenceScan.Listener() {
      @Override
      public void divergent(KeyVerdict verdict) {}

      @Override
      public void progress(long keys, long entries) {
        progress.add(new long[] {keys, entries});
      }
    });
    assertEquals(2, sum.keys());
    assertEquals(4, sum.entries());
    assertEquals(1, sum.benignDuplicateKeys());
    assertEquals(1, sum.divergentKeys());
    assertEquals(2, progress.size());
    assertEquals(1, progress.get(0)[0]);
    assertEquals(2, progress.get(0)[1]);
    assertEquals(2, progress.get(1)[0]);
    assertEquals(4, progress.get(1)[1]);
  }

  @Test
  void run_timeBoundPassed_stopsIncomplete() throws IOException {
    InMemoryObjectStore s = new InMemoryObjectStore();
    s.putIfAbsent("a/k", Payload.ofBytes(new byte[] {1}), "w");
    s.putIfAbsent("b/k", Payload.ofBytes(new byte[] {1}), "w");
    Instant[] now = {Instant.EPOCH};
    Clock ticking = new Clock() {
      @Override
      public ZoneOffset getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(java.time.ZoneId zone) {
        return this;
      }

      @Override
      public Instant instant() {
        Instant t = now[0];
        now[0] = t.plusSeconds(10);
        return t;
      }
    };
    ScanSummary sum = new DivergenceScan(ticking, 0, Duration.ofSeconds(5)).run(s, "", v -> {});
    // The clock reads 10 s past the start when the store checks the deadline before the first key.
    assertEquals(0, sum.keys());
    assertFalse(sum.complete());
  }
}
