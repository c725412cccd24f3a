package dev.idem.fuzz;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Counts one replica's store operations and acts at its fate's step: throws an {@link InjectedFault}
 * once, throws {@link SimulatedDeath}, pauses for a {@link Fate.Stalls stall}, or (in a replica
 * process) announces the step and waits to be killed.
 *
 * <p>A call is numbered when it starts (its "before"), and its "after" carries the same number: the
 * thread that made the call reports both. A replica mostly calls one at a time, but the parts of an S3
 * multipart upload are in flight together, each reported by its own proxy thread; numbering the after
 * by the count at that moment would give both parts' afters the number of the last part to start, and
 * a fault after part 1 would never fire.
 */
final class FateHook implements StepHook {
  /** What a replica process does at its death step: announce it, then wait for the signal. */
  interface DeathAction {
    void die(Step step);
  }

  private final Fate fate;
  private final DeathAction onDeath;
  private final Map<String, Integer> counts = new HashMap<>();
  /** The number this thread's last call of each operation started with. */
  private final ThreadLocal<Map<String, Integer>> started = ThreadLocal.withInitial(HashMap::new);
  private boolean fired;
  /** Set as the thread dies, before its death unwinds through the publisher (see {@link #died()}). */
  private volatile boolean died;
  /** The thread that reached the step: a replica's own, or (on the filesystem) its claim heartbeat's. */
  private volatile Thread firedOn;

  FateHook(Fate fate, DeathAction onDeath) {
    this.fate = fate;
    this.onDeath = onDeath;
  }

  @Override
  public synchronized void at(String op, boolean after) throws IOException {
    int n;
    if (after) {
      n = started.get().getOrDefault(op, counts.getOrDefault(op, 0));
    } else {
      n = counts.merge(op, 1, Integer::sum);
      started.get().put(op, n);
    }
    if (fired) {
      return;
    }
    Step step = fate instanceof Fate.Dies d ? d.step() : fate instanceof Fate.Faulted f ? f.step()
        : fate instanceof Fate.Stalls st ? st.step() : null;
    if (step == null || !step.op().equals(op) || step.after() != after || step.nth() != n) {
      return;
    }
    fired = true;
    firedOn = Thread.currentThread();
    if (fate instanceof Fate.Stalls st) {
      stall(st.millis());
      return;
    }
    if (fate instanceof Fate.Faulted) {
      throw new InjectedFault(step);
    }
    Fate.Dies d = (Fate.Dies) fate;
    if (d.death() == Fate.Death.THREAD_DEATH) {
      died = true;
      throw new SimulatedDeath(step);
    }
    onDeath.die(step);
  }

  /**
   * Sleeps through the stall; an interrupt ends it early and is kept for the caller. Holding this
   * hook's monitor is harmless: a replica's operations run on one thread, and the runner only reads
   * {@link #fired()} after they ended.
   */
  private static void stall(int millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Whether the replica's thread died at its step. Read without the hook's monitor, which a stall
   * holds: the claim heartbeat asks it while its replica may be stalled.
   */
  boolean died() {
    return died;
  }

  /** The thread that reached the step, or {@code null} before it was reached. */
  Thread firedOn() {
    return firedOn;
  }

  /** Whether the step was reached. */
  synchronized boolean fired() {
    return fired;
  }
}
