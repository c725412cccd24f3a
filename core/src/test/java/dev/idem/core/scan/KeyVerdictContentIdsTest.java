package dev.idem.core.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.HistoryEntry.Kind;
import dev.idem.core.store.KeyHistory;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The contents an acknowledgement records for a key ({@link KeyVerdict#contentIds()}): each distinct
 * content once, by the strongest name known, including the objects divergent attempts met that the
 * history no longer holds.
 */
class KeyVerdictContentIdsTest {
  private static final String KEY = "p/600/state-" + "0".repeat(64);
  private static final String A = "aa".repeat(32);
  private static final String B = "bb".repeat(32);

  private static HistoryEntry entry(Kind kind, String sha, String etag, String met) {
    return new HistoryEntry(KEY, kind, null, Instant.EPOCH, 3, sha, etag, "w", 1, met);
  }

  private static Set<String> contentIds(HistoryEntry... entries) {
    return KeyVerdict.of(new KeyHistory(KEY, List.of(entries))).contentIds();
  }

  private static Set<String> ids(String... ids) {
    return new TreeSet<>(List.of(ids));
  }

  @Test
  void contentIds_objectMetThatTheHistoryNoLongerHolds_named() {
    assertEquals(ids("sha256:" + A, "sha256:" + B), contentIds(entry(Kind.DIVERGENT_ATTEMPT, B, null, A)),
        "the attempt's bytes and the object it met");
  }

  @Test
  void contentIds_evidenceWithoutAMarkerAndNoVersion_anUnnamedMetObject() {
    assertEquals(ids("met-object", "sha256:" + B), contentIds(entry(Kind.DIVERGENT_ATTEMPT, B, null, null)));
  }

  @Test
  void contentIds_sameStringAsSha256AndAsEtag_twoContents() {
    assertEquals(ids("etag:" + A, "sha256:" + A),
        contentIds(entry(Kind.VERSION, A, null, null), entry(Kind.VERSION, null, A, null)));
  }

  @Test
  void contentIds_sameContentTwice_once() {
    assertEquals(ids("sha256:" + A), contentIds(entry(Kind.VERSION, A, "e1", null), entry(Kind.IDENTICAL_ATTEMPT, A, null, null)));
  }
}
