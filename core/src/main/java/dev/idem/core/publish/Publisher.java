package dev.idem.core.publish;

import dev.idem.core.Names;
import dev.idem.core.OutputKey;
import dev.idem.core.RunSpec;
import dev.idem.core.publish.ClaimReport.ClaimStatus;
import dev.idem.core.store.Claim;
import dev.idem.core.store.ClaimWait;
import dev.idem.core.store.Claims;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.Retirement;
import dev.idem.core.store.RetirementMarks;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs a scheduled task at most as often as needed and publishes its output safely. This is the class
 * an embedding job calls; {@code Idem.publisher(store).writer(id).build()} makes one ({@link Builder}).
 *
 * <p>{@link #publish} does, in order:
 *
 * <ol>
 *   <li>refuse a window that has not closed yet, beyond the allowed clock skew (G5, {@link
 *       ClosedWindowGuard}); derive the key from the spec (K1–K3);
 *   <li>if the pipeline's pointer already names the key, skip the task entirely (P5): SKIPPED, with
 *       nothing more to read or write ({@link ObjectStore#peekPointer}, one request on S3). Otherwise, if
 *       the key already holds an object, skip the task and go to step 6 (the advance). A publisher whose
 *       last run of the pipeline ran the task does not read the pointer first: its next window is
 *       likely new, and the read would be one request more;
 *   <li>check the store can be written ({@link ObjectStore#checkWritable}) and, where it can tell its
 *       free space ({@link ObjectStore#usableSpace}), that it has at least the reserve ({@link
 *       Builder#minFree}), so a store that cannot take the result costs no task run;
 *   <li>claim the key ({@link ClaimPolicy}, on by default where the store keeps claims): when another
 *       writer's fresh claim is there, wait, bounded, for its object (then SKIPPED, naming the claimant,
 *       and on to step 6), take over a claim that goes away without an object or goes stale, or run
 *       anyway once the bound is reached. A held claim is renewed while the task runs and released when
 *       the publish ends, whatever its outcome. Claims are advice: a claim that cannot be read or written
 *       only means the task runs ({@link ClaimReport});
 *   <li>run the task to produce the payload (only now: the expensive work runs only when needed); a
 *       0-byte payload is refused unless empty results were allowed (P6), since a task that wrote
 *       nothing has produced no result; a payload larger than the store's free space is refused before
 *       any byte of it is written ({@link InsufficientSpaceException});
 *   <li>publish create-only: CREATED, IDENTICAL or DIVERGENT (P2–P4), with the spec's schema version
 *       on the payload ({@link Payload#withSchema}) for the store to record;
 *   <li>advance the pipeline's pointer to the object now at the key, by the monotonic rule (G1–G3).
 *       This also happens on skip, so a replica that died between publishing and advancing is
 *       completed by the next one;
 *   <li>a CREATED in a window the pipeline's retirement mark covers ({@link
 *       dev.idem.core.store.RetirementMarks#readRetirement}: gc deleted the window's earlier generation)
 *       is REPUBLISHED. The mark is read only after a CREATED whose window can be retired (not when this
 *       publish advanced a never-rewound pointer to it: see {@link #mayBeRetired}), and at most once per
 *       pipeline for the life of this publisher (a gc that runs later is not seen by a long-lived
 *       publisher that read the mark before it). A store that keeps no retirement marks ({@link
 *       ObjectStore#retirementMarks()} empty) cannot tell a re-publish from a first publish: it is
 *       reported CREATED.
 * </ol>
 *
 * A refused window publishes nothing and runs no task. A failing task, or an empty result, publishes
 * nothing and leaves the pointer untouched. An {@link IOException} from the store leaves the key holding
 * nothing or a complete object and the pointer whole (old or new); calling {@code publish} again is
 * safe and finishes the job (a failure reading the retirement mark after a CREATED is such an
 * exception: the object is published and the advance done or given up, and the retry reports SKIPPED).
 *
 * <p>Thread-safe if the store is (both shipped stores are).
 */
public final class Publisher {

  /** Produces the payload for a key; runs only when the key is not yet published. */
  @FunctionalInterface
  public interface Task {
    Payload produce(RunSpec spec, OutputKey key) throws Exception;
  }

  private final ObjectStore store;
  private final String writerId;
  private final Clock clock;
  private final PointerAdvancer advancer;
  private final boolean advancePointer;
  private final ClosedWindowGuard windows;
  private final boolean allowEmpty;
  /** Bytes the store must have free before the task runs, where it can tell; 0: not checked. */
  private final long minFree;
  private final ClaimPolicy claimPolicy;
  /** Retirement marks read so far, by pipeline (empty: the pipeline has none); shared with derived publishers. */
  private final ConcurrentHashMap<String, Optional<Retirement>> retirements;
  /**
   * By pipeline: whether this publisher's last run of it ran the task (true) or found the window done
   * (false). A replica that ran its last window will likely run the next, whose key the pointer cannot
   * name yet, so it looks at the key first and spares the pointer's read ({@link #alreadyCurrent}).
   */
  private final ConcurrentHashMap<String, Boolean> created = new ConcurrentHashMap<>();

  private Publisher(ObjectStore store, String writerId, Clock clock, PointerAdvancer advancer, boolean advancePointer,
      ClosedWindowGuard windows, boolean allowEmpty, long minFree, ClaimPolicy claimPolicy,
      ConcurrentHashMap<String, Optional<Retirement>> retirements) {
    this.store = Objects.requireNonNull(store, "store");
    this.writerId = Names.requireWriterId(writerId);
    this.clock = Objects.requireNonNull(clock, "clock");
    this.advancer = advancer;
    this.advancePointer = advancePointer;
    this.windows = Objects.requireNonNull(windows, "windows");
    this.allowEmpty = allowEmpty;
    this.minFree = minFree;
    this.claimPolicy = Objects.requireNonNull(claimPolicy, "claim policy");
    this.retirements = retirements;
  }

  /**
   * Configures a {@link Publisher}; {@link dev.idem.core.Idem#publisher} starts one. Only the writer id
   * is required. The defaults: the system clock, a {@link PointerAdvancer} with its default retries that
   * advances the pipeline's pointer after each publish, windows refused when they end more than {@link
   * ClosedWindowGuard#DEFAULT_MAX_CLOCK_SKEW} after the clock's now (G5), empty results refused (P6), no
   * free-space reserve, advisory claims on ({@link ClaimPolicy#defaults()}). Not thread-safe; the publisher it builds is.
   */
  public static final class Builder {
    private final ObjectStore store;
    private String writerId;
    private Clock clock = Clock.systemUTC();
    private PointerAdvancer advancer;
    private boolean advancePointer = true;
    private Duration maxClockSkew = ClosedWindowGuard.DEFAULT_MAX_CLOCK_SKEW;
    private boolean allowEmpty;
    private long minFree;
    private ClaimPolicy claims = ClaimPolicy.defaults();

    /** Use {@link dev.idem.core.Idem#publisher}. */
    public Builder(ObjectStore store) {
      this.store = Objects.requireNonNull(store, "store");
    }

    /** Who publishes: recorded with every object and attempt ({@code [A-Za-z0-9._:@+-]}, 1-128 characters). */
    public Builder writer(String writerId) {
      this.writerId = Names.requireWriterId(writerId);
      return this;
    }

    /**
     * The clock that decides which windows have closed, for the publisher and its advancer, and stamps
     * pointers of objects whose store kept no time.
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Advances the pointer with {@code advancer} (its retries and deadline) instead of the default one. */
    public Builder pointer(PointerAdvancer advancer) {
      this.advancer = Objects.requireNonNull(advancer, "advancer");
      this.advancePointer = true;
      return this;
    }

    /** Publishes without advancing the pipeline's pointer: for outputs read by key, not as {@code latest}. */
    public Builder withoutPointer() {
      this.advancer = null;
      this.advancePointer = false;
      return this;
    }

    /** Accepts windows that end up to {@code skew} after the clock's now (G5). */
    public Builder maxClockSkew(Duration skew) {
      this.maxClockSkew = new ClosedWindowGuard(clock, skew).maxClockSkew();
      return this;
    }

    /** Publishes a 0-byte payload as a result (P6); by default a task that wrote nothing has failed. */
    public Builder allowEmptyResults() {
      this.allowEmpty = true;
      return this;
    }

    /**
     * Refuses to run the task when the store says it has fewer than {@code bytes} free ({@link
     * ObjectStore#usableSpace}; a store that cannot tell is not checked). 0, the default, checks only that
     * the result fits once it is produced.
     */
    public Builder minFree(long bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("free space reserve must be >= 0 bytes, was " + bytes);
      }
      this.minFree = bytes;
      return this;
    }

    /**
     * How the task's key is claimed while it runs ({@link ClaimPolicy#off()} turns claims off); by
     * default {@link ClaimPolicy#defaults()}. Used only by {@link Publisher#publish(RunSpec, Task)}.
     */
    public Builder claims(ClaimPolicy policy) {
      this.claims = Objects.requireNonNull(policy, "claim policy");
      return this;
    }

    /**
     * The publisher.
     *
     * @throws IllegalStateException when no writer id was given
     */
    public Publisher build() {
      if (writerId == null) {
        throw new IllegalStateException("a publisher needs a writer id: Idem.publisher(store).writer(id)");
      }
      ClosedWindowGuard windows = new ClosedWindowGuard(clock, maxClockSkew);
      PointerAdvancer a = !advancePointer ? null
          : (advancer == null ? new PointerAdvancer(store) : advancer).withClosedWindowGuard(windows);
      return new Publisher(store, writerId, clock, a, advancePointer, windows, allowEmpty, minFree, claims,
          new ConcurrentHashMap<>());
    }
  }

  public ObjectStore store() {
    return store;
  }

  public String writerId() {
    return writerId;
  }

  /**
   * Publishes the output of {@code task} for {@code spec}, running the task only if needed.
   *
   * @throws IllegalArgumentException the window has not closed (G5); the task did not run, nothing
   *     was read or written
   * @throws TaskFailedException the task threw; nothing was published, the pointer is untouched
   * @throws EmptyResultException the task produced 0 bytes and empty results are not allowed; nothing
   *     was published, the pointer is untouched
   * @throws InsufficientSpaceException the store has less free space than the reserve (the task did not
   *     run) or than the result (the task ran; nothing was written, the result is the caller's)
   * @throws IOException the store failed, or cannot be written (then before the task ran); see the
   *     class comment for the state left behind
   */
  public PublishReport publish(RunSpec spec, Task task) throws IOException, TaskFailedException {
    windows.requireClosed(spec.window(), "publish");
    OutputKey key = spec.outputKey();
    PublishReport report = publishOrSkip(spec, key, task);
    // The next window of this pipeline starts from the pointer if this one was found done, from the key if not.
    created.put(key.pipeline(), report.status() != PublishStatus.SKIPPED);
    return report;
  }

  private PublishReport publishOrSkip(RunSpec spec, OutputKey key, Task task) throws IOException, TaskFailedException {
    String k = key.toString();
    PublishReport current = created.getOrDefault(key.pipeline(), false) ? null : alreadyCurrent(spec, key);
    if (current != null) {
      return current;
    }
    // One look, stat rather than exists then stat: on S3 each is a HEAD, billed per request.
    Optional<ObjectInfo> stored = store.stat(k);
    if (stored.isPresent()) {
      return new PublishReport(key, PublishStatus.SKIPPED, stored.get(), null, advance(spec, stored.get()));
    }
    // Only now, after the skip check: a replica that finds its key published needs no write access.
    store.checkWritable();
    requireFree(minFree, k, "less than the reserve of " + InsufficientSpaceException.bytes(minFree)
        + " required before the task runs; the task was not run, nothing was written");
    ClaimTurn turn = takeTurn(k);
    if (turn.skipped != null) {
      return new PublishReport(key, PublishStatus.SKIPPED, turn.skipped, null, advance(spec, turn.skipped), null,
          turn.report(null));
    }
    ClaimHeartbeat heartbeat = turn.held == null ? null
        : ClaimHeartbeat.start(turn.claims, turn.held, claimPolicy.heartbeat());
    PublishReport published;
    try {
      Payload payload;
      long size;
      try {
        payload = Objects.requireNonNull(task.produce(spec, key), "task returned no payload");
        size = payload.size();
      } catch (InterruptedException | InterruptedIOException e) {
        Thread.currentThread().interrupt();
        throw new TaskFailedException("task for " + k + " was interrupted", e);
      } catch (Exception e) {
        throw new TaskFailedException("task for " + k + " failed: " + e.getMessage(), e);
      }
      if (size == 0 && !allowEmpty) {
        throw new EmptyResultException("task for " + k + " produced an empty result (0 bytes); nothing published, "
            + "pointer untouched");
      }
      requireRoomFor(size, k);
      published = publishPayload(spec, key, payload);
    } finally {
      // Released whatever the outcome: published, failed, or stopped.
      if (heartbeat != null) {
        heartbeat.close();
      }
    }
    return published.withClaim(turn.report(heartbeat));
  }

  /**
   * Decides whether this replica runs the task for {@code key}, by the claim rule ({@link ClaimPolicy}):
   * holding its own claim, after another's went away or stale, or without one; or skips, because the
   * claimant's object appeared while it waited.
   *
   * @throws IOException the store could not say whether the object exists; nothing was written
   * @throws TaskFailedException interrupted while waiting (the caller is being stopped); nothing ran
   */
  private ClaimTurn takeTurn(String key) throws IOException, TaskFailedException {
    if (!claimPolicy.enabled()) {
      return new ClaimTurn(ClaimStatus.OFF, null, null, null, null, Duration.ZERO);
    }
    Optional<Claims> maybe = store.claims();
    if (maybe.isEmpty()) {
      return new ClaimTurn(ClaimStatus.UNSUPPORTED, null, null, null, null, Duration.ZERO);
    }
    Claims claims = maybe.get();
    long start = claimPolicy.nanoTime();
    Claim other = null;
    boolean looked = false;
    while (true) {
      Duration waited = Duration.ofNanos(claimPolicy.nanoTime() - start);
      Claims.Claimed claimed;
      try {
        claimed = claims.claim(key, writerId, claimPolicy.expected(), claimPolicy.ttl());
      } catch (IOException | RuntimeException e) {
        return new ClaimTurn(ClaimStatus.FAILED, claims, null, null, other, waited);
      }
      if (claimed.result() == Claims.Result.HELD) {
        Claim displaced = claimed.stale() != null ? claimed.stale() : other;
        return new ClaimTurn(displaced != null ? ClaimStatus.TAKEN_OVER : ClaimStatus.HELD, claims, claimed.claim(),
            null, displaced, waited);
      }
      other = claimed.claim();
      Duration left = claimPolicy.waitAtMost().minus(waited);
      if (looked && (left.isNegative() || left.isZero())) {
        // Taken again after a look said "take over", with the bound used up (claims that cannot be read
        // look gone while claiming still finds one): run now, never past the bound.
        return new ClaimTurn(ClaimStatus.WAIT_EXPIRED, claims, null, null, other, waited);
      }
      looked = true;
      ClaimWait.Result result;
      try {
        result = claimPolicy.waitRule(left.isNegative() ? Duration.ZERO : left).await(store, key);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new TaskFailedException("interrupted while waiting for " + other.writer() + "'s claim on " + key, e);
      }
      other = result.lastClaim().orElse(other);
      waited = Duration.ofNanos(claimPolicy.nanoTime() - start);
      switch (result.outcome()) {
        case SKIP -> {
          Optional<ObjectInfo> stored = store.stat(key);
          if (stored.isPresent()) {
            return new ClaimTurn(ClaimStatus.WAITED_SKIPPED, claims, null, stored.get(), other, waited);
          }
          // Removed by retention between the two calls: claim it and run.
        }
        case WAIT_EXPIRED -> {
          return new ClaimTurn(ClaimStatus.WAIT_EXPIRED, claims, null, null, other, waited);
        }
        case TAKEOVER -> {
          // Claim again: another waiter may take over first, and is then waited for in turn.
        }
      }
    }
  }

  /**
   * The claim decision for one publish: a held claim to renew (or none), or the object a claimant
   * published while this replica waited.
   */
  private record ClaimTurn(ClaimStatus status, Claims claims, Claim held, ObjectInfo skipped, Claim other,
      Duration waited) {
    ClaimReport report(ClaimHeartbeat heartbeat) {
      return new ClaimReport(status, other, waited, heartbeat == null ? 0 : heartbeat.renewals(),
          heartbeat == null ? 0 : heartbeat.failures());
    }
  }

  /** Refuses a payload of {@code size} bytes where the store says fewer are free: before any is written. */
  private void requireRoomFor(long size, String key) throws IOException {
    requireFree(size, key, "and the result is " + InsufficientSpaceException.bytes(size) + "; nothing was written");
  }

  private void requireFree(long needed, String key, String why) throws IOException {
    if (needed <= 0) {
      return;
    }
    OptionalLong free = store.usableSpace();
    if (free.isPresent() && free.getAsLong() < needed) {
      throw new InsufficientSpaceException(store.describe() + " has " + InsufficientSpaceException.bytes(free.getAsLong())
          + " free, " + why + " (publishing " + key + ")", free.getAsLong(), needed);
    }
  }

  /**
   * Publishes an already produced payload (what {@code idem publish} does).
   *
   * @throws IllegalArgumentException the window has not closed (G5), or the payload is empty and
   *     empty results are not allowed (P6); nothing was written
   * @throws InsufficientSpaceException the payload is larger than the store's free space; nothing was written
   * @throws IOException the store failed; see the class comment for the state left behind
   */
  public PublishReport publish(RunSpec spec, Payload payload) throws IOException {
    windows.requireClosed(spec.window(), "publish");
    long size = payload.size();
    if (!allowEmpty && size == 0) {
      throw new IllegalArgumentException("refusing to publish an empty result (0 bytes) at " + spec.outputKey());
    }
    requireRoomFor(size, spec.outputKey().toString());
    return publishPayload(spec, spec.outputKey(), payload);
  }

  private PublishReport publishPayload(RunSpec spec, OutputKey key, Payload payload) throws IOException {
    // The schema travels with the bytes, so the store records it beside them (the scan's position).
    PutOutcome put = store.putIfAbsent(key.toString(), payload.withSchema(spec.schemaVersion()), writerId);
    PublishStatus status = switch (put.status()) {
      case CREATED -> PublishStatus.CREATED;
      case IDENTICAL -> PublishStatus.IDENTICAL;
      case DIVERGENT -> PublishStatus.DIVERGENT;
    };
    // On DIVERGENT the stored object is still a complete generation for this position: advancing to it
    // completes a first writer that died before its own advance.
    AdvanceReport advanced = advance(spec, put.stored());
    Retirement retired = null;
    if (status == PublishStatus.CREATED && mayBeRetired(advanced)) {
      retired = retirement(key.pipeline()).filter(r -> r.covers(key.windowStartEpochSecond())).orElse(null);
      if (retired != null) {
        status = PublishStatus.REPUBLISHED;
      }
    }
    return new PublishReport(key, status, put.stored(), put, advanced, retired);
  }

  /**
   * Whether the window just created can lie in the retired range. gc deletes only windows strictly
   * behind the pointer it read, and a pointer that was never rewound only moves forward (G2), so a
   * window this publish advanced the pointer to is at or after every pointer gc ever saw: not retired,
   * and the steady state (a new window, ADVANCED) costs no read. Anything else (no advance, a newer
   * pointer, an advance that gave up, a pointer carrying an operator's rewind) reads the mark.
   */
  private static boolean mayBeRetired(AdvanceReport advanced) {
    return advanced == null || advanced.status() != AdvanceStatus.ADVANCED || advanced.current() == null
        || advanced.current().rewind() != null;
  }

  /** The pipeline's retirement mark, read from the store the first time it is asked for. */
  private Optional<Retirement> retirement(String pipeline) throws IOException {
    Optional<Retirement> known = retirements.get(pipeline);
    if (known == null) {
      Optional<RetirementMarks> marks = store.retirementMarks();
      known = marks.isPresent() ? marks.get().readRetirement(pipeline) : Optional.empty(); // none: CREATED
      retirements.putIfAbsent(pipeline, known);
    }
    return known;
  }

  /**
   * SKIPPED at once when the pipeline's pointer already names {@code key}: the key then holds the object
   * the pointer describes (G1), and the advance a skip makes would find the pointer current. One read
   * ({@link ObjectStore#peekPointer}), where the skip check, the pointer and (on S3) the store marker
   * would take three. {@code null} when the pointer names anything else or nothing, or when this
   * publisher does not advance the pointer: the skip check then looks at the key itself.
   */
  private PublishReport alreadyCurrent(RunSpec spec, OutputKey key) throws IOException {
    if (!advancePointer) {
      return null;
    }
    Optional<Pointer> seen = store.peekPointer(key.pipeline());
    if (seen.isEmpty() || !seen.get().key().equals(key.toString())
        || seen.get().windowLength() != spec.window().lengthSeconds()
        || seen.get().schemaVersion() != spec.schemaVersion()) {
      return null;
    }
    Pointer p = seen.get();
    ObjectInfo stored = new ObjectInfo(p.key(), p.sha256(), p.size(), p.writer(), p.publishedAt());
    Pointer requested = Pointer.to(stored, spec.window().lengthSeconds(), spec.schemaVersion(), writerId,
        clock.instant());
    return new PublishReport(key, PublishStatus.SKIPPED, stored, null,
        new AdvanceReport(AdvanceStatus.ALREADY_CURRENT, requested, p, 0, Duration.ZERO));
  }

  private AdvanceReport advance(RunSpec spec, ObjectInfo stored) throws IOException {
    if (!advancePointer) {
      return null;
    }
    Pointer next = Pointer.to(stored, spec.window().lengthSeconds(), spec.schemaVersion(), writerId, clock.instant());
    return advancer.advance(next, stored);
  }
}
