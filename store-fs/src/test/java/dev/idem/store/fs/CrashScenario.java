package dev.idem.store.fs;

import dev.idem.core.Sha256;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;

/**
 * The two operations the crash tests interrupt, from a known starting state, so the parent (which
 * records their filesystem calls in-process) and the child (which pauses at one of them) do exactly
 * the same thing.
 */
final class CrashScenario {
  static final String PIPELINE = "crash";
  static final String OLD = StoreWorker.key(PIPELINE, 60, 1);
  static final String FRESH = StoreWorker.key(PIPELINE, 60, 2);
  static final String NEXT = StoreWorker.key(PIPELINE, 60, 3);

  private CrashScenario() {}

  static byte[] bytesOf(String key) {
    return StoreWorker.content(key, "canonical", 100_000);
  }

  /** Two generations and a pointer at the first; directories exist, so the scenarios make none. */
  static void setUp(Path root) throws IOException {
    FsObjectStore store = FsObjectStore.open(root);
    store.putIfAbsent(OLD, Payload.ofBytes(bytesOf(OLD)), "setup");
    store.putIfAbsent(NEXT, Payload.ofBytes(bytesOf(NEXT)), "setup");
    store.compareAndSetPointer(PIPELINE, null, pointer(store, OLD, 1));
  }

  static Pointer pointer(FsObjectStore store, String key, int schema) throws IOException {
    return Pointer.to(store.stat(key).orElseThrow(), 60, schema, "setup", Instant.EPOCH);
  }

  /** {@code put}: publish a fresh key. {@code cas}: move the pointer from OLD to NEXT. */
  static void run(FsObjectStore store, String scenario) throws IOException {
    switch (scenario) {
      case "put" -> store.putIfAbsent(FRESH, Payload.ofBytes(bytesOf(FRESH)), "crasher");
      case "cas" -> store.compareAndSetPointer(PIPELINE, Sha256.of(pointer(store, OLD, 1).toBytes()), pointer(store, NEXT, 3));
      default -> throw new IllegalArgumentException(scenario);
    }
  }
}
