package dev.idem.fuzz;

import dev.idem.core.testing.ForwardingObjectStore;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.CasResult;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PutOutcome;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The scenario checker catches broken stores: each test runs one fixed scenario against the in-memory
 * store with one contract broken on purpose and expects the matching violation, and the same scenario
 * against the intact store expects none. (The real stores' breakages are in fuzz/README.md.)
 */
class CheckerSelfTest {

  private static Replica replica(int id, int startMs, int taskMs, char payload, Replica.Build build) {
    return new Replica(id, 0, startMs, taskMs, payload, build, false, new Fate.Finishes(), false);
  }

  private static List<String> run(Backend backend, Scenario s) throws Exception {
    return new ScenarioRunner(backend).runAndCheck(s);
  }

  /** The sketch's publish: check, then write over whatever is there. */
  static final class ClobberingStore extends ForwardingObjectStore {
    ClobberingStore(ObjectStore d) {
      super(d);
    }

    @Override
    public PutOutcome putIfAbsent(String key, Payload payload, String writerId) throws IOException {
      delete(key);
      return super.putIfAbsent(key, payload, writerId);
    }
  }

  /**
   * A compare-and-swap that writes whatever the token, and an old build that is slow to do it.
   *
   * <p>A pointer CAS that ignores its expected token, ordered so the old build's write always lands
   * after the new build's: the new replica's CAS waits until the old one has read the (empty)
   * pointer and entered its CAS, and the old one then waits until the new pointer is in place before
   * writing blindly. Latches, not sleeps, so the regression happens on a loaded machine too (a
   * 150 ms sleep let the new replica arrive too late under load, and the test failed).
   */
  static final class BlindSlowCasStore extends ForwardingObjectStore {
    private final CountDownLatch oldBuildInCas = new CountDownLatch(1);

    BlindSlowCasStore(ObjectStore d) {
      super(d);
    }

    @Override
    public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) throws IOException {
      try {
        if (next.schemaVersion() == Replica.Build.OLD.schema) {
          oldBuildInCas.countDown();
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
          while (readPointer(pipeline).map(s -> s.pointer().schemaVersion() != Replica.Build.NEW.schema).orElse(true)
              && System.nanoTime() < deadline) {
            Thread.sleep(1);
          }
        } else {
          oldBuildInCas.await(20, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted in the blind CAS breakage");
      }
      String now = readPointer(pipeline).map(s -> s.token()).orElse(null);
      return super.compareAndSetPointer(pipeline, now, next);
    }
  }

  private static final Scenario DIVERGENT_RACE = new Scenario(Backend.Kind.MEMORY, List.of(
      replica(1, 0, 20, 'A', Replica.Build.OLD), replica(2, 0, 20, 'B', Replica.Build.OLD)), 1);

  private static final Scenario ROLLING_DEPLOY = new Scenario(Backend.Kind.MEMORY, List.of(
      replica(1, 0, 0, 'A', Replica.Build.OLD), replica(2, 30, 0, 'A', Replica.Build.NEW)), 1);

  @Test
  void intactStore_noViolations() throws Exception {
    assertEquals(List.of(), run(new MemoryBackend(), DIVERGENT_RACE));
    assertEquals(List.of(), run(new MemoryBackend(), ROLLING_DEPLOY));
  }

  @Test
  void clobberingPublish_caught() throws Exception {
    List<String> v = run(new MemoryBackend(ClobberingStore::new), DIVERGENT_RACE);
    assertTrue(v.stream().anyMatch(s -> s.startsWith("P2") || s.startsWith("P3")), () -> "expected P2/P3 in " + v);
  }

  @Test
  void blindPointerWrite_regressionCaught() throws Exception {
    List<String> v = run(new MemoryBackend(BlindSlowCasStore::new), ROLLING_DEPLOY);
    assertTrue(v.stream().anyMatch(s -> s.startsWith("G2") || s.startsWith("G3")), () -> "expected G2/G3 in " + v);
  }

  @Test
  void story_readsAsASentencePerReplica() {
    Scenario s = new Scenario(Backend.Kind.FS, List.of(
        new Replica(1, 0, 0, 40, 'A', Replica.Build.OLD, false, new Fate.Finishes(), false),
        new Replica(2, 0, 5, 0, 'B', Replica.Build.NEW, true,
            new Fate.Dies(Fate.Death.SIGKILL, new Step("createLink(object)", true, 1)), true)), 1);
    assertEquals("""
        fs store, 1 reader following the pointer:
          replica 1 (old build, schema 3, thread) starts at +0ms, runs 40ms, publishes 'A' (61 bytes) for p0, same window; finishes
          replica 2 (new build, schema 4, own JVM) starts at +5ms, runs 0ms, publishes 'B' (150000 bytes) for p0, next window; \
        killed with SIGKILL after 'createLink(object)'""", s.toString());
  }

  @Test
  void replicaCodec_roundTrips() {
    Replica r = new Replica(3, 1, 7, 9, 'C', Replica.Build.NEW, true,
        new Fate.Faulted(Fate.Fault.HTTP_503_SLOW_DOWN, new Step("PUT object", false, 2)), true);
    assertEquals(r, ReplicaCodec.decode(ReplicaCodec.encode(r)));
  }
}
