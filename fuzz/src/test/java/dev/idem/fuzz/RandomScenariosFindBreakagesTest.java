package dev.idem.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.RandomGenerator;

/**
 * The random generator, not a hand-picked scenario, finds a real breakage of the filesystem store: for
 * each seed of a fixed list, scenarios drawn from {@link Scenarios#scenarios} (the same generator
 * {@link FsScenarioProperties} uses) run against {@code FsObjectStore} with {@link
 * FsBreakage#NO_OBJECT_SYNC_BEFORE_POINTER}, and one of the first {@value #WITHIN} must report the G1
 * violation the breakage causes. The scenarios are the same on every run (seeded generation); whether
 * a race lands is timing, which is why the bound is several times the number the seeds needed when
 * measured (fuzz/README.md).
 *
 * <p>Why it can fail: if the generator stopped reaching the window between an object's link and its
 * directory fsync with a second replica that points at the object meanwhile (stalls and deaths drawn
 * from {@link Scenarios.Profile#critical()}), this test fails, as it did before those were added.
 */
class RandomScenariosFindBreakagesTest {
  /** Seeds of the generator; each must find the breakage on its own. */
  static final long[] SEEDS = {20261203L, 7L, 1_000_003L};
  static final int WITHIN = 400;
  private static final int GEN_SIZE = 1000;

  @Example
  void noObjectSyncBeforePointerMoves_isFoundByRandomScenarios() throws Exception {
    List<String> found = new ArrayList<>();
    try (FsBackend backend = new FsBackend(FsBreakage.NO_OBJECT_SYNC_BEFORE_POINTER)) {
      RandomGenerator<Scenario> generator = Scenarios.scenarios(Backend.Kind.FS, FsBackend.PROFILE).generator(GEN_SIZE);
      for (long seed : SEEDS) {
        Random random = new Random(seed);
        int at = -1;
        List<String> first = List.of();
        for (int i = 1; i <= WITHIN && at < 0; i++) {
          Scenario s = generator.next(random).value();
          List<String> v = new ScenarioRunner(backend).runAndCheck(s);
          if (v.stream().anyMatch(x -> x.startsWith("G1: pointer"))) {
            at = i;
            first = v;
          }
        }
        int n = at;
        assertTrue(n > 0, () -> "seed " + seed + ": no G1 violation in " + WITHIN + " random scenarios with the breakage on");
        found.add("seed " + seed + ": scenario " + n + " (" + first.get(0) + ")");
      }
    }
    System.out.println("[fuzz] " + FsBreakage.NO_OBJECT_SYNC_BEFORE_POINTER + " found by random scenarios: " + found);
  }
}
