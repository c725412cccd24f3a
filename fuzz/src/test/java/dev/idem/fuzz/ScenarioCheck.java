package dev.idem.fuzz;

import static org.junit.jupiter.api.Assertions.fail;

import net.jqwik.api.statistics.Statistics;

/**
 * The body every scenario property shares: run, collect statistics, fail with the story.
 *
 * <p>Races do not fail every time, so a shrink candidate that passes once may still be a failing
 * scenario. Once a property has failed, every later try (the shrinking ones) runs its scenario up to
 * {@value #RUNS_WHILE_SHRINKING} times and fails if any run does, so shrinking keeps what is needed
 * for the race rather than settling for whatever happened to pass.
 */
final class ScenarioCheck {
  static final int RUNS_WHILE_SHRINKING = 4;

  private ScenarioCheck() {}

  static void check(Backend backend, Scenario scenario) throws Exception {
    int runs = FuzzBudget.failedSoFar() ? RUNS_WHILE_SHRINKING : 1;
    for (int i = 0; i < runs; i++) {
      ScenarioRunner.Result result = new ScenarioRunner(backend).runCheckAndCount(scenario);
      if (i == 0) {
        result.fates().forEach(f -> Statistics.label("fates").collect(f));
        Statistics.label("replicas").collect(scenario.replicas().size());
        Statistics.label("hazards").collect(scenario.hazard());
        result.claims().forEach(c -> Statistics.label("claims").collect(c));
        Statistics.label("claim forgery").collect(scenario.claims().forgery());
      }
      if (!result.violations().isEmpty()) {
        FuzzBudget.markFailed();
        fail(Report.of(scenario, result.violations()));
      }
    }
  }
}
