package dev.idem.fuzz;

import dev.idem.core.store.CasResult;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.store.PutOutcome;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The in-memory backend's seam: calls a {@link StepHook} around each SPI call. A fault after a call
 * is a reply lost on the way back: the call took effect but the caller sees an I/O error, which is
 * exactly when a retry must meet its own earlier write.
 */
final class HookedStore implements ObjectStore {
  private final ObjectStore d;
  private final StepHook hook;

  HookedStore(ObjectStore delegate, StepHook hook) {
    this.d = delegate;
    this.hook = hook;
  }

  @FunctionalInterface
  private interface Call<T> {
    T run() throws IOException;
  }

  private <T> T around(String op, Call<T> call) throws IOException {
    hook.at(op, false);
    T result = call.run();
    hook.at(op, true);
    return result;
  }

  @Override public String describe() { return d.describe(); }
  @Override public boolean exists(String key) throws IOException { return around("exists", () -> d.exists(key)); }
  @Override public Optional<ObjectInfo> stat(String key) throws IOException { return around("stat", () -> d.stat(key)); }
  @Override public Optional<InputStream> open(String key) throws IOException { return around("open", () -> d.open(key)); }
  @Override public PutOutcome putIfAbsent(String key, Payload payload, String writerId) throws IOException {
    return around("putIfAbsent", () -> d.putIfAbsent(key, payload, writerId));
  }
  // Not a step of the scenarios' crash points: it writes nothing a replica depends on.
  @Override public void checkWritable() throws IOException { d.checkWritable(); }
  @Override public Optional<PointerState> readPointer(String pipeline) throws IOException {
    return around("readPointer", () -> d.readPointer(pipeline));
  }
  @Override public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) throws IOException {
    return around("compareAndSetPointer", () -> d.compareAndSetPointer(pipeline, expectedToken, next));
  }
  @Override public boolean history(String prefix, HistoryVisitor visitor) throws IOException { return d.history(prefix, visitor); }
  @Override public boolean history(dev.idem.core.store.HistoryQuery query, HistoryVisitor visitor) throws IOException { return d.history(query, visitor); }
  @Override public boolean list(String prefix, ListingVisitor visitor) throws IOException { return d.list(prefix, visitor); }
  @Override public boolean delete(String key) throws IOException { return d.delete(key); }
  @Override public int deleteRecords(String key) throws IOException { return d.deleteRecords(key); }
  @Override public Optional<dev.idem.core.store.Retirement> readRetirement(String pipeline) throws IOException {
    return d.readRetirement(pipeline);
  }
  @Override public Optional<dev.idem.core.store.Retirement> raiseRetirement(dev.idem.core.store.Retirement proposed)
      throws IOException {
    return d.raiseRetirement(proposed);
  }
  @Override public List<String> sweep(Duration grace, boolean dryRun) throws IOException { return d.sweep(grace, dryRun); }
  @Override public void close() {}
}
