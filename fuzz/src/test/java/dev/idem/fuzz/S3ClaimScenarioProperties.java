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
 * Advisory claims dropped, delayed, failing, deleted, skewed, switched off and racing on {@code
 * S3ObjectStore} behind the fault-injecting proxy ({@link Scenarios#claimScenarios}), the first key
 * sometimes holding a forged fresh claim. Claim entries are S3 objects aged by the server's whole-second
 * {@code Date}, so a claim looks fresh up to two seconds longer than its ttl here: waiters then run at
 * their bound, which is what is checked. Every contract still holds, and no replica waits past its
 * bound ({@link InvariantChecker}, A1).
 */
@AddLifecycleHook(FuzzBudget.class)
class S3ClaimScenarioProperties {
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
    return Scenarios.claimScenarios(Backend.Kind.S3, S3Backend.PROFILE, List.of(ClaimSetup.Forgery.FRESH));
  }

  @Property(tries = 15, shrinking = ShrinkingMode.BOUNDED)
  void everyContractHoldsWhateverClaimsDo(@ForAll("scenarios") Scenario scenario) throws Exception {
    ScenarioCheck.check(backend(), scenario);
  }
}
