package dev.idem.fuzz;

import dev.idem.core.Sha256;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A reader that keeps following every pipeline's pointer while the replicas run, the way a downstream
 * consumer does, and checks each generation as it reads it: the pointer parses (P1), names an object
 * (G1) whose bytes have the size and SHA-256 the pointer states (P1), a key's bytes never change (P2),
 * and the positions it sees never go backwards (G2).
 */
final class PointerFollower implements Runnable {
  private final ObjectStore store;
  private final List<String> pipelines;
  private final ConcurrentMap<String, String> contentByKey;
  private final List<String> violations;
  private final Map<String, Pointer.Position> last = new HashMap<>();
  private final Map<String, Pointer.Position> highest = new ConcurrentHashMap<>();
  private final long pauseMillis;
  private volatile boolean stop;

  /**
   * @param contentByKey shared by all readers: the first SHA-256 anyone read at a key
   * @param violations shared, synchronized
   * @param pauseMillis pause between rounds, so that readers load the store without starving writers
   */
  PointerFollower(ObjectStore store, List<String> pipelines, ConcurrentMap<String, String> contentByKey, List<String> violations,
      long pauseMillis) {
    this.store = store;
    this.pauseMillis = pauseMillis;
    this.pipelines = List.copyOf(pipelines);
    this.contentByKey = contentByKey;
    this.violations = violations;
  }

  void stop() {
    stop = true;
  }

  /** The highest position this reader saw per pipeline. */
  Map<String, Pointer.Position> highest() {
    return highest;
  }

  @Override
  public void run() {
    // One last round after stop, so that the final state is read at least once.
    boolean lastRound = false;
    while (!lastRound) {
      lastRound = stop;
      for (String pipeline : pipelines) {
        try {
          readOnce(pipeline);
        } catch (IOException | RuntimeException e) {
          violations.add("P1: reader failed on pipeline " + pipeline + ": " + e);
          return;
        }
      }
      Thread.onSpinWait();
      if (!lastRound) {
        try {
          Thread.sleep(pauseMillis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private void readOnce(String pipeline) throws IOException {
    Optional<PointerState> state = store.readPointer(pipeline);
    if (state.isEmpty()) {
      if (last.containsKey(pipeline)) {
        violations.add("G2: pointer of " + pipeline + " vanished after the reader saw " + last.get(pipeline));
      }
      return;
    }
    Pointer p = state.get().pointer();
    Pointer.Position previous = last.get(pipeline);
    if (previous != null && p.position().compareTo(previous) < 0) {
      violations.add("G2: reader saw " + pipeline + " go back from " + previous + " to " + p.position());
    }
    last.put(pipeline, p.position());
    highest.merge(pipeline, p.position(), (a, b) -> a.compareTo(b) >= 0 ? a : b);
    Optional<InputStream> in = store.open(p.key());
    if (in.isEmpty()) {
      violations.add("G1: pointer of " + pipeline + " names " + p.key() + ", which a reader could not find");
      return;
    }
    byte[] bytes;
    try (InputStream s = in.get()) {
      bytes = s.readAllBytes();
    }
    String sha = Sha256.of(bytes);
    if (bytes.length != p.size() || !sha.equals(p.sha256())) {
      violations.add("P1: reader got " + bytes.length + " bytes sha256 " + sha + " at " + p.key()
          + " but the pointer says " + p.size() + " bytes sha256 " + p.sha256());
    }
    String first = contentByKey.putIfAbsent(p.key(), sha);
    if (first != null && !first.equals(sha)) {
      violations.add("P2: bytes at " + p.key() + " changed from sha256 " + first + " to " + sha);
    }
  }

  static List<String> syncList() {
    return java.util.Collections.synchronizedList(new ArrayList<>());
  }
}
