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
 *
 * <p>An object the pointer names that is missing, or whose bytes differ from what the pointer or an
 * earlier read says, is kept as a {@link Mismatch}, not reported at once: the checker judges it when the
 * run's outcomes are known (on a server that applies every completion, a losing publisher's version is
 * current for a moment).
 */
final class PointerFollower implements Runnable {
  /**
   * Bytes at {@code key} that disagree with the pointer or an earlier read, or none at all.
   *
   * @param shas the SHA-256s read there that were not the expected ones; empty when nothing was there
   * @param violation what to report when nothing excuses it
   */
  record Mismatch(String key, List<String> shas, String violation) {}

  private final ObjectStore store;
  private final List<String> pipelines;
  private final ConcurrentMap<String, String> contentByKey;
  private final List<String> violations;
  private final List<Mismatch> mismatches = syncList();
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

  /** What this reader found missing or read that disagreed with the pointer or an earlier read. */
  List<Mismatch> mismatches() {
    synchronized (mismatches) {
      return List.copyOf(mismatches);
    }
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
      mismatches.add(new Mismatch(p.key(), List.of(), "G1: pointer of " + pipeline + " names " + p.key()
          + ", which a reader could not find"));
      return;
    }
    byte[] bytes;
    try (InputStream s = in.get()) {
      bytes = s.readAllBytes();
    }
    String sha = Sha256.of(bytes);
    if (bytes.length != p.size() || !sha.equals(p.sha256())) {
      mismatches.add(new Mismatch(p.key(), List.of(sha), "P1: reader got " + bytes.length + " bytes sha256 " + sha
          + " at " + p.key() + " but the pointer says " + p.size() + " bytes sha256 " + p.sha256()));
    }
    String first = contentByKey.putIfAbsent(p.key(), sha);
    if (first != null && !first.equals(sha)) {
      mismatches.add(new Mismatch(p.key(), List.of(first, sha), "P2: bytes at " + p.key() + " changed from sha256 "
          + first + " to " + sha));
    }
  }

  static <T> List<T> syncList() {
    return java.util.Collections.synchronizedList(new ArrayList<>());
  }
}
