package dev.idem.core.testing;

import dev.idem.core.store.Acknowledgement;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Claim;
import dev.idem.core.store.Claims;
import dev.idem.core.store.MissingCapabilityException;
import dev.idem.core.store.LeftoverSweep;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.store.PublishHistory;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.Retirement;
import dev.idem.core.store.RetirementMarks;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;

/**
 * Delegates every call to another store; a test overrides one method to inject a behaviour (a fault, a
 * delay, a contract broken on purpose) and leaves the rest real. It has the capabilities the delegate
 * has ({@link #publishHistory()}, {@link #claims()} and the others are this store, so a test's override of a capability's
 * method is the one callers reach); {@link #without} hides some, as a store that lacks them. A history
 * query walks {@link #history(String, HistoryVisitor)}, so overriding that one covers both forms.
 */
public class ForwardingObjectStore implements ObjectStore, PublishHistory, RetirementMarks, LeftoverSweep, Claims {
  private final ObjectStore d;

  public ForwardingObjectStore(ObjectStore delegate) {
    this.d = delegate;
  }

  @Override public String describe() { return d.describe(); }
  @Override public boolean exists(String key) throws IOException { return d.exists(key); }
  @Override public Optional<ObjectInfo> stat(String key) throws IOException { return d.stat(key); }
  @Override public Optional<Integer> schemaOf(String key) throws IOException { return history().schemaOf(key); }
  @Override public Optional<InputStream> open(String key) throws IOException { return d.open(key); }
  @Override public PutOutcome putIfAbsent(String key, Payload payload, String writerId) throws IOException { return d.putIfAbsent(key, payload, writerId); }
  @Override public void checkWritable() throws IOException { d.checkWritable(); }
  @Override public java.util.OptionalLong usableSpace() throws IOException { return d.usableSpace(); }
  @Override public Optional<PointerState> readPointer(String pipeline) throws IOException { return d.readPointer(pipeline); }
  @Override public Optional<Pointer> peekPointer(String pipeline) throws IOException { return d.peekPointer(pipeline); }
  @Override public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) throws IOException { return d.compareAndSetPointer(pipeline, expectedToken, next); }
  @Override public boolean history(String prefix, HistoryVisitor visitor) throws IOException { return history().history(prefix, visitor); }
  @Override public boolean list(String prefix, ListingVisitor visitor) throws IOException { return d.list(prefix, visitor); }
  @Override public boolean delete(String key) throws IOException { return d.delete(key); }
  @Override public int deleteRecords(String key) throws IOException { return history().deleteRecords(key); }
  @Override public Optional<Retirement> readRetirement(String pipeline) throws IOException { return marks().readRetirement(pipeline); }
  @Override public Retirement raiseRetirement(Retirement proposed) throws IOException { return marks().raiseRetirement(proposed); }
  @Override public void acknowledge(Acknowledgement ack) throws IOException { history().acknowledge(ack); }
  @Override public List<Acknowledgement> acknowledgements(String prefix) throws IOException { return history().acknowledgements(prefix); }
  @Override public SortedSet<String> pipelines() throws IOException { return d.pipelines(); }
  @Override public List<String> sweep(Duration grace, boolean dryRun) throws IOException { return LeftoverSweep.of(d, FORWARDED).sweep(grace, dryRun); }
  @Override public Claimed claim(String key, String writer, Duration expected, Duration ttl) throws IOException { return claimsOf().claim(key, writer, expected, ttl); }
  @Override public Claim renewClaim(Claim held) throws IOException { return claimsOf().renewClaim(held); }
  @Override public boolean releaseClaim(Claim claim) throws IOException { return claimsOf().releaseClaim(claim); }
  @Override public Optional<Claim> readClaim(String key) throws IOException { return claimsOf().readClaim(key); }
  @Override public List<Claim> listClaims(String prefix) throws IOException { return claimsOf().listClaims(prefix); }
  @Override public void close() throws IOException { d.close(); }

  @Override public Optional<PublishHistory> publishHistory() { return d.publishHistory().map(h -> this); }
  @Override public Optional<RetirementMarks> retirementMarks() { return d.retirementMarks().map(m -> this); }
  @Override public Optional<LeftoverSweep> leftoverSweep() { return d.leftoverSweep().map(s -> this); }
  @Override public Optional<Claims> claims() { return d.claims().map(c -> this); }

  private static final String FORWARDED = "a call to it cannot be forwarded";

  private Claims claimsOf() throws IOException {
    return d.claims().orElseThrow(() -> new MissingCapabilityException(d, "claims", FORWARDED));
  }

  private PublishHistory history() throws IOException {
    return PublishHistory.of(d, FORWARDED);
  }

  private RetirementMarks marks() throws IOException {
    return RetirementMarks.of(d, FORWARDED);
  }

  /** A capability {@link #without} can hide. */
  public enum Capability { HISTORY, RETIREMENT_MARKS, SWEEP, CLAIMS }

  /**
   * {@code delegate} as a store that lacks {@code hidden}: its accessors for them are empty, as a store
   * written without them answers (an embedder's, or one that keeps no such records).
   */
  public static ForwardingObjectStore without(ObjectStore delegate, Capability... hidden) {
    java.util.Set<Capability> h = java.util.Set.of(hidden);
    return new ForwardingObjectStore(delegate) {
      @Override public Optional<PublishHistory> publishHistory() {
        return h.contains(Capability.HISTORY) ? Optional.empty() : super.publishHistory();
      }

      @Override public Optional<RetirementMarks> retirementMarks() {
        return h.contains(Capability.RETIREMENT_MARKS) ? Optional.empty() : super.retirementMarks();
      }

      @Override public Optional<LeftoverSweep> leftoverSweep() {
        return h.contains(Capability.SWEEP) ? Optional.empty() : super.leftoverSweep();
      }

      @Override public Optional<Claims> claims() {
        return h.contains(Capability.CLAIMS) ? Optional.empty() : super.claims();
      }
    };
  }
}
