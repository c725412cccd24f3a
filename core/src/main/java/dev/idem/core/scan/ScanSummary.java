package dev.idem.core.scan;

import dev.idem.core.store.Pointer;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Totals of one scan, and the gate's verdict on them.
 *
 * <p>A scan that examined nothing (no key under the prefix and no pointer) is never {@link #clean()}:
 * a typo in a pipeline, prefix or store name must not pass a deploy gate (E2). Callers that expect
 * nothing, such as the first rollout of a new pipeline, ask {@link #examinedNothing()} and decide.
 *
 * @param prefix the prefix scanned
 * @param keys keys examined
 * @param entries history entries examined: stored versions, delete markers and recorded publish attempts
 * @param benignDuplicateKeys keys written more than once with one content
 * @param divergentKeys keys with more than one content
 * @param complete false when a {@code maxKeys}/{@code maxTime} bound stopped the scan early
 * @param pointersExamined pointers read (of the pipelines met, and of those the caller asked for)
 * @param pointerProblems pointers whose object is missing or holds other bytes than the pointer says (a
 *     broken G1: readers following them find nothing, or the wrong bytes)
 * @param pointerRewinds the last operator rewind recorded in the pointer of each scanned pipeline that
 *     has one, by pipeline name in ascending order: shown so that a moved-back pointer is never a
 *     silent one; not a failure of the gate (it was a deliberate, compare-and-swapped repair)
 * @param driftPositions positions (window and schema) holding more than one key, counting a window
 *     judged whole because a key's schema is unknown as one ({@link WindowDrift}); not part of {@link
 *     #clean()}: the objects are complete and a retry would not change them, so callers choose to fail
 *     on it ({@code idem scan --fail-on-drift})
 * @param republishedKeys keys published again after retention removed them ({@link
 *     KeyVerdict#republished()}); not part of {@link #clean()}: each life of such a key holds one
 *     complete generation
 * @param acknowledgedKeys divergent keys an operator's acknowledgement still covers ({@link
 *     KeyVerdict#acknowledgedBy}); not counted in {@code divergentKeys} and not part of {@link #clean()}:
 *     the divergence was reviewed, and nothing was written there since
 * @param claims the advisory claims under the prefix, held and stale, or {@code null} when the store
 *     keeps none; never part of {@link #clean()}: a claim is advice (A1), not a fact about what was
 *     published
 */
public record ScanSummary(String prefix, long keys, long entries, long benignDuplicateKeys, long divergentKeys,
    boolean complete, long pointersExamined, List<PointerTarget> pointerProblems,
    SortedMap<String, Pointer.Rewind> pointerRewinds, long driftPositions, long republishedKeys,
    long acknowledgedKeys, ClaimCounts claims) {

  /**
   * The claims a scan listed under its prefix (one listing per scan).
   *
   * @param held claims written or renewed within the ttl: writers at work on keys not yet published
   * @param stale claims older than the ttl, whose writers stopped renewing: what gc removes
   * @param notListed why the claims could not be listed (the counts are then 0), or {@code null}
   */
  public record ClaimCounts(long held, long stale, String notListed) {}

  /** A summary of a scan of a store that keeps no claims. */
  public ScanSummary(String prefix, long keys, long entries, long benignDuplicateKeys, long divergentKeys,
      boolean complete, long pointersExamined, List<PointerTarget> pointerProblems,
      SortedMap<String, Pointer.Rewind> pointerRewinds, long driftPositions, long republishedKeys,
      long acknowledgedKeys) {
    this(prefix, keys, entries, benignDuplicateKeys, divergentKeys, complete, pointersExamined, pointerProblems,
        pointerRewinds, driftPositions, republishedKeys, acknowledgedKeys, null);
  }

  public ScanSummary {
    pointerProblems = List.copyOf(pointerProblems);
    pointerRewinds = Collections.unmodifiableSortedMap(new TreeMap<>(pointerRewinds));
    if (pointerProblems.stream().anyMatch(PointerTarget::matches)) {
      throw new IllegalArgumentException("a pointer whose object matches is not a problem");
    }
  }

  /** A summary of a scan that met no acknowledged key. */
  public ScanSummary(String prefix, long keys, long entries, long benignDuplicateKeys, long divergentKeys,
      boolean complete, long pointersExamined, List<PointerTarget> pointerProblems,
      SortedMap<String, Pointer.Rewind> pointerRewinds, long driftPositions, long republishedKeys) {
    this(prefix, keys, entries, benignDuplicateKeys, divergentKeys, complete, pointersExamined, pointerProblems,
        pointerRewinds, driftPositions, republishedKeys, 0);
  }

  /** A summary of a scan that met no republished key. */
  public ScanSummary(String prefix, long keys, long entries, long benignDuplicateKeys, long divergentKeys,
      boolean complete, long pointersExamined, List<PointerTarget> pointerProblems,
      SortedMap<String, Pointer.Rewind> pointerRewinds, long driftPositions) {
    this(prefix, keys, entries, benignDuplicateKeys, divergentKeys, complete, pointersExamined, pointerProblems,
        pointerRewinds, driftPositions, 0);
  }

  /** The reference script's closing line, byte for byte. */
  public String referenceLine() {
    return "scanned prefix=" + prefix + " divergent_keys=" + divergentKeys;
  }

  /**
   * The whole listing ran and met no key and no pointer: the scan saw nothing it could judge. A scan cut
   * short before its first key is not empty but incomplete (it may have stopped before the keys), so
   * nothing that passes an empty scan (such as {@code --allow-empty}) passes it.
   */
  public boolean examinedNothing() {
    return keys == 0 && pointersExamined == 0 && complete;
  }

  /**
   * True when the gate should pass: something was examined, nothing divergent, every pointer's object
   * present with its hash, the whole prefix read.
   */
  public boolean clean() {
    return !examinedNothing() && divergentKeys == 0 && complete && pointerProblems.isEmpty();
  }
}
