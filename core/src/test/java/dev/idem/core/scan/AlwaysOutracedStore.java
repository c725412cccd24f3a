package dev.idem.core.scan;

import dev.idem.core.store.CasResult;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** The in-memory store, except that every pointer compare-and-swap loses a race; counts them. */
final class AlwaysOutracedStore implements ObjectStore {
  final InMemoryObjectStore d = new InMemoryObjectStore();
  final AtomicInteger compareAndSwaps = new AtomicInteger();

  @Override public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) {
    compareAndSwaps.incrementAndGet();
    return CasResult.CONFLICT;
  }

  @Override public String describe() { return d.describe(); }
  @Override public boolean exists(String key) { return d.exists(key); }
  @Override public Optional<ObjectInfo> stat(String key) { return d.stat(key); }
  @Override public Optional<InputStream> open(String key) { return d.open(key); }
  @Override public PutOutcome putIfAbsent(String key, Payload payload, String writerId) throws IOException { return d.putIfAbsent(key, payload, writerId); }
  @Override public void checkWritable() throws IOException { d.checkWritable(); }
  @Override public Optional<PointerState> readPointer(String pipeline) { return d.readPointer(pipeline); }
  @Override public boolean history(String prefix, HistoryVisitor visitor) throws IOException { return d.history(prefix, visitor); }
  @Override public boolean list(String prefix, ListingVisitor visitor) throws IOException { return d.list(prefix, visitor); }
  @Override public boolean delete(String key) { return d.delete(key); }
  @Override public int deleteRecords(String key) { return d.deleteRecords(key); }
  @Override public Optional<dev.idem.core.store.Retirement> readRetirement(String pipeline) { return d.readRetirement(pipeline); }
  @Override public Optional<dev.idem.core.store.Retirement> raiseRetirement(dev.idem.core.store.Retirement r) {
    return d.raiseRetirement(r);
  }
  @Override public List<String> sweep(Duration grace, boolean dryRun) { return d.sweep(grace, dryRun); }
  @Override public void close() {}
}
