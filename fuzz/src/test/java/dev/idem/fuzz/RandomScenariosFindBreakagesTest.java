package dev.idem.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.RandomGenerator;

/**
 * The random generator, not a hand-picked scenario, finds real breakages of the filesystem store: for
 * each seed of a fixed list, scenarios drawn from {@link Scenarios#scenarios} (the same generator
 * {@link FsScenarioProperties} uses) run against {@code FsObjectStore} with a {@link FsBreakage} on, and
 * one of the first {@value #WITHIN} must report the violation the breakage causes. The scenarios are the
 * same on every run (seeded generation); whether a race lands is timing, which is why the bound is
 * several times the number the seeds needed when measured (fuzz/README.md).
 *
 * <p>Why it can fail: if the generator stopped reaching the window a breakage needs (for {@link
 * FsBreakage#NO_OBJECT_SYNC_BEFORE_POINTER}, between an object's link and its directory fsync with a
 * second replica that points at the object meanwhile: stalls and deaths drawn from {@link
 * Scenarios.Profile#critical()}; for {@link FsBreakage#NO_DIVERGENCE_MARKER}, the loser of a race with
 * other bytes killed or failing while it keeps them: {@link Scenarios.Profile#evidence()}), this test
 * fails, as it did before those were added.
 */
class RandomScenariosFindBreakagesTest {
  /** Seeds of the generator; each must find the breakage on its own. */
  static final long[] SEEDS = {20261203L, 7L, 1_000_003L};
  static final int WITHIN = 400;
  private static final int GEN_SIZE = 1000;

  @Example
  void noObjectSyncBeforePointerMoves_isFoundByRandomScenarios() throws Exception {
    findsWithin(FsBreakage.NO_OBJECT_SYNC_BEFORE_POINTER, "G1: pointer");
  }

  /** P8: with the divergence marker switched off, a replica killed while keeping its bytes loses the divergence. */
  @Example
  void noDivergenceMarker_isFoundByRandomScenarios() throws Exception {
    findsWithin(FsBreakage.NO_DIVERGENCE_MARKER, "P8: the scan does not report");
  }

  private static void findsWithin(FsBreakage breakage, String violation) throws Exception {
    List<String> found = new ArrayList<>();
    try (FsBackend backend = new FsBackend(breakage)) {
      RandomGenerator<Scenario> generator = Scenarios.scenarios(Backend.Kind.FS, FsBackend.PROFILE).generator(GEN_SIZE);
      for (long seed : SEEDS) {
        Random random = new Random(seed);
        int at = -1;
        String first = null;
        for (int i = 1; i <= WITHIN && at < 0; i++) {
          Scenario s = generator.next(random).value();
          List<String> v = new ScenarioRunner(backend).runAndCheck(s);
          first = v.stream().filter(x -> x.startsWith(violation)).findFirst().orElse(null);
          at = first != null ? i : -1;
        }
        int n = at;
        assertTrue(n > 0, () -> "seed " + seed + ": no '" + violation + "' in " + WITHIN + " random scenarios with "
            + breakage + " on");
        found.add("seed " + seed + ": scenario " + n + " (" + first + ")");
      }
    }
    System.out.println("[fuzz] " + breakage + " found by random scenarios: " + found);
  }
}
