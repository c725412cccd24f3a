package dev.idem.store.fs;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A bounded set of keys known to hold an object, so the skip path's {@link FsObjectStore#exists}
 * costs no system call for a key this process has already seen. Published objects only go away by
 * retention: {@link FsObjectStore#delete} on this store evicts, and a lookup that raced with it does
 * not put the key back (the store counts deletes). A delete by another process or store instance is
 * not seen: {@code exists} is a pre-check, {@code stat} is authoritative, and nothing that needs the
 * truth (the pointer's durability check, the scan's pointer check) reads this cache.
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
