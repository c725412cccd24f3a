package dev.idem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.store.fs.FsObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulation's scenario and its safety accounting. Its figures are timings and live in
 * BENCHMARKS.md; what is checked here is what must hold whatever the timing: the same scenario for
 * every configuration, and every window published once, unclobbered, with each reported divergence
 * found by the scan.
 */
class RollingDeploySimulationTest {
  private static RollingDeploySimulation.Params params(int windows, int deploys) {
    return new RollingDeploySimulation.Params(7, windows, 1, Duration.ofMillis(100), Duration.ofMillis(300), deploys,
        Duration.ofMillis(30), Duration.ofMillis(500), Duration.ofMillis(300), Duration.ofMillis(20),
        Duration.ofMillis(800));
  }

  @Test
  void deployPlan_sameSeed_sameDeploysTwoWindowsApartAwayFromTheEnds() {
    RollingDeploySimulation sim = new RollingDeploySimulation(params(40, 10));
    List<double[]> plan = sim.deployPlan();
    assertEquals(10, plan.size());
    for (int i = 0; i < plan.size(); i++) {
      double[] d = plan.get(i);
      assertTrue(d[0] >= 2 && d[0] < 38, "window " + d[0]);
      assertTrue(d[1] >= 0 && d[1] < 1, "fraction " + d[1]);
      if (i > 0) {
        assertTrue(d[0] - plan.get(i - 1)[0] >= 2, "two windows apart");
      }
      assertEquals(d[0], new RollingDeploySimulation(params(40, 10)).deployPlan().get(i)[0]);
    }
  }

  @Test
  void taskTime_withinTheRangeAndTheSameForEveryConfiguration() {
    RollingDeploySimulation sim = new RollingDeploySimulation(params(10, 1));
    for (int w = 0; w < 50; w++) {
      Duration t = sim.taskTime(w, 1);
      assertTrue(t.compareTo(Duration.ofMillis(100)) >= 0 && t.compareTo(Duration.ofMillis(300)) < 0, t.toString());
      assertEquals(t, new RollingDeploySimulation(params(10, 1)).taskTime(w, 1));
    }
  }

  @Test
  void claimsLost_storeKeepsEverythingButItsClaims(@TempDir Path dir) throws Exception {
    try (FsObjectStore fs = FsObjectStore.open(dir)) {
      ObjectStore lost = RollingDeploySimulation.claimsLost(fs);
      var held = lost.claims().orElseThrow().claim("p/1/k", "a", null, Duration.ofSeconds(1));
      assertEquals("HELD", held.result().name());
      assertTrue(fs.readClaim("p/1/k").isEmpty(), "written nowhere");
      assertTrue(lost.claims().orElseThrow().readClaim("p/1/k").isEmpty());
      lost.putIfAbsent("p/1/k", Payload.ofBytes(new byte[] {1}), "a");
      assertTrue(fs.exists("p/1/k"), "everything else is the store's own");
      assertTrue(lost.publishHistory().isPresent());
    }
  }

  @Test
  void run_everyConfiguration_publishesEveryWindowOnceWithoutClobberOrLostDivergence(@TempDir Path dir)
      throws Exception {
    RollingDeploySimulation sim = new RollingDeploySimulation(params(5, 1));
    for (RollingDeploySimulation.Config c : RollingDeploySimulation.CONFIGS) {
      RollingDeploySimulation.Result r = sim.run(c, dir.resolve(c.name().replaceAll("[^a-z]", "-")));
      assertEquals(5, r.published(), c.name());
      assertEquals(0, r.clobbers(), c.name());
      assertEquals(r.divergentReported(), r.divergentFound(), c.name() + ": every divergence reported is found");
      assertTrue(r.workAll() > 0, c.name());
    }
    String table = RollingDeploySimulation.table(params(5, 1), List.of());
    assertTrue(table.contains("| configuration |"), table);
  }
}
