package dev.idem.fuzz;

import dev.idem.core.testing.ForwardingObjectStore;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import dev.idem.store.fs.FsObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import java.util.function.Supplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * G3: the pointer's compare-and-swap is linearizable. Real threads, each with its own store instance,
 * run a generated plan of reads and swaps (fresh, stale and expect-absent tokens); the recorded history
 * must have a sequential order consistent with real time that the register model accepts.
 *
 * <p>The checker is itself checked: a store with the sketch's unlocked read-compare-write must be
 * caught, and hand-made histories must be judged as expected.
 */
@AddLifecycleHook(FuzzBudget.class)
class CasLinearizabilityProperties {

  @Provide
  Arbitrary<List<List<CasHistoryRecorder.Planned>>> plans() {
    Arbitrary<CasHistoryRecorder.Planned> step = Arbitraries.of(CasHistoryRecorder.Planned.class);
    return step.list().ofMinSize(2).ofMaxSize(5).list().ofMinSize(2).ofMaxSize(4);
  }

  static void assertLinearizable(List<List<CasHistoryRecorder.Planned>> plan, Supplier<ObjectStore> stores) throws Exception {
    ObjectInfo target;
    try (ObjectStore s = stores.get()) {
      target = CasHistoryRecorder.prepare(s);
    }
    List<LinearizabilityChecker.Op> history = CasHistoryRecorder.record(plan, stores, target);
    assertNotNull(LinearizabilityChecker.linearize(history, null),
        () -> "not linearizable; plan " + plan + "\nhistory:\n  " + String.join("\n  ", history.stream().map(Object::toString).toList()));
  }

  @Property(tries = 100, shrinking = ShrinkingMode.BOUNDED)
  void memoryStore_casIsLinearizable(@ForAll("plans") List<List<CasHistoryRecorder.Planned>> plan) throws Exception {
    InMemoryObjectStore shared = new InMemoryObjectStore();
    assertLinearizable(plan, () -> new ForwardingObjectStore(shared) {
      @Override
      public void close() {}
    });
  }

  @Property(tries = 200, shrinking = ShrinkingMode.BOUNDED)
  void fsStore_casIsLinearizable(@ForAll("plans") List<List<CasHistoryRecorder.Planned>> plan) throws Exception {
    Path root = Files.createTempDirectory("idem-fuzz-cas");
    try {
      assertLinearizable(plan, () -> {
        try {
          return FsObjectStore.open(root);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } finally {
      try (Stream<Path> s = Files.walk(root)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  @Example
  void racyStore_isCaught() throws Exception {
    List<List<CasHistoryRecorder.Planned>> plan = List.of(
        List.of(CasHistoryRecorder.Planned.CAS_FRESH, CasHistoryRecorder.Planned.CAS_FRESH, CasHistoryRecorder.Planned.READ),
        List.of(CasHistoryRecorder.Planned.CAS_FRESH, CasHistoryRecorder.Planned.CAS_FRESH, CasHistoryRecorder.Planned.READ),
        List.of(CasHistoryRecorder.Planned.CAS_FRESH, CasHistoryRecorder.Planned.CAS_FRESH, CasHistoryRecorder.Planned.READ));
    InMemoryObjectStore shared = new InMemoryObjectStore();
    CountDownLatch compared = new CountDownLatch(2);
    Supplier<ObjectStore> stores = () -> new RacyCasStore(shared, compared);
    ObjectInfo target = CasHistoryRecorder.prepare(shared);
    assertNull(LinearizabilityChecker.linearize(CasHistoryRecorder.record(plan, stores, target), null),
        "a history of an unlocked read-compare-write with two winners on one token passed as linearizable");
  }

  private static LinearizabilityChecker.Op read(int t, String v, long a, long b) {
    return new LinearizabilityChecker.Op(t, LinearizabilityChecker.Kind.READ, null, v, LinearizabilityChecker.Outcome.VALUE, a, b);
  }

  private static LinearizabilityChecker.Op cas(int t, String e, String v, LinearizabilityChecker.Outcome o, long a, long b) {
    return new LinearizabilityChecker.Op(t, LinearizabilityChecker.Kind.CAS, e, v, o, a, b);
  }

  @Example
  void checker_twoWinnersOnOneToken_rejected() {
    List<LinearizabilityChecker.Op> h = List.of(
        cas(0, null, "a", LinearizabilityChecker.Outcome.SWAPPED, 0, 10),
        cas(1, null, "b", LinearizabilityChecker.Outcome.SWAPPED, 1, 11));
    assertNull(LinearizabilityChecker.linearize(h, null));
  }

  @Example
  void checker_overlappingReadOfEitherValue_accepted() {
    List<LinearizabilityChecker.Op> h = List.of(
        cas(0, null, "a", LinearizabilityChecker.Outcome.SWAPPED, 0, 10),
        read(1, null, 1, 2),
        read(2, "a", 3, 4),
        cas(1, "a", "b", LinearizabilityChecker.Outcome.SWAPPED, 5, 20),
        cas(2, null, "c", LinearizabilityChecker.Outcome.CONFLICT, 6, 7));
    assertTrue(LinearizabilityChecker.linearize(h, null) != null);
  }

  @Example
  void checker_readOfOverwrittenValueAfterTheSwapReturned_rejected() {
    List<LinearizabilityChecker.Op> h = List.of(
        cas(0, null, "a", LinearizabilityChecker.Outcome.SWAPPED, 0, 1),
        cas(0, "a", "b", LinearizabilityChecker.Outcome.SWAPPED, 2, 3),
        read(1, "a", 4, 5));
    assertNull(LinearizabilityChecker.linearize(h, null));
  }
}
