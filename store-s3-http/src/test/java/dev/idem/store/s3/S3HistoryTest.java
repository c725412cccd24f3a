package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Sha256;
import dev.idem.core.Window;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.scan.Basis;
import dev.idem.core.scan.KeyVerdict;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.HistoryQuery;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.ListedObject;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.store.s3.internal.client.KeyOrder;
import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.testing.OnEachS3Server;
import dev.idem.store.s3.testing.S3Implementation;
import dev.idem.store.s3.testing.S3TestServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;

/**
 * History and listing on each S3 implementation: ListObjectVersions paged 7 entries at a time across keys that
 * span pages, legacy overwrites, delete markers, divergence evidence merged in key order, the store's
 * own {@code _idem/} area skipped, and SHA-256s resolved without a HEAD per version.
 */
@OnEachS3Server
class S3HistoryTest {
  private static final int PAGE = 7;
  private static final int MIB = 1024 * 1024;
  private static final String LEGACY_DIVERGENT = "legacy/fixed.json";
  private static final String LEGACY_SAME = "legacy/same.json";
  private static final String EARLY = "A/early.txt";
  @Parameter
  S3Implementation implementation;

  private static S3TestServer s3;
  /** The server whose shared bucket the fields describe ({@link #populated}). */
  private static S3Implementation populatedOn;
  private static String bucket;
  private static final AtomicInteger requests = new AtomicInteger();

  @BeforeEach
  void server() throws IOException {
    s3 = implementation.shared();
  }

  /**
   * The shared bucket's keys, published by idem: set up by the first case on a server that asks for it,
   * so the cases with buckets of their own run without it (and on a server idem refuses to write to).
   */
  private void populated() throws IOException {
    if (populatedOn == implementation) {
      return;
    }
    populatedOn = null;
    bucket = s3.createBucket(true);
    try (S3ObjectStore store = open(S3StoreOptions.builder().pointerMode(PointerMode.LOG)
        .multipartThreshold(5 * MIB).partSize(5 * MIB).build())) {
      for (String body : List.of("a", "b", "a")) {
        plainPut(LEGACY_DIVERGENT, body);
      }
      for (int i = 0; i < 3; i++) {
        plainPut(LEGACY_SAME, "same");
      }
      plainPut(EARLY, "early");
      for (int i = 0; i < 20; i++) {
        store.putIfAbsent(key(300 + 60L * i), text("gen " + i), "host-a");
      }
      store.putIfAbsent(key(120), text("alpha"), "host-a");
      store.putIfAbsent(key(120), text("beta"), "host-b");
      byte[] big = new byte[6 * MIB];
      new Random(7).nextBytes(big);
      try (S3ObjectStore singlePart = open(S3StoreOptions.defaults())) {
        singlePart.putIfAbsent(key(180), Payload.ofBytes(big), "host-a");
        singlePart.delete(key(180));
      }
      store.putIfAbsent(key(180), Payload.ofBytes(big), "host-b");
      store.putIfAbsent(key(240), text("gone"), "host-a");
      store.delete(key(240));
      PointerAdvancer adv = new PointerAdvancer(store);
      for (int i = 0; i < 3; i++) {
        adv.advance(Pointer.to(store.stat(key(300 + 60L * i)).orElseThrow(), 60, 1, "host-a", Instant.EPOCH));
      }
      // evidence for a key whose object is gone from the listing entirely
      s3.client().put(bucket, "p/_idem/evidence/" + key(60) + "!" + Sha256.EMPTY, RequestBody.empty(), null,
          Map.of("idem-sha256", Sha256.EMPTY, "idem-writer", "host-z"));
    }
    populatedOn = implementation;
  }

  private static S3ObjectStore open(S3StoreOptions options) {
    CredentialsProvider counting = () -> {
      requests.incrementAndGet();
      return AwsCredentials.of(S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY);
    };
    return S3ObjectStore.open(s3.location(bucket, "p"), counting, options.toBuilder().pageSize(PAGE).build());
  }

  private static void plainPut(String key, String body) throws IOException {
    s3.client().put(bucket, "p/" + key, RequestBody.ofBytes(body.getBytes(StandardCharsets.UTF_8)), null, Map.of());
  }

  private static String key(long windowStart) {
    return RunSpec.of("orders", new Window(windowStart, 60), 1).outputKey().toString();
  }

  private static Payload text(String s) {
    return Payload.ofBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  private static Map<String, KeyHistory> history(S3StoreOptions options, String prefix) throws IOException {
    Map<String, KeyHistory> out = new TreeMap<>();
    List<String> order = new ArrayList<>();
    try (S3ObjectStore store = open(options)) {
      assertTrue(store.history(prefix, h -> {
        order.add(h.key());
        out.put(h.key(), h);
        return true;
      }));
    }
    assertEquals(new ArrayList<>(out.keySet()), order, "ascending, one group per key");
    return out;
  }

  /** A version deleted by id is gone from the history, where a plain delete only adds a marker above it. */
  @Test
  void deleteVersion_removesThatVersionForGood_aMissingOneIsNoError() throws IOException {
    String own = s3.createBucket(true);
    s3.client().put(own, "k", RequestBody.ofBytes("one".getBytes(StandardCharsets.US_ASCII)), null, Map.of());
    s3.client().put(own, "k", RequestBody.ofBytes("two".getBytes(StandardCharsets.US_ASCII)), null, Map.of());
    s3.client().delete(own, "k");
    List<dev.idem.store.s3.internal.client.ObjectVersion> all = s3.client().listVersions(own, "", null, null, 1000).versions();
    assertEquals(List.of(true, false, false), all.stream().map(v -> v.deleteMarker()).toList(), all.toString());

    s3.client().deleteVersion(own, "k", all.get(2).versionId());
    assertEquals(all.subList(0, 2), s3.client().listVersions(own, "", null, null, 1000).versions());
    s3.client().deleteVersion(own, "k", all.get(0).versionId());
    s3.client().deleteVersion(own, "k", all.get(1).versionId());
    assertEquals(List.of(), s3.client().listVersions(own, "", null, null, 1000).versions());
    s3.client().deleteVersion(own, "k", all.get(1).versionId());
  }

  @Test
  void history_pagedBySeven_everyKeyOnceInOrderInternalAreaSkipped() throws IOException {
    populated();
    Map<String, KeyHistory> h = history(S3StoreOptions.defaults(), "");
    List<String> expected = new ArrayList<>(List.of(EARLY, LEGACY_DIVERGENT, LEGACY_SAME, key(60), key(120), key(180),
        key(240)));
    for (int i = 0; i < 20; i++) {
      expected.add(key(300 + 60L * i));
    }
    expected.sort(KeyOrder::compare);
    assertEquals(expected, new ArrayList<>(h.keySet()));
    assertFalse(h.keySet().stream().anyMatch(k -> k.startsWith("_idem")));
  }

  @Test
  void history_smallPagesAndOnePage_sameEntries() throws IOException {
    populated();
    Map<String, KeyHistory> small = history(S3StoreOptions.defaults(), "");
    Map<String, KeyHistory> large = history(S3StoreOptions.defaults().toBuilder().pageSize(1000).build(), "");
    assertEquals(large, small);
  }

  /**
   * Directories whose pages end exactly at the directory's end (and one that runs on for a second and
   * third page): every version is listed once, in order, as by one page that holds everything.
   */
  @Test
  void history_directoriesOfExactlyOnePage_everyVersionOnce() throws IOException {
    String own = s3.createBucket(true); // the other tests expect the shared bucket's keys exactly
    int[] versions = {PAGE, 2 * PAGE + 3, PAGE, 1, PAGE};
    for (int d = 0; d < versions.length; d++) {
      for (int v = 0; v < versions[d]; v++) {
        s3.client().put(own, "p/dirs/d" + d + "/k" + (v % 3),
            RequestBody.ofBytes(("version " + v + " of d" + d).getBytes(StandardCharsets.UTF_8)), null, Map.of());
      }
    }
    Map<String, KeyHistory> ranged = historyIn(own, PAGE);
    Map<String, KeyHistory> onePage = historyIn(own, 1000);
    assertEquals(onePage, ranged);
    assertEquals(13, ranged.size(), "3 keys in four directories, 1 in the fourth");
    assertEquals(2 * PAGE + 3, ranged.keySet().stream().filter(k -> k.startsWith("dirs/d1/"))
        .mapToInt(k -> ranged.get(k).entries().size()).sum(), "every version of the three-page directory");
  }

  /**
   * Keys that all lie in directories, each directory exactly one page: every version is listed once,
   * never a page of the next directory read and dropped; objects named like a directory ({@code d2/})
   * are listed once, where the key order puts them.
   */
  @Test
  void history_everyKeyInDirectories_everyVersionListedOnce() throws IOException {
    String own = s3.createBucket(true);
    int directories = 6;
    for (int d = 0; d < directories; d++) {
      for (int v = 0; v < PAGE; v++) { // exactly one page per directory
        String key = d == 2 && v == 0 ? "p/dirs/d2/" : "p/dirs/d" + d + "/k" + (v % 3);
        s3.client().put(own, key, RequestBody.ofBytes(("v" + v).getBytes(StandardCharsets.UTF_8)), null, Map.of());
      }
    }
    Map<String, KeyHistory> onePage = historyIn(own, 1000, new AtomicInteger());
    Map<String, KeyHistory> ranged = new TreeMap<>();
    RequestCounts cost;
    try (S3ObjectStore store = S3ObjectStore.open(s3.location(own, "p"),
        () -> AwsCredentials.of(S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY),
        S3StoreOptions.defaults().toBuilder().pageSize(PAGE).build())) {
      assertTrue(store.history("dirs/", h -> ranged.put(h.key(), h) == null));
      cost = store.requestCounts();
    }
    assertEquals(onePage, ranged);
    assertTrue(ranged.containsKey("dirs/d2/"), "the object named like its directory");
    assertEquals(directories * PAGE, ranged.values().stream().mapToInt(h -> h.entries().size()).sum());
    assertEquals(directories * PAGE, cost.entriesListed(), "every version listed once (no evidence): " + cost);
  }

  private static Map<String, KeyHistory> historyIn(String bucketName, int pageSize) throws IOException {
    return historyIn(bucketName, pageSize, new AtomicInteger());
  }

  private static Map<String, KeyHistory> historyIn(String bucketName, int pageSize, AtomicInteger requests)
      throws IOException {
    Map<String, KeyHistory> out = new TreeMap<>();
    try (S3ObjectStore store = S3ObjectStore.open(s3.location(bucketName, "p"), () -> {
      requests.incrementAndGet();
      return AwsCredentials.of(S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY);
    }, S3StoreOptions.defaults().toBuilder().pageSize(pageSize).build())) {
      assertTrue(store.history("dirs/", h -> {
        assertTrue(out.put(h.key(), h) == null, "one group per key: " + h.key());
        return true;
      }));
    }
    return out;
  }

  @Test
  void historyQuery_windowRange_onlyKeysInRangeAndNoHeadForTheRest() throws IOException {
    populated();
    // "now" has four digits, so the listing starts at orders/1000; the divergent key(120) and the
    // two-ETag key(180) list after that marker (three digits sort by their first), and their HEADs
    // (two each) are what the query saves besides the skipped range.
    // One sequential listing each, so the requests differ only by what the range pushes down.
    Clock clock = Clock.fixed(Instant.ofEpochSecond(5000), ZoneOffset.UTC);
    HistoryQuery range = HistoryQuery.windows("orders", 1000).until(clock, null).withListParallelism(1);
    int before = requests.get();
    List<String> seen = new ArrayList<>();
    try (S3ObjectStore store = open(S3StoreOptions.defaults())) {
      assertTrue(store.history(range, h -> seen.add(h.key())));
    }
    int windowRequests = requests.get() - before;
    before = requests.get();
    try (S3ObjectStore store = open(S3StoreOptions.defaults())) {
      assertTrue(store.history(HistoryQuery.under("orders/").until(clock, null).withListParallelism(1), h -> true));
    }
    int fullRequests = requests.get() - before;
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      if (300 + 60L * i >= 1000) {
        expected.add(key(300 + 60L * i));
      }
    }
    expected.sort(KeyOrder::compare);
    assertEquals(expected, seen);
    assertTrue(windowRequests + 4 <= fullRequests, windowRequests + " requests for the range, " + fullRequests
        + " for the pipeline");
  }

  @Test
  void historyQuery_deadlinePassesMidListing_stopsIncomplete() throws IOException {
    populated();
    Instant[] now = {Instant.ofEpochSecond(5000)};
    Clock ticking = new Clock() {
      @Override public ZoneId getZone() { return ZoneOffset.UTC; }
      @Override public Clock withZone(ZoneId zone) { return this; }
      @Override public Instant instant() { return now[0]; }
    };
    List<String> seen = new ArrayList<>();
    try (S3ObjectStore store = open(S3StoreOptions.defaults())) {
      assertFalse(store.history(HistoryQuery.under("orders/").until(ticking, now[0].plusSeconds(2)), h -> {
        now[0] = now[0].plusMillis(500); // each key costs the caller 500 ms
        return seen.add(h.key());
      }));
    }
    assertEquals(4, seen.size(), "2 s at 500 ms per key: " + seen);
  }

  @Test
  void historyQuery_partitionedListing_sameKeysAndEntriesAsOneSequentialListing() throws IOException {
    populated();
    // Legacy keys, idem keys, delete markers, evidence and _idem/ under one prefix, pages of 7: cut
    // into ranges (pipelines and windows) listed 2, 5 or 16 at a time, the history is the same.
    Map<String, KeyHistory> sequential = history(HistoryQuery.under("").withListParallelism(1));
    for (int parallelism : new int[] {2, 5, 16}) {
      assertEquals(sequential, history(HistoryQuery.under("").withListParallelism(parallelism)), "parallelism " + parallelism);
      assertEquals(history(HistoryQuery.under("orders/").withListParallelism(1)),
          history(HistoryQuery.under("orders/").withListParallelism(parallelism)), "orders/, parallelism " + parallelism);
    }
  }

  private static Map<String, KeyHistory> history(HistoryQuery query) throws IOException {
    // A clock past every window, so a pipeline's keys are cut by window start too.
    HistoryQuery q = query.until(Clock.fixed(Instant.ofEpochSecond(5000), ZoneOffset.UTC), null);
    Map<String, KeyHistory> out = new TreeMap<>();
    List<String> order = new ArrayList<>();
    try (S3ObjectStore store = open(S3StoreOptions.defaults())) {
      assertTrue(store.history(q, h -> {
        order.add(h.key());
        return out.put(h.key(), h) == null;
      }));
    }
    assertEquals(new ArrayList<>(out.keySet()), order, "ascending, one group per key");
    return out;
  }

  @Test
  void history_legacyOverwrites_divergentByEtagAndBenignByEtag() throws IOException {
    populated();
    Map<String, KeyHistory> h = history(S3StoreOptions.defaults(), "legacy/");
    assertEquals(List.of(LEGACY_DIVERGENT, LEGACY_SAME), new ArrayList<>(h.keySet()));
    KeyVerdict fixed = KeyVerdict.of(h.get(LEGACY_DIVERGENT));
    assertTrue(fixed.divergent());
    assertEquals(3, fixed.writes());
    assertEquals(2, fixed.payloads());
    assertEquals(Basis.ETAG, fixed.basis());
    KeyVerdict same = KeyVerdict.of(h.get(LEGACY_SAME));
    assertTrue(same.benignDuplicate());
    assertEquals(3, same.writes());
  }

  @Test
  void history_divergentAttempt_mergedWithItsKeyComparedBySha() throws IOException {
    populated();
    KeyHistory h = history(S3StoreOptions.defaults(), "orders/").get(key(120));
    KeyVerdict v = KeyVerdict.of(h);
    assertTrue(v.divergent());
    assertEquals(Basis.SHA256, v.basis());
    assertEquals(1, v.divergentAttempts());
    HistoryEntry attempt = h.entries().stream().filter(e -> e.kind() == HistoryEntry.Kind.DIVERGENT_ATTEMPT)
        .findFirst().orElseThrow();
    assertEquals("host-b", attempt.writer());
    assertEquals(4, attempt.size());
    assertEquals(Sha256.of("beta".getBytes(StandardCharsets.UTF_8)), attempt.sha256());
  }

  @Test
  void history_sameBytesSinglePartThenMultipart_oneContentBySha() throws IOException {
    populated();
    KeyHistory h = history(S3StoreOptions.defaults(), key(180)).get(key(180));
    List<HistoryEntry> versions = h.entries().stream().filter(e -> e.kind() == HistoryEntry.Kind.VERSION).toList();
    assertEquals(2, versions.size());
    assertTrue(!versions.get(0).etag().equals(versions.get(1).etag()), "different ETags: " + versions);
    assertEquals(1, h.entries().stream().filter(e -> e.kind() == HistoryEntry.Kind.DELETE_MARKER).count());
    KeyVerdict v = KeyVerdict.of(h);
    assertEquals(Basis.SHA256, v.basis(), "ETags differ, so the SHA-256s were fetched: " + h);
    assertFalse(v.divergent());
  }

  @Test
  void history_deletedKey_deleteMarkerReported() throws IOException {
    populated();
    KeyHistory h = history(S3StoreOptions.defaults(), "orders/").get(key(240));
    assertEquals(List.of(HistoryEntry.Kind.VERSION, HistoryEntry.Kind.DELETE_MARKER), // oldest first
        h.entries().stream().map(HistoryEntry::kind).toList());
    assertFalse(KeyVerdict.of(h).divergent());
  }

  @Test
  void history_evidenceWithoutObject_ownGroupInOrder() throws IOException {
    populated();
    Map<String, KeyHistory> h = history(S3StoreOptions.defaults(), "orders/");
    KeyHistory orphan = h.get(key(60));
    assertEquals(1, orphan.entries().size());
    assertEquals(HistoryEntry.Kind.DIVERGENT_ATTEMPT, orphan.entries().get(0).kind());
    assertEquals("host-z", orphan.entries().get(0).writer());
  }

  @Test
  void history_singleVersionKeys_noRequestPerVersion() throws IOException {
    populated();
    // One sequential listing: a cut listing adds a request per range by design (counted elsewhere).
    int before = requests.get();
    Map<String, KeyHistory> h = history(HistoryQuery.under("orders/").withListParallelism(1));
    int used = requests.get() - before;
    int versions = h.values().stream().mapToInt(k -> k.entries().size()).sum();
    // pages of 7 for the versions and the evidence, plus HEADs only for the two keys with evidence or
    // differing ETags (key 120: 1 version + 1 attempt; key 180: 2 ETags; key 60: 1 attempt)
    int pages = (versions + PAGE - 1) / PAGE + 2;
    assertTrue(used <= pages + 5, "used " + used + " requests for " + versions + " entries");
  }

  @Test
  void history_visitorStops_returnsFalseEarly() throws IOException {
    populated();
    int[] seen = {0};
    try (S3ObjectStore store = open(S3StoreOptions.defaults())) {
      assertFalse(store.history("", k -> ++seen[0] < 3));
    }
    assertEquals(3, seen[0]);
  }

  @Test
  void list_pagedBySeven_currentObjectsOnlyInternalSkipped() throws IOException {
    populated();
    List<ListedObject> listed = new ArrayList<>();
    try (S3ObjectStore store = open(S3StoreOptions.defaults())) {
      assertTrue(store.list("", listed::add));
    }
    List<String> keys = listed.stream().map(ListedObject::key).toList();
    assertEquals(3 + 20 + 2, keys.size(), keys.toString());
    assertFalse(keys.contains(key(240)), "deleted");
    assertFalse(keys.stream().anyMatch(k -> k.startsWith("_idem")));
    List<String> sorted = new ArrayList<>(keys);
    sorted.sort(KeyOrder::compare);
    assertEquals(sorted, keys);
  }

  @Test
  void history_unversionedBucket_currentObjectsAndEvidence() throws IOException {
    String plain = s3.createBucket(false);
    try (S3ObjectStore store = S3ObjectStore.open(s3.location(plain, ""), s3.credentials(),
        S3StoreOptions.builder().pageSize(2).build())) {
      store.putIfAbsent(key(60), text("one"), "host-a");
      store.putIfAbsent(key(60), text("two"), "host-b");
      store.putIfAbsent(key(120), text("three"), "host-a");
      List<KeyHistory> seen = new ArrayList<>();
      store.history("", seen::add);
      assertEquals(List.of(key(120), key(60)), seen.stream().map(KeyHistory::key).toList(), "byte order: 1 < 6");
      assertEquals(1, KeyVerdict.of(seen.get(0)).writes());
      assertTrue(KeyVerdict.of(seen.get(1)).divergent());
      assertEquals("null", seen.get(1).entries().get(0).versionId());
    }
  }

  @Test
  void history_windowOfManyKeysOfOneSchema_twoSchemaReads() throws IOException {
    // Six outputs of one window under one schema (partitions, or drift): the first two keys read show
    // they share a position, so the window is drift whatever the other four hold, and they are not read.
    String partitions = s3.createBucket(true);
    AtomicInteger used = new AtomicInteger();
    CredentialsProvider counting = () -> {
      used.incrementAndGet();
      return AwsCredentials.of(S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY);
    };
    List<String> keys = new ArrayList<>();
    try (S3ObjectStore store = S3ObjectStore.open(s3.location(partitions, ""), counting, S3StoreOptions.defaults())) {
      for (int part = 0; part < 6; part++) {
        RunSpec spec = RunSpec.of("orders", new Window(60, 60), 3).withInput("part", "p" + part);
        keys.add(spec.outputKey().toString());
        store.putIfAbsent(spec.outputKey().toString(), text("part " + part).withSchema(3), "host-a");
      }
      keys.sort(KeyOrder::compare);
      Map<String, Integer> seen = new TreeMap<>(KeyOrder::compare);
      used.set(0);
      store.history("orders/", h -> {
        seen.put(h.key(), h.schema());
        return true;
      });
      assertEquals(6, seen.size(), seen.toString());
      assertEquals(Integer.valueOf(3), seen.get(keys.get(0)));
      assertEquals(Integer.valueOf(3), seen.get(keys.get(1)));
      for (String k : keys.subList(2, 6)) {
        assertEquals(null, seen.get(k), "not read: the window's drift was proven by the first two");
      }
      assertEquals(2 + 2, used.get(), "one page of versions, one of evidence, and the two HEADs");
    }
  }

  @Test
  void history_schemaReadOnlyForKeysSharingAWindow() throws IOException {
    // A schema bump's overlap (window 60: schemas 1 and 2) among windows of one key each: the walk
    // HEADs the two keys that share a window, for their idem-schema, and nothing else.
    String schemas = s3.createBucket(true);
    AtomicInteger used = new AtomicInteger();
    CredentialsProvider counting = () -> {
      used.incrementAndGet();
      return AwsCredentials.of(S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY);
    };
    String one = RunSpec.of("orders", new Window(60, 60), 1).outputKey().toString();
    String two = RunSpec.of("orders", new Window(60, 60), 2).outputKey().toString();
    try (S3ObjectStore store = S3ObjectStore.open(s3.location(schemas, "p"), counting, S3StoreOptions.defaults())) {
      store.putIfAbsent(one, text("rows").withSchema(1), "host-a");
      store.putIfAbsent(two, text("rows,cols").withSchema(2), "host-b");
      for (long w = 120; w <= 300; w += 60) {
        store.putIfAbsent(key(w), text("gen " + w).withSchema(2), "host-b");
      }
      Map<String, Integer> seen = new TreeMap<>();
      used.set(0);
      store.history("orders/", h -> seen.put(h.key(), h.schema()) == null);
      assertEquals(6, seen.size(), seen.toString());
      assertEquals(Integer.valueOf(1), seen.get(one));
      assertEquals(Integer.valueOf(2), seen.get(two));
      for (long w = 120; w <= 300; w += 60) {
        assertEquals(null, seen.get(key(w)), "alone in its window: not read, the scan needs no schema there");
      }
      assertEquals(2 + 2, used.get(), "one page of versions, one of evidence, and the two HEADs");
    }
  }
}
