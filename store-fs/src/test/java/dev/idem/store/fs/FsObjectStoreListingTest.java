package dev.idem.store.fs;

import static dev.idem.store.fs.Fixtures.bytes;
import static dev.idem.store.fs.Fixtures.history;
import static dev.idem.store.fs.Fixtures.historyKeys;
import static dev.idem.store.fs.Fixtures.key;
import static dev.idem.store.fs.Fixtures.listKeys;
import static dev.idem.store.fs.Fixtures.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import dev.idem.core.scan.KeyVerdict;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.HistoryQuery;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.ListedObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FsObjectStore#history} and {@link FsObjectStore#list}: order, prefixes, what is skipped. */
class FsObjectStoreListingTest {
  /** Chosen so per-directory name order and key order differ: '-' and '.' sort before '/', '0' after. */
  private static final List<String> TRICKY = List.of(
      "a-c", "a.x", "a/b", "a/b-c/d", "a/b.d", "a/bz/e", "a/b0", "a0", "b_", "b/a/a/a", "b/a/a0", "b/a-");

  @TempDir Path dir;
  Path root;
  FsObjectStore store;

  @BeforeEach
  void open() throws IOException {
    root = dir.resolve("store");
    store = FsObjectStore.open(root);
  }

  private void putAll(List<String> keys) throws IOException {
    for (int i = keys.size() - 1; i >= 0; i--) {
      store.putIfAbsent(keys.get(i), bytes("content of " + keys.get(i)), "writer-a");
    }
  }

  private static List<String> sorted(List<String> keys) {
    List<String> s = new ArrayList<>(keys);
    s.sort(null);
    return s;
  }

  @Test
  void history_nestedDirectories_ascendingByKeyString() throws IOException {
    putAll(TRICKY);
    assertEquals(sorted(TRICKY), historyKeys(store, ""));
  }

  @Test
  void list_nestedDirectories_ascendingByKeyStringWithSizes() throws IOException {
    putAll(TRICKY);
    List<ListedObject> seen = new ArrayList<>();
    store.list("", seen::add);
    assertEquals(sorted(TRICKY), seen.stream().map(ListedObject::key).toList());
    for (ListedObject o : seen) {
      assertEquals(("content of " + o.key()).length(), o.size());
    }
  }

  @Test
  void historyQuery_windowRange_entersOnlyWindowsInRange() throws IOException {
    putAll(List.of(key("p", 60), key("p", 120), key("p", 3000), key("p", 6000), key("q", 6000)));
    // A link in a window outside the range would be refused if that window's directory were entered.
    Files.createSymbolicLink(root.resolve("p/60/state-link"), dir);
    Files.writeString(root.resolve("p/6000/legacy.csv"), "not an idem key");
    List<String> seen = new ArrayList<>();
    assertTrue(store.history(HistoryQuery.windows("p", 3000), h -> seen.add(h.key())));
    assertEquals(List.of(key("p", 3000), key("p", 6000)), seen);
  }

  @Test
  void historyQuery_deadlinePassesMidWalk_stopsAtTheNextListedKey() throws IOException {
    List<String> keys = new ArrayList<>();
    for (int i = 1; i <= 20; i++) {
      keys.add(key("p", 60L * i));
    }
    putAll(keys);
    Instant start = Instant.parse("2024-09-10T00:00:00Z");
    Instant[] now = {start};
    Clock clock = new Clock() {
      @Override public ZoneId getZone() { return ZoneOffset.UTC; }
      @Override public Clock withZone(ZoneId zone) { return this; }
      @Override public Instant instant() { return now[0]; }
    };
    List<String> seen = new ArrayList<>();
    boolean complete = store.history(HistoryQuery.under("p/").until(clock, start.plusSeconds(2)), h -> {
      now[0] = now[0].plusMillis(500); // each key costs the caller 500 ms
      return seen.add(h.key());
    });
    assertFalse(complete);
    assertEquals(sorted(keys).subList(0, 4), seen);
  }

  @Test
  void history_prefix_isAPlainStringPrefix() throws IOException {
    List<String> keys = List.of(key("pipe", 60), key("pipeline2", 60), key("pip", 60), key("pipe", 120));
    putAll(keys);

    assertEquals(sorted(List.of(key("pipe", 60), key("pipe", 120), key("pipeline2", 60))), historyKeys(store, "pipe"));
    assertEquals(sorted(List.of(key("pipe", 60), key("pipe", 120))), historyKeys(store, "pipe/"));
    assertEquals(List.of(key("pipe", 120)), historyKeys(store, "pipe/12"));
    assertEquals(List.of(key("pipe", 60)), historyKeys(store, key("pipe", 60)));
    assertEquals(List.of(), historyKeys(store, key("pipe", 60) + "x"));
    assertEquals(List.of(), historyKeys(store, "zzz"));
    assertEquals(List.of(), historyKeys(store, "../"));
    assertEquals(List.of(), historyKeys(store, "_idem"));
    assertEquals(List.of(), historyKeys(store, "pipe//"));
    assertEquals(historyKeys(store, "pipe"), listKeys(store, "pipe"));
  }

  @Test
  void history_internalFilesAndTemporaries_skipped() throws IOException {
    String k = key("orders", 60);
    store.putIfAbsent(k, bytes("a"), "writer-a");
    store.putIfAbsent(k, bytes("b"), "writer-b"); // evidence under _idem
    store.compareAndSetPointer("orders", null, Fixtures.generation(store, "orders", 120, 1));
    Files.write(root.resolve(k).resolveSibling(".tmp-left-by-a-crash.0123"), utf8("partial"));
    Files.write(root.resolve(".tmp-top.1"), utf8("partial"));
    Files.write(root.resolve("_idem/records/orders/60/.tmp-x"), utf8("junk"));
    Files.write(root.resolve("_idem/records/orders/60/notes.txt"), utf8("not a record"));
    Files.write(root.resolve("_idem/records/orders/60/x!CREATED.abc.0123456789abcdef"), utf8("not a record"));

    List<String> expected = sorted(List.of(k, key("orders", 120)));
    assertEquals(expected, historyKeys(store, ""));
    assertEquals(expected, listKeys(store, ""));
  }

  @Test
  void history_entries_mapRecordStatusesToKinds() throws IOException {
    String k = key("orders", 60);
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    store.putIfAbsent(k, bytes("alpha"), "writer-b");
    store.putIfAbsent(k, bytes("gamma!"), "writer-c");

    List<HistoryEntry> e = history(store, "").get(0).entries();

    assertEquals(List.of(HistoryEntry.Kind.VERSION, HistoryEntry.Kind.IDENTICAL_ATTEMPT, HistoryEntry.Kind.DIVERGENT_ATTEMPT),
        e.stream().map(HistoryEntry::kind).toList());
    assertEquals(List.of("writer-a", "writer-b", "writer-c"), e.stream().map(HistoryEntry::writer).toList());
    assertEquals(List.of(5L, 5L, 6L), e.stream().map(HistoryEntry::size).toList());
    assertEquals(Sha256.of(utf8("gamma!")), e.get(2).sha256());
    assertNull(e.get(0).versionId());
    assertNull(e.get(0).etag());
  }

  @Test
  void history_objectDeletedByRetention_recordsStillCount() throws IOException {
    String k = key("orders", 60);
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    store.putIfAbsent(k, bytes("beta"), "writer-b");
    store.delete(k);

    List<KeyHistory> h = history(store, "");

    assertEquals(List.of(k), h.stream().map(KeyHistory::key).toList());
    assertTrue(KeyVerdict.of(h.get(0)).divergent());
    assertEquals(List.of(), listKeys(store, ""), "list shows current objects only");
  }

  @Test
  void history_objectWithoutRecord_oneVersionWithItsHash() throws IOException {
    Files.createDirectories(root.resolve("legacy"));
    Files.write(root.resolve("legacy/fixed.json"), utf8("{\"v\":1}"));

    List<KeyHistory> h = history(store, "");

    assertEquals(1, h.size());
    HistoryEntry only = h.get(0).entries().get(0);
    assertEquals(HistoryEntry.Kind.VERSION, only.kind());
    assertEquals(Sha256.of(utf8("{\"v\":1}")), only.sha256());
    assertEquals(1, h.get(0).entries().size());
  }

  @Test
  void history_objectClobberedBehindItsRecord_bothContentsSeen() throws IOException {
    String k = key("orders", 60);
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    Files.write(root.resolve(k), utf8("omega"));
    Files.setLastModifiedTime(root.resolve(k),
        java.nio.file.attribute.FileTime.from(java.time.Instant.now().plusSeconds(5)));

    KeyVerdict v = KeyVerdict.of(history(store, "").get(0));

    assertTrue(v.divergent(), v.toString());
  }

  @Test
  void history_createdRecordLostInACrash_versionFromTheObject() throws IOException {
    String k = key("orders", 60);
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    store.putIfAbsent(k, bytes("alpha"), "writer-b");
    for (Path r : recordFiles(k)) {
      if (r.getFileName().toString().contains("!CREATED.")) {
        Files.delete(r); // only the IDENTICAL record survived
      }
    }

    List<HistoryEntry> e = history(store, "").get(0).entries();

    assertTrue(e.stream().anyMatch(x -> x.kind() == HistoryEntry.Kind.VERSION
        && x.sha256().equals(Sha256.of(utf8("alpha")))), e.toString());
    assertEquals(Sha256.of(utf8("alpha")), FsObjectStore.open(root).stat(k).orElseThrow().sha256());
  }

  @Test
  void history_everyRecordLostButEvidenceKept_stillDivergent() throws IOException {
    String k = key("orders", 60);
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    store.putIfAbsent(k, bytes("beta"), "writer-b");
    deleteTree(root.resolve("_idem/records")); // lost records

    List<KeyHistory> h = history(FsObjectStore.open(root), "");

    assertEquals(1, h.size());
    assertTrue(KeyVerdict.of(h.get(0)).divergent(), "the evidence bytes on disk make the key divergent: " + h);
  }

  private List<Path> recordFiles(String k) throws IOException {
    try (Stream<Path> s = Files.list(root.resolve("_idem/records").resolve(k).getParent())) {
      return s.toList();
    }
  }

  private static void deleteTree(Path top) throws IOException {
    if (Files.exists(top)) {
      try (Stream<Path> s = Files.walk(top)) {
        for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  @Test
  void history_visitorStops_falseAndNoMoreVisits() throws IOException {
    putAll(TRICKY);
    List<String> seen = new ArrayList<>();
    assertFalse(store.history("", h -> seen.add(h.key()) && seen.size() < 3));
    assertEquals(sorted(TRICKY).subList(0, 3), seen);
  }

  @Test
  void list_visitorStops_false() throws IOException {
    putAll(TRICKY);
    int[] n = {0};
    assertFalse(store.list("a/", o -> ++n[0] < 2));
    assertEquals(2, n[0]);
    assertTrue(store.list("a/", o -> true));
  }
}
