package dev.idem.core.store;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bounded set of keys a store has seen holding an object, so that {@link ObjectStore#exists} on a key
 * already seen costs no I/O. Published objects go away only by retention, through the store's {@code
 * delete}, which {@linkplain #forget forgets} the key; a lookup that raced with that delete must not put
 * the key back, so a caller takes a {@link #stamp()} before it looks a key up and {@linkplain #remember
 * remembers} the key with it: a key forgotten since the stamp is not remembered. A delete by another
 * process or store instance is not seen: the cache serves a pre-check, never a decision that needs the
 * truth.
 *
 * <p>Bounded by clearing when full: O(1) and lock-free, and a miss costs only one lookup. Thread-safe:
 * each method is atomic on its own, and {@link #remember} with a stamp taken before a lookup never leaves
 * a key that a concurrent {@link #forget} evicted after that lookup (forget counts itself before it
 * evicts, so either it evicts after the remember's add, or the remember sees its count and evicts).
 */
public final class KnownKeys {
  private final Set<String> keys = ConcurrentHashMap.newKeySet();
  private final AtomicLong forgets = new AtomicLong();
  private final long capacity;

  /**
   * A cache of at most {@code capacity} keys; 0 remembers none.
   *
   * @throws IllegalArgumentException when {@code capacity} is negative
   */
  public KnownKeys(long capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("known-keys capacity must be >= 0, was " + capacity);
    }
    this.capacity = capacity;
  }

  /** Whether {@code key} is remembered. */
  public boolean contains(String key) {
    return keys.contains(key);
  }

  /** The count of forgets so far: take it before looking a key up, and pass it to {@link #remember}. */
  public long stamp() {
    return forgets.get();
  }

  /**
   * Remembers {@code key}, seen holding an object by a lookup begun after {@code stamp} was taken, unless
   * a key was forgotten since then (it may be this one). Clears the cache first when it is full.
   */
  public void remember(String key, long stamp) {
    if (capacity == 0) {
      return;
    }
    if (keys.size() >= capacity) {
      keys.clear();
    }
    keys.add(key);
    if (forgets.get() != stamp) {
      keys.remove(key);
    }
  }

  /** Forgets {@code key} (its object was deleted, or found gone), and stops remembers stamped before. */
  public void forget(String key) {
    forgets.incrementAndGet();
    keys.remove(key);
  }
}
