package dev.idem.fuzz;

import dev.idem.core.store.CasResult;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.testing.ForwardingObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/**
 * The in-memory backend's seam: calls a {@link StepHook} around each SPI call. A fault after a call
 * is a reply lost on the way back: the call took effect but the caller sees an I/O error, which is
 * exactly when a retry must meet its own earlier write. Calls that are not a step of the scenarios'
 * crash points (history, deletes, checkWritable: they write nothing a replica depends on) pass through.
 */
final class HookedStore extends ForwardingObjectStore {
  private final ObjectStore d;
  private final StepHook hook;

  HookedStore(ObjectStore delegate, StepHook hook) {
    super(delegate);
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

  @Override public boolean exists(String key) throws IOException { return around("exists", () -> d.exists(key)); }
  @Override public Optional<ObjectInfo> stat(String key) throws IOException { return around("stat", () -> d.stat(key)); }
  @Override public Optional<InputStream> open(String key) throws IOException { return around("open", () -> d.open(key)); }
  @Override public PutOutcome putIfAbsent(String key, Payload payload, String writerId) throws IOException {
    return around("putIfAbsent", () -> d.putIfAbsent(key, payload, writerId));
  }
  @Override public Optional<PointerState> readPointer(String pipeline) throws IOException {
    return around("readPointer", () -> d.readPointer(pipeline));
  }
  @Override public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) throws IOException {
    return around("compareAndSetPointer", () -> d.compareAndSetPointer(pipeline, expectedToken, next));
  }
  // Every replica and the observer share one memory store: closing one view leaves it to the others.
  @Override public void close() {}
}
