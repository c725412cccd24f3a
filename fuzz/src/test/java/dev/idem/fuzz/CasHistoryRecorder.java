package dev.idem.fuzz;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.function.Supplier;

/**
 * Runs a plan of pointer reads and compare-and-swaps from real threads, each with its own store
 * instance, and records every operation's invoke and response time for {@link LinearizabilityChecker}.
 * Every swap offers a pointer with a unique writer id, so the writer id read back identifies the
 * value (and a content-derived token identifies it too).
 */
final class CasHistoryRecorder {

  /** What one step of a thread's plan does. */
  enum Planned {
    /** Reads the pointer. */
    READ,
    /** Reads the pointer, then swaps with the token just read (what PointerAdvancer does). */
    CAS_FRESH,
    /** Swaps with the token of the oldest read this thread made: a slow, stale writer. */
    CAS_STALE,
    /** Swaps expecting no pointer at all. */
    CAS_ABSENT
  }

  static final String PIPELINE = "lin";

  private CasHistoryRecorder() {}

  /** The object every pointer names; the pointer's writer id is what tells values apart. */
  static ObjectInfo prepare(ObjectStore store) throws IOException {
    String key = RunSpec.of(PIPELINE, new Window(60, 60), 1).outputKey().toString();
    store.putIfAbsent(key, Payload.ofBytes(new byte[] {1, 2, 3}), "setup");
    return store.stat(key).orElseThrow();
  }

  static List<LinearizabilityChecker.Op> record(List<List<Planned>> plan, Supplier<ObjectStore> stores, ObjectInfo target)
      throws Exception {
    List<LinearizabilityChecker.Op> history = Collections.synchronizedList(new ArrayList<>());
    CyclicBarrier start = new CyclicBarrier(plan.size());
    List<Thread> threads = new ArrayList<>();
    List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < plan.size(); t++) {
      int thread = t;
      List<Planned> steps = plan.get(t);
      Thread th = new Thread(() -> {
        try (ObjectStore store = stores.get()) {
          start.await();
          runThread(thread, steps, store, target, history);
        } catch (Throwable e) {
          errors.add(e);
        }
      }, "cas-" + t);
      threads.add(th);
      th.start();
    }
    for (Thread th : threads) {
      th.join(60_000);
    }
    if (!errors.isEmpty()) {
      throw new AssertionError("a CAS thread failed: " + errors.get(0), errors.get(0));
    }
    return List.copyOf(history);
  }

  private static void runThread(int thread, List<Planned> steps, ObjectStore store, ObjectInfo target,
      List<LinearizabilityChecker.Op> history) throws IOException {
    Map<String, String> valueOfToken = new HashMap<>();
    String oldestToken = null;
    for (int i = 0; i < steps.size(); i++) {
      String token = null;
      Planned step = steps.get(i);
      if (step == Planned.READ || step == Planned.CAS_FRESH) {
        long invoke = System.nanoTime();
        Optional<PointerState> s = store.readPointer(PIPELINE);
        long response = System.nanoTime();
        String value = s.map(p -> p.pointer().writer()).orElse(null);
        history.add(new LinearizabilityChecker.Op(thread, LinearizabilityChecker.Kind.READ, null, value,
            LinearizabilityChecker.Outcome.VALUE, invoke, response));
        if (s.isPresent()) {
          token = s.get().token();
          valueOfToken.put(token, value);
          if (oldestToken == null) {
            oldestToken = token;
          }
        }
        if (step == Planned.READ) {
          continue;
        }
      } else if (step == Planned.CAS_STALE) {
        token = oldestToken;
      }
      String value = "t" + thread + "s" + i;
      Pointer next = new Pointer(PIPELINE, target.key(), 60, 60, 1, target.sha256(), target.size(), value, Instant.EPOCH);
      long invoke = System.nanoTime();
      CasResult r = store.compareAndSetPointer(PIPELINE, token, next);
      long response = System.nanoTime();
      history.add(new LinearizabilityChecker.Op(thread, LinearizabilityChecker.Kind.CAS,
          token == null ? null : valueOfToken.get(token), value, LinearizabilityChecker.Outcome.valueOf(r.name()),
          invoke, response));
    }
  }
}
