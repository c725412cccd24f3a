package dev.idem.core.store;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * Removal of what writers killed mid-operation leave behind: temporaries, incomplete uploads, superseded
 * pointer-log entries. It exists because a store that writes in more than one step (a temporary then a
 * rename, parts then a completion) leaves such leftovers when a writer dies between the steps; they are
 * invisible to readers (G4/C1) but take space until removed.
 *
 * <p>A store reaches it through {@link ObjectStore#leftoverSweep()}. A store without it has nothing to
 * sweep or leaves it to its own housekeeping; gc then sweeps nothing and says so in its report.
 *
 * <p>Guarantees: only leftovers older than the grace are touched, so nothing a live writer still uses is
 * removed; no object, pointer, record or mark is ever removed by a sweep.
 */
public interface LeftoverSweep {

  /**
   * Removes leftovers older than {@code grace}.
   *
   * @return what was (or, with {@code dryRun}, would be) removed, one line each
   * @throws IOException when the store failed; some leftovers may be gone, and sweeping again removes
   *     the rest
   */
  List<String> sweep(Duration grace, boolean dryRun) throws IOException;

  /**
   * The sweep of {@code store}, for a caller that cannot do without it.
   *
   * @param neededFor what the caller does with it, for the error
   * @throws MissingCapabilityException when the store has no sweep
   */
  static LeftoverSweep of(ObjectStore store, String neededFor) throws MissingCapabilityException {
    return store.leftoverSweep().orElseThrow(() -> new MissingCapabilityException(store, "sweep of leftovers", neededFor));
  }
}
