package dev.idem.core.proof;

import dev.idem.core.store.Acknowledgement;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Claims;
import dev.idem.core.store.HistoryQuery;
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
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;

/**
 * A store that idem writes to only once it is proven (S1): wraps any {@link ObjectStore} and, before
 * this instance's first write, either trusts the store's marker or probes the store and creates the
 * marker.
 *
 * <h2>Before the first write ({@link #requireWritable})</h2>
 *
 * <ol>
 *   <li>Read the marker ({@link StoreMarker#KEY}). Present: check it names this process's store kind and
 *       pointer mode (a process that chose no mode takes the marker's, {@link StoreProver#pointerModeChosen}),
 *       and trust it; no probe.
 *   <li>Absent: probe ({@link StoreProver#probe}). A required guarantee missing: refuse with one line
 *       naming what the store ignored and what depends on it; nothing is written at any key. This holds
 *       also when a later probe then failed: a store found lacking is refused for that, not reported
 *       as unreachable.
 *   <li>All held: create the marker create-only. Another process created one first: read that one and
 *       check it as in step 1 (two racing first writers both probe; one marker wins).
 *   <li>Hand the trusted marker to the prover ({@link StoreProver#adopt}), which returns the store to
 *       write through, configured with what the marker records about the server. Every write of this
 *       instance goes there; reads go to the wrapped store.
 * </ol>
 *
 * Writes are {@link #putIfAbsent}, {@link #compareAndSetPointer}, {@link #raiseRetirement} and {@link
 * #acknowledge}; {@link #checkWritable} proves too. Deletes ({@link #delete}, {@link #deleteRecords},
 * {@link #sweep}) rely on no guarantee a probe shows: on a store with a marker they are checked against
 * it as a write is, on one without they neither probe nor create the marker, so a command that only
 * deletes ({@code idem gc} on a mistyped store) never creates a store. Reads never probe and never
 * create anything; {@link #readPointer} (and {@link #peekPointer}, where this process chose a pointer
 * mode) reads the marker once, when there is one, and refuses a store whose marker names another pointer mode than the one this
 * process chose (a process that chose none takes the marker's), since a reader in the other mode would
 * follow a pointer that writers no longer move. A store without a marker is
 * read as it is (legacy buckets idem never wrote).
 *
 * <h2>Failure states</h2>
 *
 * {@link StoreRefusedException}: nothing written at any key (probe scratch removed), and every later
 * write of this instance tries again. Another {@link IOException} while proving: possibly scratch left
 * under {@link StoreMarker#PROBE_PREFIX} or a marker created whose creator did not learn so (the next
 * attempt reads it); never a published object. Once proven, an instance does not look again: a marker
 * replaced behind its back is met by the next process.
 *
 * <p>Every {@link ObjectStore} method is forwarded explicitly, default methods included, so a store's
 * own override (such as a bounded pointer wait) is never bypassed. It has the capabilities ({@link
 * PublishHistory}, {@link RetirementMarks}, {@link LeftoverSweep}) the wrapped store has, no more, and
 * its {@link Claims} as they are: a claim is advice, written before any proof is needed.
 *
 * <p>Thread-safe: concurrent first writes of one instance prove the store once.
 */
public final class ProvenStore implements ObjectStore, PublishHistory, RetirementMarks, LeftoverSweep {
  private final ObjectStore store;
  private final StoreProver prover;
  private final String createdBy;
  private final Clock clock;
  private final Object proving = new Object();
  /** The marker this instance trusts for writing and the store its prover configured by it; null until proven. */
  private volatile Proof proof;
  /** The marker as read for readers: null until read, empty when the store has none. */
  private volatile Optional<StoreMarker> readMarker;
  /** Whether {@link #proveAndMark} is probing the store now. */
  private volatile boolean probing;

  private ProvenStore(ObjectStore store, StoreProver prover, String createdBy, Clock clock) {
    this.store = Objects.requireNonNull(store, "store");
    this.prover = Objects.requireNonNull(prover, "prover");
    this.createdBy = Objects.requireNonNull(createdBy, "createdBy");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * {@code store}, proven by {@code prover} before its first write.
   *
   * @param createdBy recorded in a marker this instance creates, e.g. {@code idem 0.1.0}
   * @param clock the time recorded in a marker this instance creates
   */
  public static ProvenStore wrap(ObjectStore store, StoreProver prover, String createdBy, Clock clock) {
    return new ProvenStore(store, prover, createdBy, clock);
  }

  /** The wrapped store. */
  public ObjectStore store() {
    return store;
  }

  public StoreProver prover() {
    return prover;
  }

  /**
   * Proves the store unless this instance already did, and returns the marker it trusts. Writing
   * commands may call it before expensive work, so a refused store costs nothing.
   *
   * @throws StoreRefusedException when the store failed a probe or its marker names another pointer
   *     mode or kind; nothing was written at any key
   */
  public StoreMarker requireWritable() throws IOException {
    return proven().marker();
  }

  /** The marker trusted for writing, and the store to write through. */
  private record Proof(StoreMarker marker, ObjectStore writer) {}

  private Proof proven() throws IOException {
    Proof p = proof;
    if (p != null) {
      return p;
    }
    synchronized (proving) {
      if (proof == null) {
        Optional<StoreMarker> existing = prover.readMarker();
        StoreMarker marker = existing.isPresent() ? existing.get() : proveAndMark();
        requireSameMode(marker);
        ObjectStore writer = Objects.requireNonNull(prover.adopt(marker, store), "the store the prover adopted");
        readMarker = Optional.of(marker);
        proof = new Proof(marker, writer);
      }
      return proof;
    }
  }

  private StoreMarker proveAndMark() throws IOException {
    List<ProbeResult> judged = new ArrayList<>();
    List<ProbeResult> results;
    probing = true;
    try {
      results = prover.probe(judged::add);
    } catch (IOException e) {
      // A store already found lacking is refused for that, whatever a later probe ran into.
      refuseIfLacking(judged, e);
      throw e;
    } finally {
      probing = false;
    }
    refuseIfLacking(results, null);
    StoreMarker mine = new StoreMarker(prover.kind(), prover.pointerMode(), clock.instant(), createdBy, results);
    if (prover.createMarker(mine)) {
      return mine;
    }
    return prover.readMarker().orElseThrow(() -> new IOException("store marker " + prover.markerLocation()
        + " was there when this process tried to create its own, and is gone now (removed by hand?)"));
  }

  /** Refuses the store for the first required guarantee {@code results} find missing, if any. */
  private void refuseIfLacking(List<ProbeResult> results, IOException later) throws StoreRefusedException {
    for (ProbeResult r : results) {
      if (r.refuses()) {
        StoreRefusedException refused = new StoreRefusedException(store.describe() + " " + r.observed()
            + "; refusing to write: " + r.reliance());
        if (later != null) {
          refused.addSuppressed(later);
        }
        throw refused;
      }
    }
  }

  /**
   * Whether this instance is probing the store now, before its first write: a command can say so
   * while it waits, rather than report progress of work that has not begun.
   */
  public boolean probing() {
    return probing;
  }

  private void requireSameMode(StoreMarker marker) throws StoreRefusedException {
    if (!marker.kind().equals(prover.kind())) {
      throw new StoreRefusedException(store.describe() + " has a marker for a '" + marker.kind() + "' store ("
          + prover.markerLocation() + "), this is a '" + prover.kind() + "' store: refusing to use a copied"
          + " or misplaced store");
    }
    if (!marker.pointerMode().equals(prover.pointerMode()) && !prover.pointerModeChosen()) {
      prover.followMarkerMode(marker); // no mode chosen: the marker's is the store's
    }
    if (!marker.pointerMode().equals(prover.pointerMode())) {
      throw new StoreRefusedException(store.describe() + " uses pointer mode " + marker.pointerMode()
          + " (its marker " + prover.markerLocation() + ", created " + marker.createdAt() + " by "
          + marker.createdBy() + "), this process is configured for " + prover.pointerMode() + " ("
          + prover.pointerModeSetting() + "): refusing, since writers in two modes keep two different pointers;"
          + " set it to " + marker.pointerMode() + ", or leave it unset to follow the marker");
    }
  }

  private void checkModeForReading() throws IOException {
    Optional<StoreMarker> m = readMarker;
    if (m == null) {
      m = prover.readMarker();
      readMarker = m;
    }
    if (m.isPresent()) {
      requireSameMode(m.get());
    }
  }

  // ---------------------------------------------------------------- writes: proven first

  @Override
  public PutOutcome putIfAbsent(String key, Payload payload, String writerId) throws IOException {
    return proven().writer().putIfAbsent(key, payload, writerId);
  }

  /**
   * Proves the store (once) and then asks the store itself, so a caller that checks before expensive
   * work (the publisher, before the task) learns of a refused store then too.
   */
  @Override
  public void checkWritable() throws IOException {
    proven().writer().checkWritable();
  }

  @Override
  public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) throws IOException {
    return proven().writer().compareAndSetPointer(pipeline, expectedToken, next);
  }

  @Override
  public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next, Duration maxWait)
      throws IOException {
    return proven().writer().compareAndSetPointer(pipeline, expectedToken, next, maxWait);
  }

  @Override
  public boolean delete(String key) throws IOException {
    return deleter().delete(key);
  }

  @Override
  public int deleteRecords(String key) throws IOException {
    return history(deleter()).deleteRecords(key);
  }

  /**
   * The store a delete goes through: on a store with a marker, the one written through once the marker
   * is trusted as {@link #requireWritable} trusts it (its kind and pointer mode checked); on one without,
   * the wrapped store, unmarked and unprobed, since deleting relies on none of the guarantees probed and
   * must not create a store where there was none.
   */
  private ObjectStore deleter() throws IOException {
    Proof p = proof;
    if (p != null) {
      return p.writer();
    }
    Optional<StoreMarker> m = readMarker;
    if (m == null) {
      m = prover.readMarker();
      readMarker = m;
    }
    return m.isPresent() ? proven().writer() : store;
  }

  @Override
  public Retirement raiseRetirement(Retirement proposed) throws IOException {
    return marks(proven().writer()).raiseRetirement(proposed);
  }

  @Override
  public void acknowledge(Acknowledgement ack) throws IOException {
    history(proven().writer()).acknowledge(ack);
  }

  /** Only deletes, so as {@link #delete}; a dry run deletes nothing and reads no marker. */
  @Override
  public List<String> sweep(Duration grace, boolean dryRun) throws IOException {
    return LeftoverSweep.of(dryRun ? store : deleter(), FORWARDED).sweep(grace, dryRun);
  }

  // ---------------------------------------------------------------- reads: never probe

  @Override
  public Optional<PointerState> readPointer(String pipeline) throws IOException {
    checkModeForReading();
    return store.readPointer(pipeline);
  }

  /**
   * The wrapped store's peek. When this process chose no pointer mode it reads no marker: it would take
   * the marker's mode, and whichever that is, a peek only ever names a generation the pointer named. A
   * process that chose a mode reads as {@link #readPointer} does, so a store marked for the other mode is
   * refused.
   */
  @Override
  public Optional<Pointer> peekPointer(String pipeline) throws IOException {
    if (prover.pointerModeChosen()) {
      return readPointer(pipeline).map(PointerState::pointer);
    }
    return store.peekPointer(pipeline);
  }

  @Override
  public Optional<Retirement> readRetirement(String pipeline) throws IOException {
    return marks(store).readRetirement(pipeline);
  }

  @Override
  public java.util.OptionalLong usableSpace() throws IOException {
    return store.usableSpace();
  }

  @Override
  public List<Acknowledgement> acknowledgements(String prefix) throws IOException {
    return history(store).acknowledgements(prefix);
  }

  @Override
  public SortedSet<String> pipelines() throws IOException {
    return store.pipelines();
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
  public Optional<Integer> schemaOf(String key) throws IOException {
    return history(store).schemaOf(key);
  }

  @Override
  public Optional<InputStream> open(String key) throws IOException {
    return store.open(key);
  }

  @Override
  public boolean history(String prefix, HistoryVisitor visitor) throws IOException {
    return history(store).history(prefix, visitor);
  }

  @Override
  public boolean history(HistoryQuery query, HistoryVisitor visitor) throws IOException {
    return history(store).history(query, visitor);
  }

  @Override
  public boolean list(String prefix, ListingVisitor visitor) throws IOException {
    return store.list(prefix, visitor);
  }

  @Override
  public void close() throws IOException {
    store.close();
  }

  // ---------------------------------------------------------------- capabilities: the wrapped store's

  @Override
  public Optional<PublishHistory> publishHistory() {
    return store.publishHistory().map(h -> this);
  }

  @Override
  public Optional<RetirementMarks> retirementMarks() {
    return store.retirementMarks().map(m -> this);
  }

  @Override
  public Optional<LeftoverSweep> leftoverSweep() {
    return store.leftoverSweep().map(s -> this);
  }

  /** The wrapped store's own: claims are advice, outside what this store proves or checks. */
  @Override
  public Optional<Claims> claims() {
    return store.claims();
  }

  private static final String FORWARDED = "a call to it cannot be forwarded";

  private static PublishHistory history(ObjectStore s) throws IOException {
    return PublishHistory.of(s, FORWARDED);
  }

  private static RetirementMarks marks(ObjectStore s) throws IOException {
    return RetirementMarks.of(s, FORWARDED);
  }

  @Override
  public String toString() {
    return "ProvenStore[" + store + "]";
  }
}
