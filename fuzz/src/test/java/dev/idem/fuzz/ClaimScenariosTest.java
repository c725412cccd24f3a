package dev.idem.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import net.jqwik.api.Example;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Fixed claim scenarios whose outcome does not hang on timing: a fresh claim that outlasts every bound
 * by seconds, so a waiter that does not keep its bound is caught every time, not only when a generated
 * forgery happens to outlast the slack ({@link InvariantChecker}, A1). They run in every build, beside
 * the generated claim scenarios.
 */
class ClaimScenariosTest {
  /** How long the forged claim stays fresh: seconds past every bound and slack below. */
  private static final int FORGED_MS = 4_000;

  private static FsBackend fs;

  private static synchronized FsBackend fs() throws Exception {
    if (fs == null) {
      fs = new FsBackend();
    }
    return fs;
  }

  @AfterContainer
  static void closeBackend() throws Exception {
    if (fs != null) {
      fs.close();
    }
  }

  private static Replica replica(int id, ClaimFate claimFate) {
    return new Replica(id, 0, 0, 50, 'A', Replica.Build.OLD, false, new Fate.Finishes(), false, claimFate);
  }

  private static void assertHolds(Backend backend, Scenario s) throws Exception {
    List<String> v = new ScenarioRunner(backend).runAndCheck(s);
    assertEquals(List.of(), v, () -> Report.of(s, v));
  }

  private static Scenario scenario(Backend.Kind kind, int waitMs, ClaimSetup.Forgery forgery, Replica... replicas) {
    return new Scenario(kind, List.of(replicas), 0, Scenario.Hazard.NONE,
        new ClaimSetup(300, waitMs, 20, forgery, FORGED_MS));
  }

  /**
   * A writer that never publishes keeps its claim fresh for seconds: every replica waits its bound, then
   * runs (no replica has claims off: its object would end the others' wait early).
   */
  @Example
  void forgedFreshClaim_everyReplicaRunsAtItsBound() throws Exception {
    assertHolds(new MemoryBackend(), scenario(Backend.Kind.MEMORY, 300, ClaimSetup.Forgery.FRESH,
        replica(1, ClaimFate.NORMAL), replica(2, ClaimFate.NORMAL)));
  }

  /**
   * Claims that cannot be read look gone to the waiting rule while claiming finds the forged one: the
   * replica still runs at its bound (it used to claim again and again until the forged claim went stale).
   */
  @Example
  void forgedFreshClaimAndClaimsUnreadable_replicaRunsAtItsBound() throws Exception {
    assertHolds(new MemoryBackend(), scenario(Backend.Kind.MEMORY, 0, ClaimSetup.Forgery.FRESH,
        replica(1, new ClaimFate(ClaimFate.Kind.READ_FAILS, 0)), replica(2, new ClaimFate(ClaimFate.Kind.READ_FAILS, 0))));
  }

  /** A claim entry stamped an hour ahead looks fresh all along: the replicas wait their bound, then run. */
  @Example
  void claimStampedAnHourAhead_replicasRunAtTheirBound() throws Exception {
    assertHolds(fs(), scenario(Backend.Kind.FS, 300, ClaimSetup.Forgery.STAMPED_AHEAD,
        replica(1, ClaimFate.NORMAL), replica(2, ClaimFate.NORMAL)));
  }

  /** Entries that are no claims are read as absent: never waited for, never named, never an error. */
  @Example
  void entriesThatAreNoClaims_readAsAbsent() throws Exception {
    assertHolds(fs(), scenario(Backend.Kind.FS, 300, ClaimSetup.Forgery.CORRUPT,
        replica(1, ClaimFate.NORMAL), replica(2, ClaimFate.NORMAL)));
  }
}
