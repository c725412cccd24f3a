package dev.idem.fuzz;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Scenarios against core's in-memory model store: threads only, faults and deaths at the SPI
 * boundary. Fast, so it runs the most scenarios; it checks core's publisher and pointer rules with a
 * store that is correct by construction.
 */
@AddLifecycleHook(FuzzBudget.class)
class MemoryScenarioProperties {
  private final Backend backend = new MemoryBackend();

  @AfterContainer
  static void printCount() {
    ScenarioCount.print();
  }

  @Provide
  Arbitrary<Scenario> scenarios() {
    return Scenarios.scenarios(Backend.Kind.MEMORY, Scenarios.MEMORY);
  }

  @Property(tries = 200, shrinking = ShrinkingMode.BOUNDED)
  void everyContractHolds(@ForAll("scenarios") Scenario scenario) throws Exception {
    ScenarioCheck.check(backend, scenario);
  }
}
