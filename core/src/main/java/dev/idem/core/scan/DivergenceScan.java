package dev.idem.core.scan;

import dev.idem.core.OutputKey;
import dev.idem.core.publish.ClaimPolicy;
import dev.idem.core.store.Acknowledgement;
import dev.idem.core.store.Claim;
import dev.idem.core.store.Claims;
import dev.idem.core.store.Deadline;
import dev.idem.core.store.DeadlineExceededException;
import dev.idem.core.store.HistoryQuery;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.PublishHistory;
import dev.idem.core.store.Retirement;
import dev.idem.core.store.RetirementMarks;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Walks a store's history under a prefix and reports every key written with more than one distinct
 * content (see {@link KeyVerdict}). Read-only: safe against production.
 *
 * <p>Memory is bounded by one key's history: the store streams keys one at a time and the scan keeps
 * only counters and the names of the pipelines it met. After the listing, the pointer of every
 * pipeline met (and of {@code alsoCheck}) is read, the pipelines side by side ({@link PointerChecks}), and
 * one whose object is missing or holds other bytes than the pointer says ({@link PointerTarget}) is
 * reported, and so is the last operator rewind a pointer
 * records. A {@code maxKeys} or {@code maxTime} bound
 * stops early; the summary then says the scan was incomplete, and an incomplete scan is never reported
 * clean. Neither is a scan that met no key and no pointer ({@link ScanSummary#examinedNothing()}).
 * Positions (window and schema) holding more than one key are reported as {@link WindowDrift} and
 * counted; a window where no two keys are known to share a schema and a key's schema is unknown is
 * judged whole. A window of keys of one schema each is reported as a {@link SchemaOverlap}. Every window
 * of more than one key is thus reported one way or the other, which is what lets a store spend a
 * request on a key's schema only in a window of several keys (S3, where a listing carries no metadata):
 * the requests stay within a bound per window reported. Whether drift fails a gate is the caller's
 * choice.
 *
 * <p>Keys published again after retention removed them are judged life by life ({@link KeyVerdict}):
 * the retirement mark of each pipeline met is read once, when its first key is listed, and a
 * republished key is reported ({@link Listener#republished}) and counted, not failed.
 *
 * <p>A divergent key that an operator acknowledged ({@link Acknowledgement}) is reported apart ({@link
 * Listener#acknowledged}) and does not count as divergent while the acknowledgement covers it. The
 * acknowledgements under the prefix are read once, when the first divergent key is met, so a scan that
 * meets none costs nothing more.
 *
 * <p>A scan bounded by a {@link Deadline} that the store's requests end by too (a command's overall
 * deadline, B2) is bounded hard, the request in flight included: a {@link DeadlineExceededException}
 * naming that deadline ends the scan incomplete, as if it had stopped between two keys ({@link
 * Listener#stopped} hears why), and once it has passed no further request is made (the pointers are
 * not read). Any other {@link IOException} from the store ends the scan with no verdict; nothing is
 * written either way.
 *
 * <p>The store's advisory claims under the prefix ({@link Claims}) are listed once, after the keys,
 * and each is reported ({@link Listener#claim}) as held or stale by the scan's claim ttl ({@link
 * #withClaimTtl}); they are counted in the summary and never change its verdict: a claim is advice
 * (A1), saying who is at work on an unpublished key, not what was published. A store without claims is
 * scanned the same, its summary saying so ({@link ScanSummary#claims()} {@code null}); a failure to
 * list them is reported in the summary, never an error of the scan.
 *
 * <p>A store without {@link PublishHistory} has nothing the scan could judge: the scan refuses it
 * ({@link dev.idem.core.store.MissingCapabilityException}) before any request, never reporting it clean.
 * A store without {@link RetirementMarks} is scanned as if no pipeline had a mark: a key published again
 * after retention is then judged as one life (divergent when its bytes changed), never passed wrongly.
 */
public final class DivergenceScan {

  /** Receives results as the scan goes. */
  public interface Listener {
    /** A key whose history holds more than one distinct content. */
    void divergent(KeyVerdict verdict) throws IOException;

    /**
     * A position holding more than one key (keying drift), or a window of more than one key where a
     * schema is unknown; reported once the listing has moved past the window.
     */
    default void drift(WindowDrift window) throws IOException {}

    /**
     * A window of more than one key, one per schema, every schema known: a schema bump's overlap, not
     * drift; reported once the listing has moved past the window.
     */
    default void schemaOverlap(SchemaOverlap window) throws IOException {}

    /**
     * A key published again after retention removed it ({@link KeyVerdict#republished()}): reported,
     * not a failure.
     */
    default void republished(KeyVerdict verdict) throws IOException {}

    /**
     * A divergent key that an operator's acknowledgement still covers ({@link KeyVerdict#acknowledgedBy}):
     * reported, counted apart, not a failure. {@code ack} is the newest acknowledgement that covers it.
     */
    default void acknowledged(KeyVerdict verdict, Acknowledgement ack) throws IOException {}

    /**
     * A claim under the prefix, after the keys: held (written or renewed within the claim ttl) or
     * {@code stale} (what gc removes). Advice, never part of the verdict.
     */
    default void claim(Claim claim, boolean stale) throws IOException {}

    /** Called after each key; cheap enough to ignore. */
    default void progress(long keys, long entries) {}

    /** The deadline cut the store's request in flight ({@code cause} names it); the scan ends incomplete. */
    default void stopped(DeadlineExceededException cause) {}
  }

  private final Clock clock;
  private final long maxKeys;
  private final Duration maxTime;
  private final Deadline deadline;
  private final Duration claimTtl;

  /**
   * @param maxKeys stop after this many keys; {@code 0} for no bound
   * @param maxTime stop after this long; {@code null} for no bound
   */
  public DivergenceScan(Clock clock, long maxKeys, Duration maxTime) {
    if (maxKeys < 0) {
      throw new IllegalArgumentException("maxKeys must be >= 0, was " + maxKeys);
    }
    if (maxTime != null && (maxTime.isNegative() || maxTime.isZero())) {
      throw new IllegalArgumentException("maxTime must be positive, was " + maxTime);
    }
    this.clock = Objects.requireNonNull(clock, "clock");
    this.maxKeys = maxKeys;
    this.maxTime = maxTime;
    this.deadline = null;
    this.claimTtl = ClaimPolicy.defaults().ttl();
  }

  private DivergenceScan(Clock clock, long maxKeys, Duration maxTime, Deadline deadline, Duration claimTtl) {
    this.clock = clock;
    this.maxKeys = maxKeys;
    this.maxTime = maxTime;
    this.deadline = deadline;
    this.claimTtl = claimTtl;
  }

  /**
   * This scan stopping by {@code deadline} instead of its {@code maxTime}: the deadline the store's
   * requests end by too (see the class comment), so a store request it cuts ends the scan incomplete
   * rather than failed.
   */
  public DivergenceScan within(Deadline deadline) {
    return new DivergenceScan(clock, maxKeys, null, Objects.requireNonNull(deadline, "deadline"), claimTtl);
  }

  /**
   * This scan judging claims older than {@code ttl} stale (by default the ttl publishers claim with,
   * {@link ClaimPolicy#defaults()}).
   */
  public DivergenceScan withClaimTtl(Duration ttl) {
    Objects.requireNonNull(ttl, "claim ttl");
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("claim ttl must be positive, was " + ttl);
    }
    return new DivergenceScan(clock, maxKeys, maxTime, deadline, ttl);
  }

  public DivergenceScan() {
    this(Clock.systemUTC(), 0, null);
  }

  public ScanSummary run(ObjectStore store, String prefix, Listener listener) throws IOException {
    return run(store, HistoryQuery.under(prefix), Set.of(), listener);
  }

  /**
   * Scans the keys {@code query} accepts (e.g. one pipeline's windows since a date), which the store
   * lists without building the history of keys outside it; rejected keys are neither judged nor
   * counted. This scan's {@code maxTime} becomes the query's deadline, so the store checks it for every
   * key it lists, including those it skips.
   */
  public ScanSummary run(ObjectStore store, HistoryQuery query, Set<String> alsoCheck, Listener listener)
      throws IOException {
    String prefix = query.prefix();
    PublishHistory history = PublishHistory.of(store, "the scan judges each key by what its history recorded");
    RetirementMarks marks = store.retirementMarks().orElse(null);
    Set<String> pipelines = new TreeSet<>(alsoCheck);
    Instant until = maxTime != null ? clock.instant().plus(maxTime)
        : deadline != null ? clock.instant().plus(deadline.left()) : null;
    long[] counts = new long[7]; // keys, entries, benign, divergent, drift positions, republished, acknowledged
    WindowKeys window = new WindowKeys();
    Map<String, Optional<Retirement>> retired = new HashMap<>();
    Map<String, List<Acknowledgement>> acks = new HashMap<>();
    boolean[] acksRead = {false};
    boolean complete;
    try {
      complete = history.history(query.until(clock, until), (KeyHistory h) -> {
        Retirement mark = null;
        if (OutputKey.looksLikeKey(h.key())) {
          String pipeline = h.key().substring(0, h.key().indexOf('/'));
          if (!retired.containsKey(pipeline)) {
            // once per pipeline met
            retired.put(pipeline, marks == null ? Optional.empty() : marks.readRetirement(pipeline));
          }
          mark = retired.get(pipeline).orElse(null);
        }
        KeyVerdict v = KeyVerdict.of(h, mark);
        if (OutputKey.looksLikeKey(h.key())) {
          pipelines.add(h.key().substring(0, h.key().indexOf('/')));
          if (v.writes() > 0) {
            counts[4] += window.add(OutputKey.parse(h.key()), h.schema(), listener);
          }
        }
        counts[0]++;
        counts[1] += h.entries().size();
        Acknowledgement ack = null;
        if (v.divergent()) {
          if (!acksRead[0]) {
            for (Acknowledgement a : history.acknowledgements(prefix)) { // once, at the first divergent key
              acks.computeIfAbsent(a.key(), k -> new ArrayList<>()).add(a);
            }
            acksRead[0] = true;
          }
          ack = covering(v, acks.getOrDefault(h.key(), List.of()));
        }
        if (ack != null) {
          counts[6]++;
          listener.acknowledged(v, ack);
        } else if (v.divergent()) {
          counts[3]++;
          listener.divergent(v);
        } else if (v.republished()) {
          counts[5]++;
          listener.republished(v);
        } else if (v.benignDuplicate()) {
          counts[2]++;
        }
        listener.progress(counts[0], counts[1]);
        boolean keysLeft = maxKeys == 0 || counts[0] < maxKeys;
        return keysLeft && timeLeft(until);
      });
    } catch (DeadlineExceededException e) {
      if (deadline == null || e.deadline() != deadline) {
        throw e;
      }
      listener.stopped(e);
      complete = false;
    }
    counts[4] += window.flush(listener);
    ScanSummary.ClaimCounts claims = claims(store, prefix, until, listener);
    List<PointerTarget> problems = new ArrayList<>();
    long pointers = 0;
    SortedMap<String, Pointer.Rewind> rewinds = new TreeMap<>();
    // Past the deadline no request is made: the store would refuse it, and an incomplete scan fails anyway.
    List<String> checked = new ArrayList<>(timeLeft(until) ? pipelines : Set.<String>of());
    for (PointerChecks.Checked c : PointerChecks.run(store, checked, query.listParallelism())) {
      pointers++;
      if (!c.target().matches()) {
        problems.add(c.target());
      }
      if (c.pointer().rewind() != null) {
        rewinds.put(c.pipeline(), c.pointer().rewind());
      }
    }
    return new ScanSummary(prefix, counts[0], counts[1], counts[2], counts[3], complete, pointers, problems, rewinds,
        counts[4], counts[5], counts[6], claims);
  }

  /**
   * The claims under {@code prefix}, one listing, each told to {@code listener}; {@code null} for a store
   * without claims. Claims are advice: a listing that fails or finds no time left is reported, not thrown.
   */
  private ScanSummary.ClaimCounts claims(ObjectStore store, String prefix, Instant until, Listener listener)
      throws IOException {
    Optional<Claims> claims = store.claims();
    if (claims.isEmpty()) {
      return null;
    }
    if (!timeLeft(until)) {
      return new ScanSummary.ClaimCounts(0, 0, "the scan's time ran out before they were listed");
    }
    List<Claim> listed;
    try {
      listed = claims.get().listClaims(prefix);
    } catch (IOException e) {
      return new ScanSummary.ClaimCounts(0, 0, e.getMessage() == null ? e.getClass().getSimpleName()
          : e.getMessage().replace('\n', ' '));
    }
    long held = 0;
    long stale = 0;
    for (Claim c : listed) {
      boolean isStale = !c.isFresh(claimTtl);
      if (isStale) {
        stale++;
      } else {
        held++;
      }
      listener.claim(c, isStale);
    }
    return new ScanSummary.ClaimCounts(held, stale, null);
  }

  /** The newest of {@code acks} that still covers {@code v}, or {@code null}. */
  private static Acknowledgement covering(KeyVerdict v, List<Acknowledgement> acks) {
    Acknowledgement newest = null;
    for (Acknowledgement a : acks) {
      if (v.acknowledgedBy(a) && (newest == null || a.at().isAfter(newest.at()))) {
        newest = a;
      }
    }
    return newest;
  }

  private boolean timeLeft(Instant until) {
    return (until == null || clock.instant().isBefore(until)) && (deadline == null || !deadline.passed());
  }

  /**
   * The keys of the window the listing is in, with their recorded schemas. Keys come in ascending
   * order, so the keys of one window (one {@code pipeline/window_start/} prefix) are adjacent: memory
   * stays one window's keys.
   */
  private static final class WindowKeys {
    private String pipeline;
    private long windowStart;
    private final List<String> keys = new ArrayList<>();
    private final List<Integer> schemas = new ArrayList<>();

    /** Adds {@code key}; returns how many drifting positions the window it closed held (reported). */
    int add(OutputKey key, Integer schema, Listener listener) throws IOException {
      int drifted = 0;
      if (!key.pipeline().equals(pipeline) || key.windowStartEpochSecond() != windowStart) {
        drifted = flush(listener);
        pipeline = key.pipeline();
        windowStart = key.windowStartEpochSecond();
      }
      keys.add(key.toString());
      schemas.add(schema);
      return drifted;
    }

    int flush(Listener listener) throws IOException {
      if (keys.size() < 2) {
        keys.clear();
        schemas.clear();
        return 0;
      }
      SortedMap<Integer, List<String>> positions = new TreeMap<>();
      List<String> unplaced = new ArrayList<>();
      for (int i = 0; i < keys.size(); i++) {
        Integer schema = schemas.get(i);
        if (schema == null) {
          unplaced.add(keys.get(i));
        } else {
          positions.computeIfAbsent(schema, s -> new ArrayList<>()).add(keys.get(i));
        }
      }
      List<WindowDrift> drifts = new ArrayList<>();
      positions.forEach((schema, held) -> {
        if (held.size() > 1) {
          drifts.add(new WindowDrift(pipeline, windowStart, schema, held, unplaced));
        }
      });
      if (drifts.isEmpty() && !unplaced.isEmpty()) {
        drifts.add(new WindowDrift(pipeline, windowStart, null, keys, unplaced));
      }
      for (WindowDrift d : drifts) {
        listener.drift(d);
      }
      if (drifts.isEmpty()) {
        listener.schemaOverlap(new SchemaOverlap(pipeline, windowStart, schemas, keys));
      }
      keys.clear();
      schemas.clear();
      return drifts.size();
    }
  }
}
