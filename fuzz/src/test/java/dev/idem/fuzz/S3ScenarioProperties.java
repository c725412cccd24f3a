package dev.idem.fuzz;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Scenarios against {@code S3ObjectStore} (LOG pointer mode) on S3Proxy: replica threads and a few
 * replica JVMs, HTTP faults and deaths played by a fault-injecting proxy in front of S3Proxy.
 */
@AddLifecycleHook(FuzzBudget.class)
class S3ScenarioProperties {
  private static S3Backend backend;

  private static synchronized S3Backend backend() throws Exception {
    if (backend == null) {
      backend = new S3Backend();
    }
    return backend;
  }

  @AfterContainer
  static void printCount() {
    ScenarioCount.print();
  }

  @Provide
  Arbitrary<Scenario> scenarios() {
    return Scenarios.scenarios(Backend.Kind.S3, S3Backend.PROFILE);
  }

  @Property(tries = 30, shrinking = ShrinkingMode.BOUNDED)
  void everyContractHolds(@ForAll("scenarios") Scenario scenario) throws Exception {
    ScenarioCheck.check(backend(), scenario);
  }
}
