package dev.idem.store.fs;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A bounded set of keys known to hold an object, so the skip path's {@link FsObjectStore#exists}
 * costs no system call for a key this process has already seen. Published objects only go away by
 * retention, and {@link FsObjectStore#delete} evicts; a delete by another process is not seen, which
 * the SPI allows ({@code exists} is a pre-check; {@code stat} is authoritative).
 *
 * <p>Bounded by clearing when full: crude, but O(1), lock-free, and a miss only costs one {@code stat}.
 */
final class KnownKeys {
  private final Set<String> keys = ConcurrentHashMap.newKeySet();
  private final int capacity;

  KnownKeys(int capacity) {
    this.capacity = capacity;
  }

  boolean contains(String key) {
    return keys.contains(key);
  }

  void add(String key) {
    if (capacity == 0) {
      return;
    }
    if (keys.size() >= capacity) {
      keys.clear();
    }
    keys.add(key);
  }

  void remove(String key) {
    keys.remove(key);
  }
}
