package dev.idem.core.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.HistoryEntry.Kind;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.Retirement;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The scan judges a key life by life: a delete marker (versioned bucket) or the retirement mark
 * (histories without version ids) separates what gc removed from what was published again.
 */
class KeyVerdictLivesTest {
  private static final String KEY = RunSpec.of("p", new Window(600, 60), 1).outputKey().toString();
  private static final String A = "aa".repeat(32);
  private static final String B = "bb".repeat(32);
  private static final String C = "cc".repeat(32);
  private static final Instant GC = Instant.ofEpochSecond(10_000);
  private static final Retirement MARK = new Retirement("p", 600, GC, "idem test");

  private static HistoryEntry version(String v, String sha, long t) {
    return new HistoryEntry(KEY, Kind.VERSION, v, Instant.ofEpochSecond(t), 3, sha, null, "w", 1);
  }

  private static HistoryEntry marker(String v, long t) {
    return new HistoryEntry(KEY, Kind.DELETE_MARKER, v, Instant.ofEpochSecond(t), -1, null, null, null, null);
  }

  private static HistoryEntry attempt(Kind kind, String sha, long t) {
    return new HistoryEntry(KEY, kind, null, Instant.ofEpochSecond(t), 3, sha, null, "w", 1);
  }

  private static KeyVerdict of(Retirement mark, HistoryEntry... entries) {
    return KeyVerdict.of(new KeyHistory(KEY, List.of(entries)), mark);
  }

  @Test
  void versioned_otherBytesAfterADeleteMarker_republishedNotDivergent() {
    KeyVerdict v = of(null, version("1", A, 100), marker("2", 200), version("3", B, 300));
    assertFalse(v.divergent(), v.toString());
    assertTrue(v.republished());
    assertFalse(v.benignDuplicate());
    assertEquals(2, v.lives());
    assertEquals(2, v.payloads());
    assertEquals("REPUBLISHED " + KEY + " lives=2 payloads=2", v.republishedLine());
  }

  @Test
  void versioned_divergenceInsideOneLife_stillDivergent() {
    assertTrue(of(null, version("1", A, 100), version("2", B, 150), marker("3", 200), version("4", C, 300)).divergent());
    assertTrue(of(null, version("1", A, 100), marker("2", 200), version("3", B, 300), version("4", C, 400)).divergent());
    assertTrue(of(MARK, version("1", A, 100), version("2", B, 20_000)).divergent(),
        "a versioned overwrite without a delete marker is never split by the mark");
  }

  @Test
  void divergentAttempt_alwaysDivergent() {
    assertTrue(of(null, version("1", A, 100), marker("2", 200), version("3", B, 300),
        attempt(Kind.DIVERGENT_ATTEMPT, C, 400)).divergent());
  }

  @Test
  void unversioned_divergentBeforeTheMark_staysDivergentAfterARepublish() {
    // Two bytes in the life the mark ends, then a new object after it: that first life is divergent.
    KeyVerdict v = of(MARK, version(null, A, 100), version(null, B, 200), version(null, C, 20_000));
    assertEquals(2, v.lives(), v.toString());
    assertEquals(1, v.divergentLives());
    assertTrue(v.divergent());
    assertFalse(v.republished());
  }

  @Test
  void onlyDeleteMarkersInTheRetiredRange_notReborn() {
    assertFalse(of(MARK, marker("1", 20_000)).reborn(), "no content, nothing published again");
    assertFalse(of(MARK, marker("1", 20_000)).republished());
  }

  @Test
  void unversioned_recordsKeptAcrossTheMark_twoLives() {
    // A gc that crashed between deleting the object and its records, then a re-publish after the mark.
    KeyVerdict v = of(MARK, version(null, A, 100), version(null, B, 20_000));
    assertTrue(v.republished(), v.toString());
    assertFalse(v.divergent());
    KeyVerdict before = of(null, version(null, A, 100), version(null, B, 20_000));
    assertTrue(before.divergent(), "without the mark the two records are one life: what the scan said before");
  }

  @Test
  void unversioned_attemptAfterTheMark_staysInTheOldLife() {
    // A key gc did not delete (inside the grace) met by an identical publish after the run.
    KeyVerdict v = of(MARK, version(null, A, 9_990), attempt(Kind.IDENTICAL_ATTEMPT, A, 20_000));
    assertFalse(v.republished(), v.toString());
    assertTrue(v.benignDuplicate());
  }

  @Test
  void onlyContentAfterTheMark_inTheRetiredRange_reborn() {
    KeyVerdict v = of(MARK, version(null, B, 20_000));
    assertTrue(v.reborn());
    assertTrue(v.republished());
    assertFalse(of(MARK, version(null, B, 9_000)).republished(), "written before gc ran: the run kept it");
    Retirement lower = new Retirement("p", 540, GC, "idem test");
    assertFalse(of(lower, version(null, B, 20_000)).republished(), "outside the retired range");
    Retirement other = new Retirement("q", 600, GC, "idem test");
    assertFalse(of(other, version(null, B, 20_000)).republished(), "another pipeline's mark");
  }
}
