package dev.idem.core.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.Deadline;
import dev.idem.core.store.DeadlineExceededException;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.HistoryEntry.Kind;
import dev.idem.core.store.HistoryQuery;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DivergenceScanTest {

  private static HistoryEntry etag(String key, String etag) {
    return new HistoryEntry(key, Kind.VERSION, "v-" + etag, null, 3, null, etag, null, null);
  }

  @Test
  void of_legacyKeyTwoEtags_divergentByEtag() {
    KeyVerdict v = KeyVerdict.of(new KeyHistory("out/latest.csv", List.of(etag("out/latest.csv", "a"), etag("out/latest.csv", "b"))));
    assertTrue(v.divergent());
    assertEquals(Basis.ETAG, v.basis());
    assertEquals("DIVERGENT out/latest.csv writes=2 payloads=2", v.referenceLine());
  }

  @Test
  void of_onlyDivergentAttemptsLeft_divergentAndTheObjectTheyMetCounted() {
    // Retention deleted the object (or an unversioned bucket lost its history); evidence without a
    // marker stays, naming no object: the one they met is counted once, unlike every other content.
    String sha = "cd".repeat(32);
    HistoryEntry attempt = new HistoryEntry("k", Kind.DIVERGENT_ATTEMPT, null, null, 4, sha, null, "w", null);
    KeyVerdict v = KeyVerdict.of(new KeyHistory("k", List.of(attempt, attempt)));
    assertTrue(v.divergent(), v.toString());
    assertFalse(v.benignDuplicate());
    assertEquals("DIVERGENT k writes=3 payloads=2", v.referenceLine());
  }

  @Test
  void of_markersOnly_theObjectsTheyMetCountedByHash() {
    String a = "aa".repeat(32);
    String b = "bb".repeat(32);
    String c = "cc".repeat(32);
    HistoryEntry metA = new HistoryEntry("k", Kind.DIVERGENT_ATTEMPT, null, null, 4, b, null, "w1", null, a);
    HistoryEntry alsoMetA = new HistoryEntry("k", Kind.DIVERGENT_ATTEMPT, null, null, 4, c, null, "w2", null, a);
    assertEquals("DIVERGENT k writes=2 payloads=2", KeyVerdict.of(new KeyHistory("k", List.of(metA))).referenceLine());
    assertEquals("DIVERGENT k writes=3 payloads=3",
        KeyVerdict.of(new KeyHistory("k", List.of(metA, alsoMetA))).referenceLine());
    HistoryEntry legacy = new HistoryEntry("k", Kind.DIVERGENT_ATTEMPT, null, null, 4, c, null, null, null);
    assertEquals("DIVERGENT k writes=3 payloads=3", KeyVerdict.of(new KeyHistory("k", List.of(metA, legacy)))
        .referenceLine(), "evidence without a marker met the object the marker names");
  }

  @Test
  void of_markerWhoseObjectIsStillListed_notCountedTwice() {
    String a = "aa".repeat(32);
    String b = "bb".repeat(32);
    HistoryEntry version = new HistoryEntry("k", Kind.VERSION, null, null, 3, a, null, "w0", null);
    HistoryEntry attempt = new HistoryEntry("k", Kind.DIVERGENT_ATTEMPT, null, null, 4, b, null, "w1", null, a);
    assertEquals("DIVERGENT k writes=2 payloads=2",
        KeyVerdict.of(new KeyHistory("k", List.of(version, attempt))).referenceLine());
    // A version known by its ETag only could be the met object: nothing is added.
    HistoryEntry foreign = etag("k", "e1");
    assertEquals("DIVERGENT k writes=2 payloads=2",
        KeyVerdict.of(new KeyHistory("k", List.of(foreign, attempt))).referenceLine());
    HistoryEntry legacy = new HistoryEntry("k", Kind.DIVERGENT_ATTEMPT, null, null, 4, b, null, null, null);
    assertEquals("DIVERGENT k writes=2 payloads=2",
        KeyVerdict.of(new KeyHistory("k", List.of(version, legacy))).referenceLine());
  }

  @Test
  void historyEntry_metObjectOnAnythingButADivergentAttempt_refused() {
    assertThrows(IllegalArgumentException.class,
        () -> new HistoryEntry("k", Kind.VERSION, null, null, 3, "aa".repeat(32), null, "w", null, "bb".repeat(32)));
  }

  @Test
  void of_sameEtagTwice_benignNotDivergent() {
    KeyVerdict v = KeyVerdict.of(new KeyHistory("k", List.of(etag("k", "a"), etag("k", "a"))));
    assertFalse(v.divergent());
    assertTrue(v.benignDuplicate());
  }

  @Test
  void of_deleteMarkers_areNotContent() {
    HistoryEntry marker = new HistoryEntry("k", Kind.DELETE_MARKER, "v9", null, -1, null, null, null, null);
    KeyVerdict v = KeyVerdict.of(new KeyHistory("k", List.of(etag("k", "a"), marker, etag("k", "a"))));
    assertEquals(2, v.writes());
    assertEquals(1, v.payloads());
  }

  @Test
  void of_sameShaDifferentEtags_notDivergent() {
    // Multipart or SSE-KMS: ETags differ for identical bytes; idem compares its own SHA-256.
    String sha = "ab".repeat(32);
    KeyVerdict v = KeyVerdict.of(new KeyHistory("k", List.of(
        new HistoryEntry("k", Kind.VERSION, "1", null, 3, sha, "etag-1-2", "w", null),
        new HistoryEntry("k", Kind.VERSION, "2", null, 3, sha, "etag-2-2", "w", null))));
    assertFalse(v.divergent());
    assertEquals(Basis.SHA256, v.basis());
  }

  @Test
  void of_mixedBases_saidSo() {
    KeyVerdict v = KeyVerdict.of(new KeyHistory("k", List.of(
        new HistoryEntry("k", Kind.VERSION, "1", null, 3, "ab".repeat(32), "e1", "w", null), etag("k", "e2"))));
    assertEquals(Basis.MIXED, v.basis());
    assertTrue(v.divergent());
  }

  @Test
  void of_shaAndEtagWithTheSameString_twoContents() {
    // A server may hand out any ETag, even one spelled like a SHA-256: a content known by its SHA-256
    // and one known by its ETag are never taken for one.
    String same = "cd".repeat(32);
    KeyVerdict v = KeyVerdict.of(new KeyHistory("k", List.of(
        new HistoryEntry("k", Kind.VERSION, "1", null, 3, same, "e1", "w", null), etag("k", same))));
    assertEquals(2, v.payloads());
    assertTrue(v.divergent());
  }

  @Test
  void of_neitherShaNorEtag_knownByVersionAndSize() {
    HistoryEntry first = new HistoryEntry("k", Kind.VERSION, "v1", null, 3, null, null, "w", null);
    HistoryEntry again = new HistoryEntry("k", Kind.VERSION, "v1", null, 3, null, null, "w", null);
    HistoryEntry other = new HistoryEntry("k", Kind.VERSION, "v2", null, 3, null, null, "w", null);
    HistoryEntry longer = new HistoryEntry("k", Kind.VERSION, "v1", null, 4, null, null, "w", null);
    assertEquals(1, KeyVerdict.of(new KeyHistory("k", List.of(first, again))).payloads());
    assertEquals(2, KeyVerdict.of(new KeyHistory("k", List.of(first, other))).payloads());
    assertEquals(2, KeyVerdict.of(new KeyHistory("k", List.of(first, longer))).payloads());
  }

  @Test
  void schema_entriesAgreeOrSomeUnknown_theRecordedOneElseNull() {
    String sha = "ab".repeat(32);
    HistoryEntry two = new HistoryEntry("k", Kind.VERSION, null, null, 3, sha, null, "w", 2);
    HistoryEntry unknown = new HistoryEntry("k", Kind.IDENTICAL_ATTEMPT, null, null, 3, sha, null, "w", null);
    HistoryEntry three = new HistoryEntry("k", Kind.DIVERGENT_ATTEMPT, null, null, 3, sha, null, "w", 3);
    assertEquals(Integer.valueOf(2), new KeyHistory("k", List.of(unknown, two, two)).schema());
    assertEquals(null, new KeyHistory("k", List.of(unknown)).schema());
    assertEquals(null, new KeyHistory("k", List.of(two, three)).schema(), "entries that disagree are not believed");
  }

  @Test
  void run_storeWithOneDivergentKey_reportsReferenceLines() throws Exception {
    InMemoryObjectStore store = new InMemoryObjectStore();
    String clean = RunSpec.of("p", new Window(60, 60), 1).outputKey().toString();
    String bad = RunSpec.of("p", new Window(120, 60), 1).outputKey().toString();
    store.putIfAbsent(clean, Payload.ofBytes(new byte[] {1}), "w1");
    store.putIfAbsent(clean, Payload.ofBytes(new byte[] {1}), "w2");
    store.putIfAbsent(bad, Payload.ofBytes(new byte[] {1}), "w1");
    store.putIfAbsent(bad, Payload.ofBytes(new byte[] {2}), "w2");
    List<String> lines = new ArrayList<>();
    ScanSummary s = new DivergenceScan().run(store, "p/", v -> lines.add(v.referenceLine()));
    assertEquals(List.of("DIVERGENT " + bad + " writes=2 payloads=2"), lines);
    assertEquals("scanned prefix=p/ divergent_keys=1", s.referenceLine());
    assertEquals(2, s.keys());
    assertEquals(1, s.benignDuplicateKeys());
    assertFalse(s.clean());
  }

  /** A stray object whose window start does not fit a long, beside idem's keys and windows queries. */
  @Test
  void run_keyWithAWindowStartPastLongMax_legacyNotAnError() throws Exception {
    InMemoryObjectStore store = new InMemoryObjectStore();
    String idem = RunSpec.of("p", new Window(6000, 60), 1).outputKey().toString();
    String stray = "p/9999999999999999999/state-" + "ab".repeat(32);
    store.putIfAbsent(idem, Payload.ofBytes(new byte[] {1}), "w1");
    store.putIfAbsent(stray, Payload.ofBytes(new byte[] {1}), "w1");
    store.putIfAbsent(stray, Payload.ofBytes(new byte[] {2}), "w2");

    ScanSummary all = new DivergenceScan().run(store, "p/", v -> {});
    ScanSummary windows = new DivergenceScan().run(store, HistoryQuery.windows("p", 60), java.util.Set.of(), v -> {});

    assertEquals(2, all.keys());
    assertEquals(1, all.divergentKeys(), "judged as a legacy key: two contents");
    assertEquals(1, windows.keys(), "not one of the pipeline's windows");
  }

  @Test
  void run_maxKeysBound_incompleteNeverClean() throws Exception {
    InMemoryObjectStore store = new InMemoryObjectStore();
    for (int i = 1; i <= 5; i++) {
      store.putIfAbsent(RunSpec.of("p", new Window(60L * i, 60), 1).outputKey().toString(), Payload.ofBytes(new byte[] {1}), "w");
    }
    ScanSummary s = new DivergenceScan(Clock.systemUTC(), 2, null).run(store, "", v -> {});
    assertEquals(2, s.keys());
    assertFalse(s.complete());
    assertFalse(s.clean());
    assertTrue(new DivergenceScan().run(store, "", v -> {}).clean());
  }

  @Test
  void run_windowQuery_skipsKeysOutsideUncounted() throws Exception {
    InMemoryObjectStore store = new InMemoryObjectStore();
    String old = RunSpec.of("p", new Window(60, 60), 1).outputKey().toString();
    String recent = RunSpec.of("p", new Window(6000, 60), 1).outputKey().toString();
    store.putIfAbsent(old, Payload.ofBytes(new byte[] {1}), "w1");
    store.putIfAbsent(old, Payload.ofBytes(new byte[] {2}), "w2");
    store.putIfAbsent(recent, Payload.ofBytes(new byte[] {1}), "w1");
    ScanSummary s = new DivergenceScan().run(store, HistoryQuery.windows("p", 6000), java.util.Set.of(), v -> {});
    assertEquals(1, s.keys());
    assertTrue(s.clean(), "the divergent key is outside the filter");
  }

  @Test
  void run_pointerNamesDeletedObject_reportedAndNotClean() throws Exception {
    InMemoryObjectStore store = new InMemoryObjectStore();
    RunSpec spec = RunSpec.of("p", new Window(60, 60), 1);
    dev.idem.core.Idem.publisher(store).writer("w").build().publish(spec, Payload.ofBytes(new byte[] {1}));
    RunSpec other = RunSpec.of("q", new Window(60, 60), 1);
    dev.idem.core.Idem.publisher(store).writer("w").build().publish(other, Payload.ofBytes(new byte[] {1}));
    assertTrue(new DivergenceScan().run(store, "", v -> {}).clean());
    store.delete(spec.outputKey().toString());
    store.delete(other.outputKey().toString());
    // p's keys are all gone from the listing, so only an explicit check finds its pointer; q is met
    // through its ledger-less history only in stores that keep history, so ask for both.
    ScanSummary s = new DivergenceScan().run(store, HistoryQuery.under(""), java.util.Set.of("p", "q"), v -> {});
    assertEquals(List.of(spec.outputKey().toString(), other.outputKey().toString()), problemKeys(s));
    assertEquals(PointerTarget.Status.MISSING, s.pointerProblems().get(0).status());
    assertFalse(s.clean());
  }

  /**
   * The pointers of the pipelines met are read at once, not one round trip after another: each read
   * here waits until every pipeline's read has started (a barrier as wide as the pipelines), which a
   * scan reading them in turn never passes. The problems keep the pipelines' order.
   */
  @Test
  void run_severalPipelines_pointersReadAtOnceProblemsInPipelineOrder() throws Exception {
    InMemoryObjectStore memory = new InMemoryObjectStore();
    List<String> keys = new ArrayList<>();
    for (String pipeline : List.of("a", "b", "c", "d")) {
      RunSpec spec = RunSpec.of(pipeline, new Window(60, 60), 1);
      dev.idem.core.Idem.publisher(memory).writer("w").build().publish(spec, Payload.ofBytes(new byte[] {1}));
      keys.add(spec.outputKey().toString());
    }
    for (String key : keys) {
      memory.delete(key);
    }
    java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(4);
    ObjectStore store = new ForwardingObjectStore(memory) {
      @Override
      public java.util.Optional<dev.idem.core.store.PointerState> readPointer(String pipeline) throws IOException {
        try {
          together.await(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
          throw new IOException("the pointer of " + pipeline + " was read alone", e);
        }
        return super.readPointer(pipeline);
      }
    };

    ScanSummary s = new DivergenceScan().run(store, "", v -> {});

    assertEquals(keys, problemKeys(s));
    assertEquals(4, s.pointersExamined());
  }

  @Test
  void run_pipelineMetInHistory_pointerChecked() throws Exception {
    InMemoryObjectStore store = new InMemoryObjectStore();
    RunSpec spec = RunSpec.of("p", new Window(60, 60), 1);
    dev.idem.core.Idem.publisher(store).writer("w").build().publish(spec, Payload.ofBytes(new byte[] {1}));
    store.delete(spec.outputKey().toString());
    // The in-memory store keeps history of deleted keys, so the scan meets pipeline p by itself.
    ScanSummary s = new DivergenceScan().run(store, "", v -> {});
    assertEquals(List.of(spec.outputKey().toString()), problemKeys(s));
  }

  @Test
  void run_pointerNamesReplacedObject_reportedDifferentAndNotClean() throws Exception {
    // An unversioned bucket whose object was replaced: the key exists, but not with the pointer's bytes.
    InMemoryObjectStore store = new InMemoryObjectStore();
    RunSpec spec = RunSpec.of("p", new Window(60, 60), 1);
    String key = spec.outputKey().toString();
    dev.idem.core.Idem.publisher(store).writer("w").build().publish(spec, Payload.ofBytes(new byte[] {1}));
    store.delete(key);
    store.putIfAbsent(key, Payload.ofBytes(new byte[] {2, 2}), "foreign");
    ScanSummary s = new DivergenceScan().run(store, "", v -> {});
    assertEquals(List.of(key), problemKeys(s));
    PointerTarget t = s.pointerProblems().get(0);
    assertEquals(PointerTarget.Status.DIFFERENT, t.status());
    assertEquals(2, t.stored().size());
    assertTrue(t.describe("mem:").contains("but mem: holds sha256 " + t.stored().sha256() + " size 2"), t.describe("mem:"));
    assertFalse(s.clean());
  }

  @Test
  void run_nothingUnderPrefixAndNoPointer_examinedNothingNeverClean() throws Exception {
    InMemoryObjectStore store = new InMemoryObjectStore();
    dev.idem.core.Idem.publisher(store).writer("w").build().publish(RunSpec.of("p", new Window(60, 60), 1), Payload.ofBytes(new byte[] {1}));
    ScanSummary typo = new DivergenceScan().run(store, HistoryQuery.under("pp/"), java.util.Set.of("pp"), v -> {});
    assertTrue(typo.examinedNothing());
    assertFalse(typo.clean(), "a gate never passes on nothing");
    ScanSummary hit = new DivergenceScan().run(store, HistoryQuery.under("p/"), java.util.Set.of("p"), v -> {});
    assertEquals(1, hit.pointersExamined());
    assertFalse(hit.examinedNothing());
    assertTrue(hit.clean());
  }

  @Test
  void run_pointerWithoutKeysUnderTheFilter_examinedAndClean() throws Exception {
    // --since past every window: no key judged, but the pointer was read and matches.
    InMemoryObjectStore store = new InMemoryObjectStore();
    dev.idem.core.Idem.publisher(store).writer("w").build().publish(RunSpec.of("p", new Window(60, 60), 1), Payload.ofBytes(new byte[] {1}));
    ScanSummary s = new DivergenceScan().run(store, HistoryQuery.windows("p", Long.MAX_VALUE), java.util.Set.of("p"), v -> {});
    assertEquals(0, s.keys());
    assertFalse(s.examinedNothing());
    assertTrue(s.clean());
  }

  @Test
  void run_windowWithTwoKeys_reportedAsDriftNotAsDivergence() throws Exception {
    InMemoryObjectStore store = new InMemoryObjectStore();
    RunSpec oldBuild = RunSpec.of("p", new Window(120, 60), 1).withInput("snapshot", "v1");
    RunSpec newBuild = RunSpec.of("p", new Window(120, 60), 1).withInput("snapshot", "v1").withInput("columns", "v2");
    RunSpec alone = RunSpec.of("p", new Window(180, 60), 1);
    RunSpec otherPipeline = RunSpec.of("q", new Window(120, 60), 1);
    for (RunSpec spec : List.of(oldBuild, newBuild, alone, otherPipeline)) {
      store.putIfAbsent(spec.outputKey().toString(), Payload.ofBytes(new byte[] {1}), "w");
    }
    List<WindowDrift> drifts = new ArrayList<>();
    ScanSummary s = new DivergenceScan().run(store, "", new DivergenceScan.Listener() {
      @Override
      public void divergent(KeyVerdict verdict) {
        throw new AssertionError("no key diverged: " + verdict);
      }

      @Override
      public void drift(WindowDrift window) {
        drifts.add(window);
      }
    });
    assertEquals(1, drifts.size(), drifts.toString());
    WindowDrift d = drifts.get(0);
    assertEquals("p", d.pipeline());
    assertEquals(120, d.windowStart());
    assertEquals(java.util.Set.of(oldBuild.outputKey().toString(), newBuild.outputKey().toString()), java.util.Set.copyOf(d.keys()));
    assertEquals(1, s.driftPositions());
    assertTrue(s.clean(), "drift is the caller's to fail on");
  }

  @Test
  void run_driftInTheLastWindow_reportedAtTheEnd() throws Exception {
    InMemoryObjectStore store = new InMemoryObjectStore();
    store.putIfAbsent(RunSpec.of("p", new Window(60, 60), 1).outputKey().toString(), Payload.ofBytes(new byte[] {1}), "w");
    store.putIfAbsent(RunSpec.of("p", new Window(60, 60), 2).outputKey().toString(), Payload.ofBytes(new byte[] {1}), "w");
    assertEquals(1, new DivergenceScan().run(store, "", v -> {}).driftPositions());
  }

  /** Publishes one byte for {@code spec} as a publisher does (the schema travels with the payload). */
  private static void publish(InMemoryObjectStore store, RunSpec spec) throws Exception {
    dev.idem.core.Idem.publisher(store).writer("w").build().publish(spec, Payload.ofBytes(new byte[] {1}));
  }

  private static List<WindowDrift> drifts(InMemoryObjectStore store, ScanSummary[] summary) throws Exception {
    return drifts(store, summary, new ArrayList<>());
  }

  /** The drifts a scan of {@code store} reports; the schema overlaps it reports go to {@code overlaps}. */
  private static List<WindowDrift> drifts(InMemoryObjectStore store, ScanSummary[] summary,
      List<SchemaOverlap> overlaps) throws Exception {
    List<WindowDrift> drifts = new ArrayList<>();
    summary[0] = new DivergenceScan().run(store, "", new DivergenceScan.Listener() {
      @Override
      public void divergent(KeyVerdict verdict) {
        throw new AssertionError("no key diverged: " + verdict);
      }

      @Override
      public void drift(WindowDrift window) {
        drifts.add(window);
      }

      @Override
      public void schemaOverlap(SchemaOverlap window) {
        overlaps.add(window);
      }
    });
    return drifts;
  }

  @Test
  void run_oneWindowTwoSchemas_noDriftReportedAsSchemaOverlap() throws Exception {
    // The overlap of a --schema bump: the old and the new build each publish their own position.
    InMemoryObjectStore store = new InMemoryObjectStore();
    RunSpec oldBuild = RunSpec.of("p", new Window(120, 60), 1).withInput("snapshot", "v1");
    RunSpec newBuild = RunSpec.of("p", new Window(120, 60), 2).withInput("snapshot", "v1").withInput("columns", "v2");
    publish(store, oldBuild);
    publish(store, newBuild);
    publish(store, RunSpec.of("p", new Window(180, 60), 2));
    ScanSummary[] s = new ScanSummary[1];
    List<SchemaOverlap> overlaps = new ArrayList<>();
    assertEquals(List.of(), drifts(store, s, overlaps));
    assertEquals(0, s[0].driftPositions());
    assertEquals(1, overlaps.size(), "the window of one key is not reported: " + overlaps);
    SchemaOverlap o = overlaps.get(0);
    assertEquals(120, o.windowStart());
    java.util.Map<String, Integer> bySchema = new java.util.HashMap<>();
    for (int i = 0; i < o.keys().size(); i++) {
      bySchema.put(o.keys().get(i), o.schemas().get(i));
    }
    assertEquals(java.util.Map.of(oldBuild.outputKey().toString(), 1, newBuild.outputKey().toString(), 2), bySchema);
  }

  @Test
  void run_twoKeysShareASchemaBesideAKeyOfUnknownSchema_positionReportedWithTheUnplacedKey() throws Exception {
    // The position is proven by the two keys of known schema; the third could be anywhere, and is named.
    InMemoryObjectStore store = new InMemoryObjectStore();
    RunSpec a = RunSpec.of("p", new Window(120, 60), 2).withInput("part", "a");
    RunSpec b = RunSpec.of("p", new Window(120, 60), 2).withInput("part", "b");
    String unknown = RunSpec.of("p", new Window(120, 60), 2).withInput("part", "c").outputKey().toString();
    publish(store, a);
    publish(store, b);
    store.putIfAbsent(unknown, Payload.ofBytes(new byte[] {1}), "w");
    ScanSummary[] s = new ScanSummary[1];
    List<SchemaOverlap> overlaps = new ArrayList<>();
    List<WindowDrift> drifts = drifts(store, s, overlaps);
    assertEquals(1, drifts.size(), drifts.toString());
    WindowDrift d = drifts.get(0);
    assertEquals(Integer.valueOf(2), d.schema());
    assertEquals(java.util.Set.of(a.outputKey().toString(), b.outputKey().toString()), java.util.Set.copyOf(d.keys()));
    assertEquals(List.of(unknown), d.unplaced());
    assertEquals(1, s[0].driftPositions());
    assertEquals(List.of(), overlaps);
  }

  @Test
  void run_oneWindowOneSchemaTwoKeys_driftNamesTheSchema() throws Exception {
    InMemoryObjectStore store = new InMemoryObjectStore();
    RunSpec oldBuild = RunSpec.of("p", new Window(120, 60), 2).withInput("snapshot", "v1");
    RunSpec newBuild = RunSpec.of("p", new Window(120, 60), 2).withInput("snapshot", "v1").withInput("columns", "v2");
    publish(store, oldBuild);
    publish(store, newBuild);
    publish(store, RunSpec.of("p", new Window(120, 60), 3).withInput("snapshot", "v1"));
    ScanSummary[] s = new ScanSummary[1];
    List<WindowDrift> drifts = drifts(store, s);
    assertEquals(1, drifts.size(), drifts.toString());
    assertEquals(Integer.valueOf(2), drifts.get(0).schema());
    assertEquals(java.util.Set.of(oldBuild.outputKey().toString(), newBuild.outputKey().toString()),
        java.util.Set.copyOf(drifts.get(0).keys()));
    assertEquals(1, s[0].driftPositions());
  }

  @Test
  void run_schemaUnknownInTheWindow_fallsBackToTheWindow() throws Exception {
    // A legacy store (or a writer that recorded no schema) beside a key with a known schema: the
    // unknown key may share either position, so the window is judged whole and says so.
    InMemoryObjectStore store = new InMemoryObjectStore();
    RunSpec known = RunSpec.of("p", new Window(120, 60), 1);
    String legacy = RunSpec.of("p", new Window(120, 60), 2).outputKey().toString();
    publish(store, known);
    store.putIfAbsent(legacy, Payload.ofBytes(new byte[] {1}), "w");
    ScanSummary[] s = new ScanSummary[1];
    List<WindowDrift> drifts = drifts(store, s);
    assertEquals(1, drifts.size(), drifts.toString());
    assertEquals(null, drifts.get(0).schema());
    assertEquals(java.util.Set.of(known.outputKey().toString(), legacy), java.util.Set.copyOf(drifts.get(0).keys()));
    assertEquals(List.of(legacy), drifts.get(0).unplaced());
  }

  @Test
  void run_slowListingOfKeysOutsideTheWindows_deadlineStopsItIncomplete() throws Exception {
    // Every listed key costs 500 ms of the injected clock (a slow store); none is in the queried range.
    // Checking the deadline only for keys that pass the filter walked all 100; now the walk stops
    // after 2 s of listing plus the key in flight.
    InMemoryObjectStore backing = new InMemoryObjectStore();
    for (int i = 1; i <= 100; i++) {
      backing.putIfAbsent(RunSpec.of("p", new Window(60L * i, 60), 1).outputKey().toString(),
          Payload.ofBytes(new byte[] {1}), "w");
    }
    Instant[] now = {Instant.parse("2024-09-10T00:00:00Z")};
    Clock clock = new Clock() {
      @Override public java.time.ZoneId getZone() { return java.time.ZoneOffset.UTC; }
      @Override public Clock withZone(java.time.ZoneId zone) { return this; }
      @Override public Instant instant() { return now[0]; }
    };
    int[] listed = {0};
    ObjectStore slow = new ForwardingObjectStore(backing) {
      @Override
      public boolean history(String prefix, HistoryVisitor visitor) throws IOException {
        return backing.history(prefix, h -> {
          listed[0]++;
          now[0] = now[0].plusMillis(500);
          return visitor.visit(h);
        });
      }
    };
    ScanSummary s = new DivergenceScan(clock, 0, Duration.ofSeconds(2))
        .run(slow, HistoryQuery.windows("p", 1_000_000), java.util.Set.of(), v -> {});
    assertEquals(4, listed[0], "2 s at 500 ms per listed key");
    assertEquals(0, s.keys());
    assertFalse(s.complete());
    assertFalse(s.clean());
  }

  @Test
  void run_requestInFlightCutByTheDeadline_incompleteAndNoPointerRead() throws Exception {
    InMemoryObjectStore backing = new InMemoryObjectStore();
    for (int i = 1; i <= 5; i++) {
      backing.putIfAbsent(RunSpec.of("p", new Window(60L * i, 60), 1).outputKey().toString(),
          Payload.ofBytes(new byte[] {1}), "w");
    }
    Instant[] now = {Instant.parse("2024-09-10T00:00:00Z")};
    Clock clock = new Clock() {
      @Override public java.time.ZoneId getZone() { return java.time.ZoneOffset.UTC; }
      @Override public Clock withZone(java.time.ZoneId zone) { return this; }
      @Override public Instant instant() { return now[0]; }
    };
    int[] pointerReads = {0};
    long[] nanos = {0};
    Deadline overall = Deadline.after(Duration.ofSeconds(10), "--max-time", () -> nanos[0]);
    // Two keys come back, then the next listing request is cut where the store's deadline (the scan's own) ran out.
    ObjectStore cut = new ForwardingObjectStore(backing) {
      @Override
      public boolean history(HistoryQuery query, HistoryVisitor visitor) throws IOException {
        int[] seen = {0};
        return backing.history(query, h -> {
          if (++seen[0] == 3) {
            now[0] = now[0].plusSeconds(10);
            nanos[0] += Duration.ofSeconds(10).toNanos();
            throw new DeadlineExceededException("GET /?versions: the 10s deadline ran out after 1 attempt", 1, null,
                overall);
          }
          return visitor.visit(h);
        });
      }

      @Override
      public java.util.Optional<dev.idem.core.store.PointerState> readPointer(String pipeline) throws IOException {
        pointerReads[0]++;
        return super.readPointer(pipeline);
      }
    };
    List<IOException> stops = new ArrayList<>();
    ScanSummary s = new DivergenceScan(clock, 0, null).within(overall).run(cut, HistoryQuery.under("p/"),
        java.util.Set.of("p"), new DivergenceScan.Listener() {
          @Override
          public void divergent(KeyVerdict v) {}

          @Override
          public void stopped(DeadlineExceededException cause) {
            stops.add(cause);
          }
        });
    assertEquals(2, s.keys());
    assertFalse(s.complete());
    assertFalse(s.clean());
    assertEquals(0, pointerReads[0], "no request after the deadline");
    assertEquals(1, stops.size());
    assertTrue(stops.get(0).getMessage().contains("the 10s deadline ran out"), stops.toString());
  }

  @Test
  void run_deadlineOfAnotherWait_isAFailure() throws Exception {
    InMemoryObjectStore backing = new InMemoryObjectStore();
    backing.putIfAbsent(RunSpec.of("p", new Window(60, 60), 1).outputKey().toString(), Payload.ofBytes(new byte[] {1}), "w");
    ObjectStore failing = new ForwardingObjectStore(backing) {
      @Override
      public boolean history(HistoryQuery query, HistoryVisitor visitor) throws IOException {
        throw new DeadlineExceededException("a lock's 1s wait ran out", 1, null, null);
      }
    };
    Deadline overall = Deadline.after(Duration.ofHours(1), "--max-time");
    IOException e = assertThrows(IOException.class, () -> new DivergenceScan(Clock.systemUTC(), 0, null).within(overall)
        .run(failing, HistoryQuery.under(""), java.util.Set.of(), v -> {}));
    assertEquals("a lock's 1s wait ran out", e.getMessage());
  }

  private static List<String> problemKeys(ScanSummary s) {
    return s.pointerProblems().stream().map(t -> t.pointer().key()).toList();
  }
}
