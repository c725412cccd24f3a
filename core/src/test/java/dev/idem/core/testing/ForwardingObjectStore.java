package dev.idem.core.testing;

import dev.idem.core.store.Acknowledgement;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.Retirement;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;

/**
 * Delegates every call to another store; a test overrides one method to inject a behaviour (a fault, a
 * delay, a contract broken on purpose) and leaves the rest real.
 */
public class ForwardingObjectStore implements ObjectStore {
  private final ObjectStore d;

  public ForwardingObjectStore(ObjectStore delegate) {
    this.d = delegate;
  }

  @Override public String describe() { return d.describe(); }
  @Override public boolean exists(String key) throws IOException { return d.exists(key); }
  @Override public Optional<ObjectInfo> stat(String key) throws IOException { return d.stat(key); }
  @Override public Optional<Integer> schemaOf(String key) throws IOException { return d.schemaOf(key); }
  @Override public Optional<InputStream> open(String key) throws IOException { return d.open(key); }
  @Override public PutOutcome putIfAbsent(String key, Payload payload, String writerId) throws IOException { return d.putIfAbsent(key, payload, writerId); }
  @Override public void checkWritable() throws IOException { d.checkWritable(); }
  @Override public java.util.OptionalLong usableSpace() throws IOException { return d.usableSpace(); }
  @Override public Optional<PointerState> readPointer(String pipeline) throws IOException { return d.readPointer(pipeline); }
  @Override public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) throws IOException { return d.compareAndSetPointer(pipeline, expectedToken, next); }
  @Override public boolean history(String prefix, HistoryVisitor visitor) throws IOException { return d.history(prefix, visitor); }
  @Override public boolean list(String prefix, ListingVisitor visitor) throws IOException { return d.list(prefix, visitor); }
  @Override public boolean delete(String key) throws IOException { return d.delete(key); }
  @Override public int deleteRecords(String key) throws IOException { return d.deleteRecords(key); }
  @Override public Optional<Retirement> readRetirement(String pipeline) throws IOException { return d.readRetirement(pipeline); }
  @Override public Optional<Retirement> raiseRetirement(Retirement proposed) throws IOException { return d.raiseRetirement(proposed); }
  @Override public void acknowledge(Acknowledgement ack) throws IOException { d.acknowledge(ack); }
  @Override public List<Acknowledgement> acknowledgements(String prefix) throws IOException { return d.acknowledgements(prefix); }
  @Override public SortedSet<String> pipelines() throws IOException { return d.pipelines(); }
  @Override public List<String> sweep(Duration grace, boolean dryRun) throws IOException { return d.sweep(grace, dryRun); }
  @Override public void close() throws IOException { d.close(); }
}
