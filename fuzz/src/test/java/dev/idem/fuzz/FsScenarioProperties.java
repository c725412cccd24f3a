package dev.idem.fuzz;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Scenarios against {@code FsObjectStore}: replica threads, and replica JVMs killed with SIGKILL or
 * SIGTERM at a chosen {@code FsOps} call; I/O faults injected through the same seam.
 */
@AddLifecycleHook(FuzzBudget.class)
class FsScenarioProperties {
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
    return Scenarios.scenarios(Backend.Kind.FS, FsBackend.PROFILE);
  }

  @Property(tries = 50, shrinking = ShrinkingMode.BOUNDED)
  void everyContractHolds(@ForAll("scenarios") Scenario scenario) throws Exception {
    ScenarioCheck.check(backend(), scenario);
  }
}
