package dev.idem.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import net.jqwik.api.Example;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Fixed filesystem scenarios for the narrowest windows of the protocol, which random generation
 * reaches only now and then. They run in every build, beside the generated ones.
 */
class FsCriticalScenariosTest {
  private static FsBackend backend;

  private static synchronized FsBackend backend() throws Exception {
    if (backend == null) {
      backend = new FsBackend();
    }
    return backend;
  }

  @AfterContainer
  static void closeBackend() throws Exception {
    if (backend != null) {
      backend.close();
    }
  }

  private static Replica replica(int id, int startMs, char payload, Replica.Build build, boolean next, Fate fate) {
    boolean process = fate instanceof Fate.Dies d && d.death().needsProcess();
    return new Replica(id, 0, startMs, 0, payload, build, next, fate, process);
  }

  private static void assertHolds(Replica... replicas) throws Exception {
    Scenario s = new Scenario(Backend.Kind.FS, List.of(replicas), 1);
    List<String> v = new ScenarioRunner(backend()).runAndCheck(s);
    assertEquals(List.of(), v, () -> Report.of(s, v));
  }

  /** G1: the replica that skips must make the object durable before its pointer names it. */
  @Example
  void publisherDiesBetweenLinkAndDirectorySync_nextReplicaSkipsAndAdvances() throws Exception {
    assertHolds(
        replica(1, 0, 'A', Replica.Build.OLD, false,
            new Fate.Dies(Fate.Death.THREAD_DEATH, new Step("fsyncDirectory(object dir)", false, 1))),
        replica(2, 40, 'A', Replica.Build.OLD, false, new Fate.Finishes()));
  }

  /** Same window with a killed process: the kernel drops its lock, nothing partial is left. */
  @Example
  void publisherKilledBetweenLinkAndDirectorySync_nextReplicaSkipsAndAdvances() throws Exception {
    assertHolds(
        replica(1, 0, 'A', Replica.Build.OLD, false,
            new Fate.Dies(Fate.Death.SIGKILL, new Step("fsyncDirectory(object dir)", false, 1))),
        replica(2, 40, 'A', Replica.Build.OLD, false, new Fate.Finishes()));
  }

  /** G4: a writer killed holding the pointer lock blocks nobody. */
  @Example
  void writerKilledHoldingThePointerLock_nextWriterAdvancesAtOnce() throws Exception {
    assertHolds(
        replica(1, 0, 'A', Replica.Build.OLD, false,
            new Fate.Dies(Fate.Death.SIGKILL, new Step("tryLock(pointer lock)", true, 1))),
        replica(2, 40, 'A', Replica.Build.NEW, true, new Fate.Finishes()));
  }

  /**
   * C1: a replica in its own JVM whose first temporary-file deletion fails (the store's writability
   * check, before its task runs) logs it and goes on; the file is left for sweep. The runner must learn
   * that the fault fired, as it does for a thread, or it takes the leftover for a clean run's
   * (found by the random run of 2026-12-05, seed -2195321861717602668).
   */
  @Example
  void processReplicaFaultedDeletingTheWritabilityProbe_leftoverCountedAsDisturbed() throws Exception {
    assertHolds(
        replica(1, 0, 'A', Replica.Build.OLD, false, new Fate.Finishes()),
        new Replica(2, 0, 0, 0, 'A', Replica.Build.NEW, false,
            new Fate.Faulted(Fate.Fault.IO_ERROR, new Step("deleteIfExists(temp)", false, 1)), true));
  }

  /** P2/P3: two replicas with different bytes for one key at the same instant. */
  @Example
  void divergentReplicasStartTogether_oneObjectOneCreatedOtherDivergent() throws Exception {
    assertHolds(
        replica(1, 0, 'A', Replica.Build.OLD, false, new Fate.Finishes()),
        replica(2, 0, 'B', Replica.Build.OLD, false, new Fate.Finishes()),
        replica(3, 0, 'A', Replica.Build.OLD, false, new Fate.Finishes()));
  }

  /** G2: an old build that finishes after the new build advanced backs off. */
  @Example
  void oldBuildFinishesAfterNewBuildAdvanced_pointerStaysOnNew() throws Exception {
    assertHolds(
        replica(1, 0, 'A', Replica.Build.NEW, false, new Fate.Finishes()),
        replica(2, 40, 'B', Replica.Build.OLD, false, new Fate.Finishes()));
  }

  /**
   * A1: a replica JVM killed by SIGKILL while it holds its claim, before its object is linked, leaves its
   * claim fresh (for the ttl plus the filesystem's skew allowance); the next replica waits for it, at most
   * its bound, then runs and publishes; the killed replica's claim is left for gc.
   */
  @Example
  void claimHolderKilledBeforeItsObject_nextReplicaWaitsAtMostItsBoundThenPublishes() throws Exception {
    Scenario s = new Scenario(Backend.Kind.FS, List.of(
        replica(1, 0, 'A', Replica.Build.OLD, false,
            new Fate.Dies(Fate.Death.SIGKILL, new Step("createLink(object)", false, 1))),
        replica(2, 200, 'A', Replica.Build.OLD, false, new Fate.Finishes())), 1, Scenario.Hazard.NONE,
        new ClaimSetup(300, 500, 25, ClaimSetup.Forgery.NONE, 0));
    List<String> v = new ScenarioRunner(backend()).runAndCheck(s);
    assertEquals(List.of(), v, () -> Report.of(s, v));
  }

  /** P3 with an unknown writer: the link landed, the record did not; the retry finds it. */
  @Example
  void recordFailsAfterTheLink_retryFindsTheObject() throws Exception {
    assertHolds(
        replica(1, 0, 'A', Replica.Build.OLD, false,
            new Fate.Faulted(Fate.Fault.IO_ERROR, new Step("createNew(record)", false, 1))),
        replica(2, 40, 'A', Replica.Build.OLD, false, new Fate.Finishes()));
  }
}
