package dev.idem.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import net.jqwik.api.Example;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Each store hazard the generator draws, in one fixed scenario per build, so that the refusal paths
 * run every time and not only when a seed happens to draw them: a symbolic link pre-placed at each
 * level of pipeline p0 (S2: the replicas that would pass it are refused naming it, nothing outside
 * the root changes, the others publish as usual), an S3 server that ignores {@code If-None-Match}
 * (S1: every replica refused by its probe, nothing written at any key) and one that applies every
 * multipart completion (P3, P7: a completion landed over an earlier version gives way). The checks are the generated
 * scenarios' own ({@link InvariantChecker}); a store that followed the link or trusted the server fails
 * them ("S2: replica ... got CREATED instead of a refusal", "S1: ... was written").
 */
class HazardScenariosTest {
  private static FsBackend fs;
  private static S3Backend s3;

  private static synchronized FsBackend fs() throws Exception {
    if (fs == null) {
      fs = new FsBackend();
    }
    return fs;
  }

  @AfterContainer
  static void close() throws Exception {
    if (fs != null) {
      fs.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  private static Replica replica(int id, int pipeline, int startMs, boolean next, Fate fate) {
    return new Replica(id, pipeline, startMs, 5, 'A', Replica.Build.OLD, next, fate, false);
  }

  private static final List<Replica> REPLICAS = List.of(
      replica(1, 0, 0, false, new Fate.Finishes()),
      replica(2, 0, 10, true, new Fate.Finishes()),
      replica(3, 1, 0, false, new Fate.Finishes()),
      replica(4, 0, 20, false, new Fate.Faulted(Fate.Fault.IO_ERROR, new Step("createNew(object temp)", false, 1))));

  private static void assertHolds(Backend backend, Scenario s) throws Exception {
    List<String> v = new ScenarioRunner(backend).runAndCheck(s);
    assertEquals(List.of(), v, () -> Report.of(s, v));
  }

  @Example
  void linkAtPipeline_refusedNothingOutside() throws Exception {
    assertHolds(fs(), new Scenario(Backend.Kind.FS, REPLICAS, 1, Scenario.Hazard.LINK_AT_PIPELINE));
  }

  @Example
  void linkAtWindow_refusedNothingOutside() throws Exception {
    assertHolds(fs(), new Scenario(Backend.Kind.FS, REPLICAS, 1, Scenario.Hazard.LINK_AT_WINDOW));
  }

  @Example
  void linkAtRecords_refusedNothingOutside() throws Exception {
    assertHolds(fs(), new Scenario(Backend.Kind.FS, REPLICAS, 1, Scenario.Hazard.LINK_AT_RECORDS));
  }

  @Example
  void serverIgnoringIfNoneMatch_everyReplicaRefusedNothingWritten() throws Exception {
    synchronized (HazardScenariosTest.class) {
      if (s3 == null) {
        s3 = new S3Backend();
      }
    }
    List<Replica> replicas = List.of(
        new Replica(1, 0, 0, 5, 'A', Replica.Build.OLD, false, new Fate.Finishes(), false),
        new Replica(2, 0, 0, 5, 'B', Replica.Build.OLD, false, new Fate.Finishes(), false),
        new Replica(3, 1, 10, 5, 'A', Replica.Build.NEW, false, new Fate.ClockAhead(), false));
    assertHolds(s3, new Scenario(Backend.Kind.S3, replicas, 1, Scenario.Hazard.IGNORES_IF_NONE_MATCH));
  }

  /**
   * Two large publishes (multipart) and a small one (a single PUT, which S3Proxy applies create-only) of
   * one key, on a server that applies every completion: whichever completes after the key is taken
   * lands as a version over the first, finds it under its own and gives way.
   */
  @Example
  void serverApplyingEveryCompletion_oneCreatedLaterVersionsGiveWay() throws Exception {
    synchronized (HazardScenariosTest.class) {
      if (s3 == null) {
        s3 = new S3Backend();
      }
    }
    List<Replica> replicas = List.of(
        new Replica(1, 0, 0, 5, 'D', Replica.Build.OLD, false, new Fate.Finishes(), false),
        new Replica(2, 0, 0, 5, 'D', Replica.Build.OLD, false, new Fate.Finishes(), false),
        new Replica(3, 0, 0, 5, 'A', Replica.Build.OLD, false, new Fate.Finishes(), false));
    assertHolds(s3, new Scenario(Backend.Kind.S3, replicas, 1, Scenario.Hazard.APPLIES_EVERY_COMPLETION));
  }

  /**
   * A refused replica is retried as a scheduler would, and the injected fault lands in the retry (its
   * HEAD is the replica's second): the retry fails with the fault, the first attempt was the refusal,
   * and nothing is written. Found by a {@code -Pfuzz} run (seed -5898804449629383786), where the check
   * wanted the refusal last.
   */
  @Example
  void serverIgnoringIfNoneMatch_faultInTheRetryAfterTheRefusal() throws Exception {
    synchronized (HazardScenariosTest.class) {
      if (s3 == null) {
        s3 = new S3Backend();
      }
    }
    List<Replica> replicas = List.of(
        new Replica(1, 0, 0, 0, 'A', Replica.Build.OLD, false, new Fate.Finishes(), false),
        new Replica(2, 0, 0, 0, 'A', Replica.Build.OLD, false,
            new Fate.Faulted(Fate.Fault.HTTP_500, new Step("HEAD object", false, 2)), false));
    assertHolds(s3, new Scenario(Backend.Kind.S3, replicas, 0, Scenario.Hazard.IGNORES_IF_NONE_MATCH));
  }
}
