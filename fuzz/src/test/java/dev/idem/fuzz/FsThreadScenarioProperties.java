package dev.idem.fuzz;

import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Scenarios against {@code FsObjectStore} with every replica a thread of this JVM: the same generator
 * and checks as {@link FsScenarioProperties} without replica JVMs (deaths are thread deaths), so that a
 * scenario costs milliseconds rather than a JVM start. It carries most of a long session's count; every
 * replica's calls are then in the durability-order log ({@link DurabilityLog}), which sees threads only.
 * Real signals to real processes stay in {@link FsScenarioProperties}.
 */
@AddLifecycleHook(FuzzBudget.class)
class FsThreadScenarioProperties {
  static final Scenarios.Profile PROFILE = new Scenarios.Profile(FsBackend.PROFILE.ops(), FsBackend.PROFILE.opsFaultAfter(),
      FsBackend.PROFILE.faults(), List.of(Fate.Death.THREAD_DEATH), 0, FsBackend.PROFILE.deathWeight(), 0,
      FsBackend.PROFILE.maxNth(), FsBackend.PROFILE.critical(), FsBackend.PROFILE.evidence(), FsBackend.PROFILE.lockStep(),
      FsBackend.PROFILE.hazards(), FsBackend.PROFILE.payloads());

  private static FsBackend backend;

  private static synchronized FsBackend backend() throws Exception {
    if (backend == null) {
      backend = new FsBackend();
    }
    return backend;
  }

  @AfterContainer
  static void closeBackend() throws Exception {
    ScenarioCount.print();
    if (backend != null) {
      backend.close();
    }
  }

  @Provide
  Arbitrary<Scenario> scenarios() {
    return Scenarios.scenarios(Backend.Kind.FS, PROFILE);
  }

  @Property(tries = 40, shrinking = ShrinkingMode.BOUNDED)
  void everyContractHolds(@ForAll("scenarios") Scenario scenario) throws Exception {
    ScenarioCheck.check(backend(), scenario);
  }
}
