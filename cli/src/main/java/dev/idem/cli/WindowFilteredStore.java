package dev.idem.cli;

import dev.idem.core.OutputKey;
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
 * A read view of a store whose {@link #history} keeps only idem keys whose window starts at or after
 * a bound: what {@code idem scan --pipeline P --since D} hands to core's divergence scan. Every other
 * operation goes to the store unchanged. (If core's scan grows a key filter, this class goes away.)
 */
final class WindowFilteredStore implements ObjectStore {
  private final ObjectStore store;
  private final long minWindowStart;

  WindowFilteredStore(ObjectStore store, long minWindowStart) {
    this.store = store;
    this.minWindowStart = minWindowStart;
  }

  @Override
  public boolean history(String prefix, HistoryVisitor visitor) throws IOException {
    return store.history(prefix, h -> !inRange(h.key()) || visitor.visit(h));
  }

  private boolean inRange(String key) {
    return OutputKey.looksLikeKey(key) && OutputKey.parse(key).windowStartEpochSecond() >= minWindowStart;
  }

  @Override
  public String describe() {
    return store.describe();
  }

  @Override
  public boolean exists(String key) throws IOException {
    return store.exists(key);
  }

  @Override
  public Optional<ObjectInfo> stat(String key) throws IOException {
    return store.stat(key);
  }

  @Override
  public Optional<InputStream> open(String key) throws IOException {
    return store.open(key);
  }

  @Override
  public PutOutcome putIfAbsent(String key, Payload payload, String writerId) throws IOException {
    return store.putIfAbsent(key, payload, writerId);
  }

  @Override
  public Optional<PointerState> readPointer(String pipeline) throws IOException {
    return store.readPointer(pipeline);
  }

  @Override
  public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) throws IOException {
    return store.compareAndSetPointer(pipeline, expectedToken, next);
  }

  @Override
  public boolean list(String prefix, ListingVisitor visitor) throws IOException {
    return store.list(prefix, visitor);
  }

  @Override
  public boolean delete(String key) throws IOException {
    return store.delete(key);
  }

  @Override
  public List<String> sweep(Duration grace, boolean dryRun) throws IOException {
    return store.sweep(grace, dryRun);
  }

  @Override
  public void close() {
    // The caller owns the underlying store.
  }
}
