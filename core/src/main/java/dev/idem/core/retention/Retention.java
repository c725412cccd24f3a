package dev.idem.core.retention;

import dev.idem.core.Names;
import dev.idem.core.OutputKey;
import dev.idem.core.publish.ClaimPolicy;
import dev.idem.core.scan.KeyVerdict;
import dev.idem.core.store.Claim;
import dev.idem.core.store.Claims;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.LeftoverSweep;
import dev.idem.core.store.ListedObject;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.store.PublishHistory;
import dev.idem.core.store.Retirement;
import dev.idem.core.store.RetirementMarks;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * Deletes old generations of one pipeline and sweeps the store's leftovers.
 *
 * <p>A generation (an object under {@code pipeline/}) is deleted only when <em>all</em> of these hold:
 *
 * <ol>
 *   <li>it is not among the {@code keep} newest generations (by window start, then key);
 *   <li>its window starts strictly before the window of the generation the pointer names, as the pointer
 *       is read at the start of the run and again right before the generation is deleted. Publishers
 *       never move the pointer backwards (G2), so a generation behind it stays behind it whatever they
 *       do; the second read is for the one move backwards, an operator's rewind (below). The named
 *       generation and anything newer (a generation being published ahead of the pointer) are never
 *       touched;
 *   <li>when {@code olderThan} is set, its window ended before {@code now - olderThan};
 *   <li>it was written more than {@code grace} ago, so a late replica that has just published (and is
 *       about to check its object before advancing) never has it removed under it.
 * </ol>
 *
 * With no pointer at all nothing is deleted: without it, no generation is known to be superseded.
 *
 * <p>Beside a rewind ({@link dev.idem.core.publish.PointerRewinder}): a run decides what to delete from
 * the pointer it read first, and an operator may send the pointer back to one of those generations
 * while the run deletes. So the pointer is read again right before each delete, and a generation that
 * is no longer strictly behind it is kept (its window stays inside the retirement mark already raised,
 * which only costs a publish there being SKIPPED or IDENTICAL, as after a failed run). The other
 * choice, refusing rewinds into windows gc has retired, was not taken: the mark is a range, so it would
 * also refuse a rewind to a generation published again after gc (a repair that must stay possible), and
 * a rewind that read the mark just before gc raised it would still meet the same race. What is left
 * is a rewind whose swap lands between this re-read and the delete of its very target (one request's
 * time; the rewinder itself checks that the target exists just before it swaps): the pointer then names
 * a missing object, which {@code idem scan} reports ({@code POINTER-MISSING}, a gate failure)
 * and a second rewind or a publish of that window repairs. Running gc and a rewind of the same pipeline
 * one after the other, not at once, avoids even that.
 *
 * <p>A deleted generation's publish records and evidence ({@link PublishHistory#deleteRecords}) go with
 * it, so the store does not grow by one record per run forever and the scan stops counting the key;
 * except for a key whose history is divergent, whose records and evidence are kept (the proof of a
 * keying bug outlives retention) unless the policy says {@code dropDivergentEvidence}. The verdict is
 * made from the key's history before its object is deleted. Records left without an object (by an
 * earlier run that kept them, or by the previous version, which kept every record) are removed by the
 * same rules, the grace counted from their newest record.
 *
 * <p>Before it deletes anything, a run raises the pipeline's retirement mark ({@link
 * RetirementMarks#raiseRetirement}) to the highest window start it is about to retire (of a generation it
 * deletes, or of records it removes), stamped with the run's start time and what ran it, so that a
 * window published again after this run is reported as republished, not as new or divergent. The mark
 * is one small document per pipeline and only moves forward; a dry run writes nothing. Written first, a
 * failure can leave the mark ahead of deletes that did not happen (their windows still hold their
 * objects, so a publish there is SKIPPED or IDENTICAL, never wrongly REPUBLISHED), never behind deletes
 * that did.
 *
 * <p>A run also removes the pipeline's stale advisory claims ({@link Claims}): entries not written or
 * renewed within {@link Policy#claimTtl()}, judged by the store's clock ({@link Claim#age()}), whose
 * writers stopped renewing (most likely died). A claim fresh by that ttl is never removed: a store
 * writes every claim entry once and renews by writing a new one, so an entry's age only grows, and the
 * entry found stale is still stale when it is removed, whatever its writer does meanwhile. A writer
 * that was only slow finds its entry gone and writes a new one at its next renewal. Claims are advice
 * (A1), so removing one, or failing to, changes no outcome. It happens before the sweep, which on a
 * filesystem removes the claims' directories left empty (once they are older than the grace).
 *
 * <p>On a store that lacks a capability ({@link ObjectStore#publishHistory()}, {@link
 * ObjectStore#retirementMarks()}, {@link ObjectStore#leftoverSweep()}, {@link ObjectStore#claims()}) a
 * run does what is safe without it and lists what it skipped ({@link Report#skipped()}): without publish
 * history there are no records to remove and no divergence evidence to keep, so generations are deleted
 * by the rules above alone; without retirement marks none is raised (the mark is a record for readers,
 * not a lock: a removed window published again is then reported CREATED, not REPUBLISHED); without a
 * sweep nothing is swept; without claims there are none to remove.
 *
 * <p>Memory is bounded by {@code keep} plus the report's list of deleted keys: the listing is
 * streamed twice, first to find the newest {@code keep} generations with a bounded heap, then to
 * collect the deletable ones, which are deleted after the retirement mark is raised. A failure mid-way
 * leaves some deletable generations in place; running again finishes the job.
 */
public final class Retention {

  /**
   * What to keep.
   *
   * @param keep newest generations always kept, {@code >= 1}
   * @param olderThan only delete generations whose window ended longer ago than this; {@code null}
   *     for no age condition
   * @param grace never delete objects written within this period, nor sweep younger leftovers
   * @param dryRun report without deleting
   * @param dropDivergentEvidence also remove the records and evidence of divergent generations
   *     (default: kept, with the key still reported by the scan)
   * @param claimTtl remove claims not written or renewed within this ttl (stale); by default the ttl
   *     publishers claim with ({@link #DEFAULT_CLAIM_TTL})
   */
  public record Policy(int keep, Duration olderThan, Duration grace, boolean dryRun, boolean dropDivergentEvidence,
      Duration claimTtl) {
    /** The ttl publishers claim with by default ({@link ClaimPolicy#defaults()}). */
    public static final Duration DEFAULT_CLAIM_TTL = ClaimPolicy.defaults().ttl();

    public Policy {
      if (keep < 1) {
        throw new IllegalArgumentException("keep must be >= 1 (the pointer's generation is always kept), was " + keep);
      }
      if (olderThan != null && olderThan.isNegative()) {
        throw new IllegalArgumentException("older-than must not be negative, was " + olderThan);
      }
      Objects.requireNonNull(grace, "grace");
      if (grace.isNegative()) {
        throw new IllegalArgumentException("grace must not be negative, was " + grace);
      }
      Objects.requireNonNull(claimTtl, "claimTtl");
      if (claimTtl.isNegative() || claimTtl.isZero()) {
        throw new IllegalArgumentException("claim ttl must be positive, was " + claimTtl);
      }
    }

    /** A policy that removes claims stale by the default ttl. */
    public Policy(int keep, Duration olderThan, Duration grace, boolean dryRun, boolean dropDivergentEvidence) {
      this(keep, olderThan, grace, dryRun, dropDivergentEvidence, DEFAULT_CLAIM_TTL);
    }

    /** A policy that keeps the records and evidence of divergent generations. */
    public Policy(int keep, Duration olderThan, Duration grace, boolean dryRun) {
      this(keep, olderThan, grace, dryRun, false);
    }
  }

  /**
   * What one run did.
   *
   * @param pointer the pointer the decisions were made against, or {@code null} when there was none
   * @param generations generations of the pipeline seen
   * @param deleted keys deleted (or, in a dry run, that would be)
   * @param records publish records and evidence files removed with them (0 in a dry run)
   * @param evidenceKept deleted keys whose history is divergent, whose records and evidence were kept
   * @param recordsOnly keys without an object (deleted by an earlier run, or by the previous version,
   *     which kept every record) whose records and evidence were removed (or would be)
   * @param swept store leftovers removed (or that would be)
   * @param retirement the pipeline's retirement mark after the run (in a dry run: the one it would
   *     propose, nothing written), or {@code null} when the run retired nothing and none was stored, or
   *     the store keeps no marks
   * @param skipped what the run did not do because the store lacks a capability, one line each; empty
   *     on a store with every capability gc uses
   * @param claimsRemoved the pipeline's stale claims removed (or, in a dry run, that would be), by key
   */
  public record Report(Pointer pointer, long generations, List<String> deleted, long records,
      List<String> evidenceKept, List<String> recordsOnly, List<String> swept, Retirement retirement,
      List<String> skipped, List<Claim> claimsRemoved) {}

  /** What a run records as having retired when its caller does not say ({@link Retirement#retiredBy()}). */
  public static final String DEFAULT_RETIRED_BY = "idem-core retention";

  private final ObjectStore store;
  private final Clock clock;
  private final String retiredBy;

  public Retention(ObjectStore store, Clock clock) {
    this(store, clock, DEFAULT_RETIRED_BY);
  }

  /** A retention whose runs record {@code retiredBy} (e.g. {@code idem 1.4.0}) in the retirement mark. */
  public Retention(ObjectStore store, Clock clock, String retiredBy) {
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
    // Checked now (one line, no control characters), not when the first mark is written.
    new Retirement("p", 0, Instant.EPOCH, retiredBy);
    this.retiredBy = retiredBy;
  }

  private record Generation(long windowStart, String key) {}

  private static final Comparator<Generation> OLDEST_FIRST =
      Comparator.comparingLong(Generation::windowStart).thenComparing(Generation::key);

  /** Applies {@code policy} to {@code pipeline}, then sweeps the store's leftovers older than the grace. */
  public Report run(String pipeline, Policy policy) throws IOException {
    Names.requirePipeline(pipeline);
    Instant now = clock.instant();
    PublishHistory history = store.publishHistory().orElse(null);
    RetirementMarks marks = store.retirementMarks().orElse(null);
    LeftoverSweep sweep = store.leftoverSweep().orElse(null);
    Claims claims = store.claims().orElse(null);
    Optional<PointerState> state = store.readPointer(pipeline);
    Pointer pointer = state.map(PointerState::pointer).orElse(null);

    PriorityQueue<Generation> newest = new PriorityQueue<>(OLDEST_FIRST);
    long[] generations = {0};
    store.list(pipeline + "/", o -> {
      parse(pipeline, o).ifPresent(g -> {
        generations[0]++;
        newest.add(g);
        if (newest.size() > policy.keep()) {
          newest.poll();
        }
      });
      return true;
    });

    Retirement mark = pointer == null || marks == null ? null : marks.readRetirement(pipeline).orElse(null);
    // First find what this run retires (the report lists it anyway), then raise the mark, then delete.
    List<String> deletable = new ArrayList<>();
    if (pointer != null) {
      store.list(pipeline + "/", o -> {
        Optional<Generation> g = parse(pipeline, o);
        if (g.isPresent() && deletable(g.get(), o, pointer, newest, policy, now)) {
          deletable.add(g.get().key());
        }
        return true;
      });
    }
    List<String> recordsOnly = new ArrayList<>();
    if (pointer != null && history != null) {
      Set<String> handled = new HashSet<>(deletable);
      history.history(pipeline + "/", h -> {
        Optional<Generation> g = parseKey(pipeline, h.key());
        if (g.isPresent() && !handled.contains(h.key()) && !newest.contains(g.get())
            && expired(g.get(), lastWritten(h), pointer, policy, now) && store.stat(h.key()).isEmpty()
            && (policy.dropDivergentEvidence() || !KeyVerdict.of(h, mark).divergent())) {
          recordsOnly.add(h.key());
        }
        return true;
      });
    }
    long highest = -1;
    for (List<String> keys : List.of(deletable, recordsOnly)) {
      for (String k : keys) {
        highest = Math.max(highest, OutputKey.parse(k).windowStartEpochSecond());
      }
    }
    Retirement retirement = mark;
    if (highest >= 0 && marks != null) {
      Retirement proposed = new Retirement(pipeline, highest, now, retiredBy);
      retirement = policy.dryRun() ? proposed : marks.raiseRetirement(proposed);
    }

    List<String> deleted = new ArrayList<>();
    List<String> evidenceKept = new ArrayList<>();
    long records = 0;
    for (String key : deletable) {
      if (!policy.dryRun() && !behindPointerNow(pipeline, key)) {
        continue; // the pointer was rewound to this generation or before it while the run went on
      }
      boolean keepRecords = history != null && !policy.dropDivergentEvidence() && divergent(history, key, mark);
      if (policy.dryRun() || store.delete(key)) {
        deleted.add(key);
        if (keepRecords) {
          evidenceKept.add(key);
        } else if (!policy.dryRun() && history != null) {
          records += history.deleteRecords(key);
        }
      }
    }
    if (!policy.dryRun()) {
      for (String key : recordsOnly) {
        records += history.deleteRecords(key);
      }
    }
    List<Claim> claimsRemoved = claims == null ? List.of() : removeStaleClaims(claims, pipeline, policy);
    List<String> swept = sweep == null ? List.of() : sweep.sweep(policy.grace(), policy.dryRun());
    List<String> skipped = new ArrayList<>();
    if (history == null) {
      skipped.add(store.describe() + " keeps no publish history: no records removed, no divergence evidence to keep");
    }
    if (marks == null) {
      skipped.add(store.describe() + " keeps no retirement marks: none raised; a removed window published again"
          + " is reported CREATED, not REPUBLISHED");
    }
    if (sweep == null) {
      skipped.add(store.describe() + " has no sweep of leftovers: nothing swept");
    }
    if (claims == null) {
      skipped.add(store.describe() + " keeps no claims: none to remove");
    }
    return new Report(pointer, generations[0], deleted, records, evidenceKept, recordsOnly, swept, retirement,
        List.copyOf(skipped), claimsRemoved);
  }

  /** The pipeline's claims older than the policy's ttl, removed unless the run is dry (class comment). */
  private static List<Claim> removeStaleClaims(Claims claims, String pipeline, Policy policy) throws IOException {
    List<Claim> removed = new ArrayList<>();
    for (Claim c : claims.listClaims(pipeline + "/")) {
      if (!c.isFresh(policy.claimTtl()) && (policy.dryRun() || claims.releaseClaim(c))) {
        removed.add(c);
      }
    }
    return List.copyOf(removed);
  }

  /** Whether {@code key}'s window lies strictly behind the pointer as it is now (none: not known to be). */
  private boolean behindPointerNow(String pipeline, String key) throws IOException {
    Optional<PointerState> now = store.readPointer(pipeline);
    return now.isPresent() && OutputKey.parse(key).windowStartEpochSecond() < now.get().pointer().windowStart();
  }

  /** The time of the key's newest history entry, or {@code null} when none has a time. */
  private static Instant lastWritten(KeyHistory h) {
    Instant last = null;
    for (HistoryEntry e : h.entries()) {
      if (e.time() != null && (last == null || e.time().isAfter(last))) {
        last = e.time();
      }
    }
    return last;
  }

  /** Whether the history of exactly {@code key} holds more than one content or a divergent attempt. */
  private static boolean divergent(PublishHistory history, String key, Retirement mark) throws IOException {
    boolean[] divergent = {false};
    history.history(key, h -> {
      if (h.key().equals(key) && KeyVerdict.of(h, mark).divergent()) {
        divergent[0] = true;
      }
      return h.key().compareTo(key) <= 0;
    });
    return divergent[0];
  }

  private static boolean deletable(Generation g, ListedObject o, Pointer pointer, PriorityQueue<Generation> newest,
      Policy policy, Instant now) {
    return !newest.contains(g) && expired(g, o.lastModified(), pointer, policy, now);
  }

  /**
   * Rules 2 to 4 of the class comment: behind the pointer, old enough by {@code olderThan}, and {@code
   * written} (the object's time, or a record-only key's newest record) outside the grace.
   */
  private static boolean expired(Generation g, Instant written, Pointer pointer, Policy policy, Instant now) {
    if (g.windowStart() >= pointer.windowStart()) {
      return false;
    }
    if (policy.olderThan() != null) {
      // The generation's own window length is not in its key; the pointer's length is the pipeline's.
      Instant windowEnd = Instant.ofEpochSecond(g.windowStart() + pointer.windowLength());
      if (!windowEnd.isBefore(now.minus(policy.olderThan()))) {
        return false;
      }
    }
    return written != null && written.isBefore(now.minus(policy.grace()));
  }

  private static Optional<Generation> parse(String pipeline, ListedObject o) {
    return parseKey(pipeline, o.key());
  }

  private static Optional<Generation> parseKey(String pipeline, String key) {
    if (!OutputKey.looksLikeKey(key)) {
      return Optional.empty(); // not an idem generation: retention leaves it alone
    }
    OutputKey k = OutputKey.parse(key);
    return k.pipeline().equals(pipeline) ? Optional.of(new Generation(k.windowStartEpochSecond(), key)) : Optional.empty();
  }
}
