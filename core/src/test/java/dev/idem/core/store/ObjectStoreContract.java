package dev.idem.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.publish.AdvanceReport;
import dev.idem.core.publish.AdvanceStatus;
import dev.idem.core.publish.ClosedWindowGuard;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.publish.PointerRewinder;
import dev.idem.core.publish.RewindStatus;
import dev.idem.core.scan.KeyVerdict;
import dev.idem.core.testing.Race;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link ObjectStore} must have, as one suite each store runs (contracts P1–P4,
 * G1–G3 of docs/DESIGN.md). A store's test class extends this and supplies a fresh, empty store. The
 * cases of history, retirement marks and acknowledgements expect the store to have those capabilities
 * ({@link PublishHistory}, {@link RetirementMarks}).
 *
 * <p>Stores whose pointer compare-and-swap cannot be tested for atomicity under concurrency on the
 * test server (S3Proxy's {@code If-Match} is not atomic) override {@link #pointerCasIsAtomic()}.
 */
public abstract class ObjectStoreContract {

  /** A new, empty store; closed after each test. */
  protected abstract ObjectStore newStore() throws Exception;

  /** Whether concurrent pointer advances may be tested against this store. */
  protected boolean pointerCasIsAtomic() {
    return true;
  }

  /** Threads used by the concurrency tests. */
  protected int threads() {
    return 8;
  }

  protected ObjectStore store;

  @BeforeEach
  void openStore() throws Exception {
    store = newStore();
  }

  @AfterEach
  void closeStore() throws IOException {
    if (store != null) {
      store.close();
    }
  }

  protected static String key(String pipeline, long windowStart) {
    return RunSpec.of(pipeline, new Window(windowStart, 60), 1).outputKey().toString();
  }

  protected static Payload bytes(String s) {
    return Payload.ofBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  /** The store's publish history; every store this suite runs against has one. */
  protected PublishHistory history() {
    return store.publishHistory().orElseThrow();
  }

  /** The store's retirement marks; every store this suite runs against keeps them. */
  protected RetirementMarks marks() {
    return store.retirementMarks().orElseThrow();
  }

  protected static byte[] read(ObjectStore store, String key) throws IOException {
    Optional<InputStream> in = store.open(key);
    assertTrue(in.isPresent(), "expected an object at " + key);
    try (InputStream s = in.get()) {
      return s.readAllBytes();
    }
  }

  protected Pointer pointerTo(String pipeline, long windowStart, int schema) throws IOException {
    String k = RunSpec.of(pipeline, new Window(windowStart, 60), schema).outputKey().toString();
    if (!store.exists(k)) {
      store.putIfAbsent(k, bytes("gen " + windowStart + "/" + schema), "writer-1");
    }
    return Pointer.to(store.stat(k).orElseThrow(), 60, schema, "writer-1", Instant.EPOCH);
  }

  // --- putIfAbsent ---

  @Test
  void putIfAbsent_newKey_created() throws IOException {
    String k = key("orders", 1_726_000_000L);
    PutOutcome out = store.putIfAbsent(k, bytes("alpha"), "writer-a");
    assertEquals(PutStatus.CREATED, out.status());
    assertEquals(k, out.stored().key());
    assertEquals(5, out.stored().size());
    assertArrayEquals("alpha".getBytes(StandardCharsets.UTF_8), read(store, k));
    assertTrue(store.exists(k));
    ObjectInfo info = store.stat(k).orElseThrow();
    assertEquals(bytes("alpha").sha256(), info.sha256());
    assertEquals("writer-a", info.writer());
  }

  @Test
  void putIfAbsent_sameBytes_identicalAndNothingChanges() throws IOException {
    String k = key("orders", 60);
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    PutOutcome second = store.putIfAbsent(k, bytes("alpha"), "writer-b");
    assertEquals(PutStatus.IDENTICAL, second.status());
    assertNull(second.evidenceKey());
    assertEquals("writer-a", store.stat(k).orElseThrow().writer());
  }

  @Test
  void putIfAbsent_differentBytes_divergentFirstBytesKept() throws IOException {
    String k = key("orders", 120);
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    PutOutcome second = store.putIfAbsent(k, bytes("beta"), "writer-b");
    assertEquals(PutStatus.DIVERGENT, second.status());
    assertEquals(bytes("beta").sha256(), second.attemptSha256());
    assertEquals(bytes("alpha").sha256(), second.stored().sha256());
    assertArrayEquals("alpha".getBytes(StandardCharsets.UTF_8), read(store, k), "P2: no clobber");
  }

  @Test
  void putIfAbsent_divergent_evidenceInHistory() throws IOException {
    String k = key("orders", 180);
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    store.putIfAbsent(k, bytes("beta"), "writer-b");
    store.putIfAbsent(k, bytes("alpha"), "writer-c");
    List<KeyHistory> seen = new ArrayList<>();
    history().history("orders/", h -> seen.add(h));
    assertEquals(1, seen.size(), "one key: " + seen);
    KeyVerdict v = KeyVerdict.of(seen.get(0));
    assertTrue(v.divergent(), "P4: the scan must see the divergent attempt: " + seen);
    assertEquals(2, v.payloads());
    String betaSha = bytes("beta").sha256();
    assertTrue(seen.get(0).entries().stream().anyMatch(e ->
            e.kind() == HistoryEntry.Kind.DIVERGENT_ATTEMPT && betaSha.equals(e.sha256())),
        "divergent attempt recorded with its hash: " + seen);
  }

  @Test
  void putIfAbsent_reservedOrEscapingKey_rejectedNothingWritten() throws IOException {
    for (String bad : List.of("../escape", "a/../../b", "/abs", "a//b", "_idem/pointers/x", "./a", "a\\b", "")) {
      assertThrows(IllegalArgumentException.class, () -> store.putIfAbsent(bad, bytes("x"), "writer-a"), bad);
    }
    List<String> keys = new ArrayList<>();
    store.list("", o -> keys.add(o.key()));
    assertEquals(List.of(), keys);
  }

  @Test
  void putIfAbsent_concurrentIdentical_exactlyOneCreated() throws Exception {
    String k = key("race", 600);
    List<PutOutcome> outs = Race.run(threads(), i -> store.putIfAbsent(k, bytes("same"), "writer-" + i));
    assertEquals(1, outs.stream().filter(o -> o.status() == PutStatus.CREATED).count(), "P3: " + outs);
    assertEquals(threads() - 1, outs.stream().filter(o -> o.status() == PutStatus.IDENTICAL).count(), "P3: " + outs);
    assertArrayEquals("same".getBytes(StandardCharsets.UTF_8), read(store, k));
  }

  @Test
  void putIfAbsent_concurrentDivergent_oneWinnerOthersDivergent() throws Exception {
    String k = key("race", 660);
    List<PutOutcome> outs = Race.run(threads(), i -> store.putIfAbsent(k, bytes("payload-" + i), "writer-" + i));
    List<PutOutcome> created = outs.stream().filter(o -> o.status() == PutStatus.CREATED).toList();
    assertEquals(1, created.size(), "P3: " + outs);
    assertEquals(threads() - 1, outs.stream().filter(o -> o.status() == PutStatus.DIVERGENT).count(), "P3: " + outs);
    assertEquals(created.get(0).attemptSha256(), sha256Of(read(store, k)), "stored bytes are the winner's");
    List<KeyHistory> seen = new ArrayList<>();
    history().history(k, h -> seen.add(h));
    assertEquals(threads(), KeyVerdict.of(seen.get(0)).payloads(), "P4: every divergent attempt kept: " + seen);
  }

  // --- reads ---

  @Test
  void open_missing_empty() throws IOException {
    String k = key("orders", 240);
    assertTrue(store.open(k).isEmpty());
    assertTrue(store.stat(k).isEmpty());
    assertFalse(store.exists(k));
  }

  // --- pointer ---

  @Test
  void readPointer_none_empty() throws IOException {
    assertTrue(store.readPointer("orders").isEmpty());
  }

  @Test
  void compareAndSetPointer_createThenReplace_roundTrips() throws IOException {
    Pointer first = pointerTo("orders", 60, 1);
    assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", null, first));
    PointerState s1 = store.readPointer("orders").orElseThrow();
    assertEquals(first, s1.pointer());
    Pointer second = pointerTo("orders", 120, 1);
    assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", s1.token(), second));
    assertEquals(second, store.readPointer("orders").orElseThrow().pointer());
  }

  @Test
  void compareAndSetPointer_staleToken_conflictNothingWritten() throws IOException {
    Pointer first = pointerTo("orders", 60, 1);
    store.compareAndSetPointer("orders", null, first);
    String stale = store.readPointer("orders").orElseThrow().token();
    store.compareAndSetPointer("orders", stale, pointerTo("orders", 120, 1));
    assertEquals(CasResult.CONFLICT, store.compareAndSetPointer("orders", stale, pointerTo("orders", 180, 1)));
    assertEquals(120, store.readPointer("orders").orElseThrow().pointer().windowStart());
  }

  @Test
  void compareAndSetPointer_expectAbsentButPresent_conflict() throws IOException {
    store.compareAndSetPointer("orders", null, pointerTo("orders", 60, 1));
    assertEquals(CasResult.CONFLICT, store.compareAndSetPointer("orders", null, pointerTo("orders", 120, 1)));
  }

  @Test
  void advance_olderGeneration_newerPresentNotRegressed() throws IOException {
    PointerAdvancer adv = new PointerAdvancer(store);
    assertEquals(AdvanceStatus.ADVANCED, adv.advance(pointerTo("orders", 120, 2)).status());
    assertEquals(AdvanceStatus.NEWER_PRESENT, adv.advance(pointerTo("orders", 60, 9)).status());
    assertEquals(AdvanceStatus.NEWER_PRESENT, adv.advance(pointerTo("orders", 120, 1)).status());
    assertEquals(AdvanceStatus.ALREADY_CURRENT, adv.advance(pointerTo("orders", 120, 2)).status());
    assertEquals(AdvanceStatus.ADVANCED, adv.advance(pointerTo("orders", 120, 3)).status());
    assertEquals(new Pointer.Position(120, 3), store.readPointer("orders").orElseThrow().pointer().position());
  }

  @Test
  void advance_concurrentWriters_endsAtMaximumNoLostUpdate() throws Exception {
    Assumptions.assumeTrue(pointerCasIsAtomic(), "this store's test server has no atomic pointer CAS");
    int n = threads();
    List<Pointer> offered = new ArrayList<>();
    for (int i = 0; i < n * 3; i++) {
      offered.add(pointerTo("contended", 60L * (1 + (i * 7) % (n * 3)), 1));
    }
    PointerAdvancer adv = new PointerAdvancer(store, 1000, 1);
    List<AdvanceReport> reports = Collections.synchronizedList(new ArrayList<>());
    Race.run(n, i -> {
      for (int j = i; j < offered.size(); j += n) {
        reports.add(adv.advance(offered.get(j)));
      }
      return null;
    });
    Pointer.Position max = offered.stream().map(Pointer::position).max(Pointer.Position::compareTo).orElseThrow();
    assertEquals(max, store.readPointer("contended").orElseThrow().pointer().position(), "G3: " + reports);
    assertFalse(reports.stream().anyMatch(r -> r.status().gaveUp()), "no advance gave up: " + reports);
  }

  @Test
  void rewind_recordRoundTripsThroughTheStoreAndSurvivesTheNextAdvance() throws IOException {
    PointerAdvancer adv = new PointerAdvancer(store);
    Pointer good = pointerTo("orders", 60, 1);
    Pointer bad = pointerTo("orders", 180, 1);
    adv.advance(good);
    adv.advance(bad);
    ClosedWindowGuard guard = ClosedWindowGuard.systemDefault();
    assertEquals(RewindStatus.REWOUND, new PointerRewinder(store, guard).rewind(good, bad.key(), "ops-1", "bad build").status());
    Pointer rewound = store.readPointer("orders").orElseThrow().pointer();
    assertEquals(good.key(), rewound.key());
    assertEquals(bad.key(), rewound.rewind().from());
    assertEquals("bad build", rewound.rewind().reason());
    assertEquals(AdvanceStatus.ADVANCED, adv.advance(pointerTo("orders", 120, 1)).status());
    Pointer after = store.readPointer("orders").orElseThrow().pointer();
    assertEquals(120, after.windowStart());
    assertEquals(rewound.rewind(), after.rewind());
    assertEquals(RewindStatus.POINTER_MOVED,
        new PointerRewinder(store, guard).rewind(good, bad.key(), "ops-1", "again").status(), "expects a key no longer there");
  }

  @Test
  void peekPointer_namesWhatThePointerNames_afterEachAdvanceAndRewind() throws IOException {
    assertTrue(store.peekPointer("orders").isEmpty());
    PointerAdvancer adv = new PointerAdvancer(store);
    Pointer good = pointerTo("orders", 60, 1);
    Pointer bad = pointerTo("orders", 180, 1);
    adv.advance(good);
    assertEquals(store.readPointer("orders").orElseThrow().pointer(), store.peekPointer("orders").orElseThrow());
    adv.advance(bad);
    assertEquals(bad, store.peekPointer("orders").orElseThrow());
    new PointerRewinder(store, ClosedWindowGuard.systemDefault()).rewind(good, bad.key(), "ops-1", "bad build");
    Pointer rewound = store.readPointer("orders").orElseThrow().pointer();
    assertEquals(rewound, store.peekPointer("orders").orElseThrow(), "a rewind is seen too");
    assertTrue(store.peekPointer("other").isEmpty());
  }

  @Test
  void checkWritable_newStore_passesAndLeavesNothingVisible() throws IOException {
    store.checkWritable();
    List<String> seen = new ArrayList<>();
    store.list("", o -> seen.add(o.key()));
    history().history("", h -> seen.add(h.key()));
    assertEquals(List.of(), seen, "the check is invisible to listings and the scan");
    assertTrue(store.readPointer("orders").isEmpty());
  }

  // --- history and listing ---

  @Test
  void history_severalKeys_oneGroupPerKeyAscending() throws IOException {
    List<String> keys = new ArrayList<>(List.of(key("b", 60), key("a", 120), key("a", 60), key("ab", 60)));
    for (String k : keys) {
      store.putIfAbsent(k, bytes(k), "writer-a");
    }
    Collections.sort(keys);
    List<String> seen = new ArrayList<>();
    assertTrue(history().history("", h -> seen.add(h.key())));
    assertEquals(keys, seen);
    List<String> onlyA = new ArrayList<>();
    history().history("a/", h -> onlyA.add(h.key()));
    assertEquals(keys.stream().filter(k -> k.startsWith("a/")).toList(), onlyA);
  }

  @Test
  void history_keysSharingAWindow_recordTheSchemaOfEachPublish() throws IOException {
    // A schema bump's overlap: two keys in one window; the scan needs each one's schema (G2 position).
    String one = RunSpec.of("orders", new Window(420, 60), 1).outputKey().toString();
    String two = RunSpec.of("orders", new Window(420, 60), 2).outputKey().toString();
    store.putIfAbsent(one, bytes("rows").withSchema(1), "writer-a");
    store.putIfAbsent(two, bytes("rows,cols").withSchema(2), "writer-a");
    assertEquals(PutStatus.DIVERGENT, store.putIfAbsent(two, bytes("other").withSchema(2), "writer-b").status());
    Map<String, KeyHistory> seen = new HashMap<>();
    history().history("orders/", h -> seen.put(h.key(), h) == null);
    assertEquals(Integer.valueOf(1), seen.get(one).schema(), seen.toString());
    assertEquals(Integer.valueOf(2), seen.get(two).schema(), seen.toString());
    assertTrue(seen.get(two).entries().stream().anyMatch(e ->
            e.kind() == HistoryEntry.Kind.DIVERGENT_ATTEMPT && Integer.valueOf(2).equals(e.schema())),
        "the divergent attempt's evidence carries its schema too: " + seen.get(two));
  }

  @Test
  void history_payloadWithoutSchema_schemaUnknown() throws IOException {
    String one = RunSpec.of("orders", new Window(480, 60), 1).outputKey().toString();
    String two = RunSpec.of("orders", new Window(480, 60), 2).outputKey().toString();
    store.putIfAbsent(one, bytes("rows"), "writer-a");
    store.putIfAbsent(two, bytes("rows,cols"), "writer-a");
    List<Integer> schemas = new ArrayList<>();
    history().history("orders/", h -> schemas.add(h.schema()));
    assertEquals(Arrays.asList(null, null), schemas);
  }

  @Test
  void history_visitorStops_returnsFalse() throws IOException {
    store.putIfAbsent(key("a", 60), bytes("1"), "writer-a");
    store.putIfAbsent(key("a", 120), bytes("2"), "writer-a");
    int[] visits = {0};
    assertFalse(history().history("", h -> ++visits[0] < 1));
    assertEquals(1, visits[0]);
  }

  @Test
  void list_afterPuts_ascendingWithSizes() throws IOException {
    store.putIfAbsent(key("z", 60), bytes("12345"), "writer-a");
    store.putIfAbsent(key("y", 60), bytes("1"), "writer-a");
    List<ListedObject> seen = new ArrayList<>();
    store.list("", seen::add);
    assertEquals(List.of(key("y", 60), key("z", 60)), seen.stream().map(ListedObject::key).toList());
    assertEquals(5, seen.get(1).size());
  }

  @Test
  void delete_existing_goneAndRepublishable() throws IOException {
    String k = key("orders", 300);
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    assertTrue(store.delete(k));
    assertFalse(store.exists(k));
    assertTrue(store.open(k).isEmpty());
    assertFalse(store.delete(k));
    assertEquals(PutStatus.CREATED, store.putIfAbsent(k, bytes("alpha"), "writer-a").status());
  }

  @Test
  void deleteRecords_divergentKeyDeleted_evidenceGoneFromHistory() throws IOException {
    String k = key("orders", 360);
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    assertEquals(PutStatus.DIVERGENT, store.putIfAbsent(k, bytes("omega"), "writer-b").status());
    store.delete(k);

    assertTrue(history().deleteRecords(k) >= 1, "at least the divergent attempt's evidence");

    List<HistoryEntry> left = new ArrayList<>();
    history().history(k, h -> left.addAll(h.entries()));
    assertFalse(left.stream().anyMatch(e -> e.kind() == HistoryEntry.Kind.DIVERGENT_ATTEMPT), left.toString());
    assertEquals(0, history().deleteRecords(k), "removing nothing is not an error");
  }

  // --- retirement mark ---

  @Test
  void retirement_noneThenRaisedForwardOnlyPerPipeline() throws IOException {
    Instant at = Instant.parse("2026-01-01T00:00:00Z");
    assertTrue(marks().readRetirement("orders").isEmpty());
    Retirement first = new Retirement("orders", 120, at, "gc a");
    assertEquals(first, marks().raiseRetirement(first));
    assertEquals(first, marks().raiseRetirement(new Retirement("orders", 60, at.plusSeconds(1), "gc b")),
        "a lower mark never replaces a higher one");
    assertEquals(first, marks().raiseRetirement(new Retirement("orders", 120, at.plusSeconds(2), "gc c")),
        "an equal one neither");
    Retirement higher = new Retirement("orders", 180, at.plusSeconds(3), "gc d");
    assertEquals(higher, marks().raiseRetirement(higher));
    assertEquals(higher, marks().readRetirement("orders").orElseThrow());
    assertTrue(marks().readRetirement("other").isEmpty(), "one mark per pipeline");
    List<String> visible = new ArrayList<>();
    history().history("", h -> visible.add(h.key()));
    store.list("", o -> visible.add(o.key()));
    assertEquals(List.of(), visible, "the mark is the store's own: never listed as a key");
  }

  @Test
  void retirement_concurrentRaises_endAtTheHighest() throws Exception {
    int n = threads();
    Instant at = Instant.parse("2026-01-01T00:00:00Z");
    Race.run(n, i -> marks().raiseRetirement(new Retirement("contended", 60L * ((i * 5) % n), at, "gc " + i)));
    assertEquals(60L * (n - 1), marks().readRetirement("contended").orElseThrow().windowStart());
  }

  @Test
  void retirement_windowPublishedAgainAfterGc_republishedNotDivergent() throws IOException {
    String k = key("orders", 600);
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    // What gc does: raise the mark (stamped with the run's start, before the deletes), delete, drop records.
    Retirement mark = new Retirement("orders", 600, Instant.now().minusSeconds(30), "contract");
    marks().raiseRetirement(mark);
    assertTrue(store.delete(k));
    history().deleteRecords(k);

    assertEquals(PutStatus.CREATED, store.putIfAbsent(k, bytes("omega, rebuilt"), "writer-b").status());

    List<KeyHistory> seen = new ArrayList<>();
    history().history("orders/", seen::add);
    assertEquals(1, seen.size(), seen.toString());
    KeyVerdict v = KeyVerdict.of(seen.get(0), marks().readRetirement("orders").orElseThrow());
    assertFalse(v.divergent(), v.toString());
    assertTrue(v.republished(), v.toString());
  }

  // --- acknowledgements and pipelines ---

  private static Acknowledgement ack(String key, String by, Instant at) {
    return new Acknowledgement(key, new TreeSet<>(List.of("sha256:" + "a".repeat(64), "sha256:" + "b".repeat(64))),
        1, by, at, "INC-42: input added to the key");
  }

  @Test
  void acknowledge_recordsEachCreateOnlyListedByPrefixKeyOrderAndKeepsTheEvidence() throws IOException {
    String k = key("orders", 720);
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    assertEquals(PutStatus.DIVERGENT, store.putIfAbsent(k, bytes("omega"), "writer-b").status());
    String other = key("other", 60);
    assertEquals(List.of(), history().acknowledgements(""));

    Acknowledgement first = ack(k, "ops-alice", Instant.parse("2026-12-02T15:40:08Z"));
    history().acknowledge(first);
    Acknowledgement second = ack(k, "ops-bob", Instant.parse("2026-12-02T15:41:00Z"));
    history().acknowledge(second);
    Acknowledgement third = ack(other, "ops-bob", Instant.parse("2026-12-02T15:42:00Z"));
    history().acknowledge(third);

    assertEquals(List.of(first, second, third), history().acknowledgements(""), "key ascending, each key's oldest first");
    assertEquals(List.of(first, second), history().acknowledgements("orders/"));
    assertEquals(List.of(third), history().acknowledgements("other/"));
    assertEquals(List.of(), history().acknowledgements("nothing/"));

    List<HistoryEntry> entries = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    history().history("", h -> keys.add(h.key()) && entries.addAll(h.entries()));
    assertEquals(List.of(k), keys, "an acknowledgement is the store's own: never listed as a key");
    assertTrue(entries.stream().anyMatch(e -> e.kind() == HistoryEntry.Kind.DIVERGENT_ATTEMPT),
        "the evidence stays: " + entries);
    List<String> listed = new ArrayList<>();
    store.list("", o -> listed.add(o.key()));
    assertEquals(List.of(k), listed);
  }

  @Test
  void schemaOf_theSchemaThePublishDeclared() throws IOException {
    String k = key("orders", 780);
    assertEquals(Optional.empty(), history().schemaOf(k));
    store.putIfAbsent(k, bytes("alpha").withSchema(7), "writer-a");
    assertEquals(Optional.of(7), history().schemaOf(k));
    String none = key("orders", 840);
    store.putIfAbsent(none, bytes("beta"), "writer-a");
    assertEquals(Optional.empty(), history().schemaOf(none), "a publish that declared none");
  }

  @Test
  void pipelines_pointersAndObjects_ascendingOnceEach() throws IOException {
    assertEquals(List.of(), List.copyOf(store.pipelines()));
    store.putIfAbsent(key("orders", 60), bytes("o"), "writer-a");
    store.putIfAbsent(key("orders", 120), bytes("o2"), "writer-a");
    Pointer p = pointerTo("border-state", 60, 1);
    assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("border-state", null, p));
    assertEquals(List.of("border-state", "orders"), List.copyOf(store.pipelines()));
  }

  // --- helpers ---

  private static String sha256Of(byte[] b) {
    String s = dev.idem.core.Sha256.of(b);
    assertNotNull(s);
    return s;
  }
}
