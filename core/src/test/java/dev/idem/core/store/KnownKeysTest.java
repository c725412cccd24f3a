package dev.idem.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class KnownKeysTest {
  @Test
  void remember_thenContains() {
    KnownKeys keys = new KnownKeys(4);
    assertFalse(keys.contains("a"));
    keys.remember("a", keys.stamp());
    assertTrue(keys.contains("a"));
    assertFalse(keys.contains("b"));
  }

  @Test
  void remember_full_boundKept() {
    KnownKeys keys = new KnownKeys(2);
    keys.remember("a", keys.stamp());
    keys.remember("b", keys.stamp());
    assertTrue(keys.contains("a") && keys.contains("b"));
    keys.remember("c", keys.stamp());
    assertTrue(keys.contains("c"));
    assertFalse(keys.contains("a") || keys.contains("b"), "a full cache is cleared before it takes more");
  }

  @Test
  void remember_sameKeyBelowBound_keepsTheOthers() {
    KnownKeys keys = new KnownKeys(2);
    keys.remember("a", keys.stamp());
    keys.remember("a", keys.stamp());
    assertTrue(keys.contains("a"));
    keys.remember("b", keys.stamp());
    assertTrue(keys.contains("a") && keys.contains("b"));
  }

  @Test
  void remember_capacityZero_remembersNothing() {
    KnownKeys keys = new KnownKeys(0);
    keys.remember("a", keys.stamp());
    assertFalse(keys.contains("a"));
  }

  @Test
  void constructor_negativeCapacity_refused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new KnownKeys(-1));
    assertEquals("known-keys capacity must be >= 0, was -1", e.getMessage());
  }

  @Test
  void forget_removesTheKey() {
    KnownKeys keys = new KnownKeys(4);
    keys.remember("a", keys.stamp());
    keys.remember("b", keys.stamp());
    keys.forget("a");
    assertFalse(keys.contains("a"));
    assertTrue(keys.contains("b"));
  }

  @Test
  void remember_forgetSinceStamp_notRemembered() {
    KnownKeys keys = new KnownKeys(4);
    long seen = keys.stamp();
    keys.forget("a"); // a delete that ran between the lookup and the remember
    keys.remember("a", seen);
    assertFalse(keys.contains("a"));
    keys.remember("a", keys.stamp());
    assertTrue(keys.contains("a"), "a lookup begun after the delete may remember the key");
  }

  @Test
  void stamp_countsForgets() {
    KnownKeys keys = new KnownKeys(4);
    long before = keys.stamp();
    keys.forget("a");
    keys.forget("a");
    assertEquals(before + 2, keys.stamp());
  }

  /**
   * A lookup that saw the key before a concurrent delete, racing that delete's forget: whatever the
   * interleaving, the key is not remembered once both have returned.
   */
  @Test
  void remember_racingForget_keyNotLeftBehind() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 2_000; round++) {
        KnownKeys keys = new KnownKeys(1024);
        String key = "k" + round;
        long seen = keys.stamp(); // the lookup begins, and finds the object
        CyclicBarrier start = new CyclicBarrier(2);
        List<Future<?>> both = new ArrayList<>();
        both.add(pool.submit(() -> {
          start.await();
          keys.remember(key, seen);
          return null;
        }));
        both.add(pool.submit(() -> {
          start.await();
          keys.forget(key); // the delete, after the lookup
          return null;
        }));
        for (Future<?> f : both) {
          f.get();
        }
        assertFalse(keys.contains(key), "round " + round + ": a key deleted after its lookup was remembered");
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
