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
 * Advisory claims dropped, delayed, failing, deleted, skewed, switched off and racing, and a forged
 * fresh claim, on core's in-memory store ({@link Scenarios#claimScenarios}): every contract still
 * holds, and no replica waits past its bound ({@link InvariantChecker}, A1).
 */
@AddLifecycleHook(FuzzBudget.class)
class MemoryClaimScenarioProperties {
  private final Backend backend = new MemoryBackend();

  @AfterContainer
  static void printCount() {
    ScenarioCount.print();
  }

  @Provide
  Arbitrary<Scenario> scenarios() {
    return Scenarios.claimScenarios(Backend.Kind.MEMORY, Scenarios.MEMORY, List.of(ClaimSetup.Forgery.FRESH));
  }

  @Property(tries = 80, shrinking = ShrinkingMode.BOUNDED)
  void everyContractHoldsWhateverClaimsDo(@ForAll("scenarios") Scenario scenario) throws Exception {
    ScenarioCheck.check(backend, scenario);
  }
}
