package dev.idem.fuzz;

import java.util.ArrayList;
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
 * FsObjectStore}, with replica threads ({@link Scenarios#claimScenarios}): besides the claim fates, the
 * replicas' own fates may hit the claim files' calls ({@link HookedFsOps#CLAIM_OPS}: a fault, a death, a
 * stall), and the first key may hold a forged fresh claim, an entry stamped an hour ahead or behind, or
 * entries that are no claims. Every contract still holds, and no replica waits past its bound
 * ({@link InvariantChecker}, A1).
 */
@AddLifecycleHook(FuzzBudget.class)
class FsClaimScenarioProperties {
  static final Scenarios.Profile PROFILE;

  static {
    Scenarios.Profile p = FsThreadScenarioProperties.PROFILE;
    List<String> ops = new ArrayList<>(p.ops());
    ops.addAll(HookedFsOps.CLAIM_OPS);
    List<String> after = new ArrayList<>(p.opsFaultAfter());
    after.addAll(HookedFsOps.CLAIM_OPS);
    PROFILE = new Scenarios.Profile(ops, after, p.faults(), p.deaths(), 0, p.deathWeight(), 0, p.maxNth(), p.critical(),
        p.evidence(), p.lockStep(), List.of(), p.payloads());
  }

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
    return Scenarios.claimScenarios(Backend.Kind.FS, PROFILE, List.of(ClaimSetup.Forgery.FRESH,
        ClaimSetup.Forgery.STAMPED_AHEAD, ClaimSetup.Forgery.STAMPED_BEHIND, ClaimSetup.Forgery.CORRUPT));
  }

  @Property(tries = 50, shrinking = ShrinkingMode.BOUNDED)
  void everyContractHoldsWhateverClaimsDo(@ForAll("scenarios") Scenario scenario) throws Exception {
    ScenarioCheck.check(backend(), scenario);
  }
}
