package dev.idem.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.RandomGenerator;

/**
 * The random generator, not a hand-picked scenario, finds real breakages of the stores.
 *
 * <p>Filesystem: for each seed of a fixed list, scenarios drawn from {@link Scenarios#scenarios} (the same generator
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
 *
 * <p>S3: scenarios drawn from the S3 profile with its multipart payload only ({@code D}), on a server that
 * applies every completion ({@link Scenario.Hazard#APPLIES_EVERY_COMPLETION}), with {@link
 * S3Breakage#TRUSTS_COMPLETION}: one of the first {@value #S3_WITHIN} must report two CREATED for one key
 * (P3) or a creator's bytes replaced (P2). The same scenarios, up to that one and at least {@value
 * #S3_CLEAN}, must then hold every contract without the breakage: the store as shipped gives way.
 */
class RandomScenariosFindBreakagesTest {
  /** Seeds of the generator; each must find the breakage on its own. */
  static final long[] SEEDS = {20261203L, 7L, 1_000_003L};
  static final int WITHIN = 400;
  private static final int GEN_SIZE = 1000;
  /** Seeds of the S3 search; each must find the breakage on its own. */
  static final long[] S3_SEEDS = {20261206L, 11L};
  static final int S3_WITHIN = 12;
  /** How many of each seed's scenarios (at least) run again without the breakage. */
  static final int S3_CLEAN = 6;

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

  /** Whether {@code violation} is two CREATED for one key, or a creator's bytes replaced. */
  private static boolean twoCreatedOrClobber(String violation) {
    return violation.startsWith("P3: ") && violation.contains("replicas got CREATED for one key")
        || violation.startsWith("P2: replica ") && violation.contains(" CREATED ") && violation.endsWith("other bytes");
  }

  private static Scenario appliesEveryCompletion(Scenario s) {
    return new Scenario(s.backend(), s.replicas(), s.readers(), Scenario.Hazard.APPLIES_EVERY_COMPLETION);
  }

  @Example
  void trustsCompletion_isFoundByRandomScenariosAndNotWithoutTheBreakage() throws Exception {
    Scenarios.Profile p = S3Backend.PROFILE;
    Scenarios.Profile largeOnly = new Scenarios.Profile(p.ops(), p.opsFaultAfter(), p.faults(), p.deaths(),
        p.processPercent(), p.deathWeight(), p.maxProcesses(), p.maxNth(), p.critical(), p.evidence(), p.lockStep(), List.of(), "D");
    RandomGenerator<Scenario> generator = Scenarios.scenarios(Backend.Kind.S3, largeOnly).generator(GEN_SIZE);
    List<String> found = new ArrayList<>();
    for (long seed : S3_SEEDS) {
      List<Scenario> drawn = new ArrayList<>();
      Random random = new Random(seed);
      List<String> first = List.of();
      try (S3Backend broken = new S3Backend(S3Breakage.TRUSTS_COMPLETION)) {
        for (int i = 1; i <= S3_WITHIN && first.isEmpty(); i++) {
          Scenario onServer = appliesEveryCompletion(generator.next(random).value());
          drawn.add(onServer);
          List<String> v = new ScenarioRunner(broken).runAndCheck(onServer);
          if (v.stream().anyMatch(RandomScenariosFindBreakagesTest::twoCreatedOrClobber)) {
            first = v;
          }
        }
      }
      List<String> firstFound = first;
      int at = drawn.size();
      assertTrue(!first.isEmpty(), () -> "seed " + seed + ": no two CREATED in " + S3_WITHIN
          + " random scenarios with the breakage on");
      while (drawn.size() < S3_CLEAN) {
        drawn.add(appliesEveryCompletion(generator.next(random).value()));
      }
      try (S3Backend shipped = new S3Backend()) {
        for (Scenario s : drawn) {
          List<String> v = new ScenarioRunner(shipped).runAndCheck(s);
          assertEquals(List.of(), v, () -> "seed " + seed + ", without the breakage: " + Report.of(s, v));
        }
      }
      found.add("seed " + seed + ": scenario " + at + " (" + firstFound.stream()
          .filter(RandomScenariosFindBreakagesTest::twoCreatedOrClobber).findFirst().orElseThrow() + ")");
    }
    System.out.println("[fuzz] " + S3Breakage.TRUSTS_COMPLETION + " found by random scenarios: " + found);
  }
}
