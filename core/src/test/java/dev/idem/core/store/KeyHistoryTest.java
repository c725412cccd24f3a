package dev.idem.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.HistoryEntry.Kind;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What one key's history says of the key now: whether it holds an object, and the schema it records. */
class KeyHistoryTest {

  private static HistoryEntry entry(Kind kind, Integer schema) {
    return new HistoryEntry("k", kind, null, Instant.EPOCH, 1, kind == Kind.DELETE_MARKER ? null : "a".repeat(64),
        null, "w", schema);
  }

  private static KeyHistory history(HistoryEntry... entries) {
    return new KeyHistory("k", List.of(entries));
  }

  @Test
  void holdsObject_versionAfterTheLastDeleteMarker_true() {
    assertTrue(history(entry(Kind.VERSION, 1)).holdsObject());
    assertTrue(history(entry(Kind.VERSION, 1), entry(Kind.DELETE_MARKER, null), entry(Kind.VERSION, 1)).holdsObject(),
        "published again after retention deleted it");
    assertTrue(history(entry(Kind.VERSION, 1), entry(Kind.DIVERGENT_ATTEMPT, 1)).holdsObject(),
        "attempts recorded after the version do not hide it");
  }

  @Test
  void holdsObject_deletedOrOnlyAttemptsLeft_false() {
    assertFalse(history(entry(Kind.VERSION, 1), entry(Kind.DELETE_MARKER, null)).holdsObject());
    assertFalse(history(entry(Kind.VERSION, 1), entry(Kind.DELETE_MARKER, null), entry(Kind.IDENTICAL_ATTEMPT, 1))
        .holdsObject(), "an attempt after the delete is evidence, not an object");
    assertFalse(history(entry(Kind.DIVERGENT_ATTEMPT, 1)).holdsObject(), "deletes that leave no marker");
    assertFalse(history().holdsObject());
  }

  @Test
  void schema_entriesAgreeOrSayNothing_theRecordedOne() {
    assertEquals(2, history(entry(Kind.VERSION, null), entry(Kind.VERSION, 2), entry(Kind.IDENTICAL_ATTEMPT, 2)).schema());
    assertNull(history(entry(Kind.VERSION, null)).schema());
  }

  @Test
  void schema_entriesDisagree_null() {
    assertNull(history(entry(Kind.VERSION, 2), entry(Kind.IDENTICAL_ATTEMPT, null), entry(Kind.DIVERGENT_ATTEMPT, 3))
        .schema());
  }
}
