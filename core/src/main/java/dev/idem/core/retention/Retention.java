package dev.idem.core.retention;

import dev.idem.core.Names;
import dev.idem.core.OutputKey;
import dev.idem.core.store.ListedObject;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.PriorityQueue;

/**
 * Deletes old generations of one pipeline and sweeps the store's leftovers.
 *
 * <p>A generation (an object under {@code pipeline/}) is deleted only when <em>all</em> of these hold:
 *
 * <ol>
 *   <li>it is not among the {@code keep} newest generations (by window start, then key);
 *   <li>its window starts strictly before the window of the generation the pointer names. The pointer
 *       never moves backwards (G2), so once a generation is behind the pointer it stays behind: the
 *       pointer can never come to name it again. The named generation and anything newer (a generation
 *       being published ahead of the pointer) are never touched;
 *   <li>when {@code olderThan} is set, its window ended before {@code now - olderThan};
 *   <li>it was written more than {@code grace} ago, so a late replica that has just published (and is
 *       about to check its object before advancing) never has it removed under it.
 * </ol>
 *
 * With no pointer at all nothing is deleted: without it, no generation is known to be superseded.
 *
 * <p>Memory is bounded by {@code keep} (plus the report's list of deleted keys): the listing is
 * streamed twice, first to find the newest {@code keep} generations with a bounded heap, then to
 * delete. A failure mid-way leaves some
 * deletable generations in place; running again finishes the job.
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
   */
  public record Policy(int keep, Duration olderThan, Duration grace, boolean dryRun) {
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
    }
  }

  /**
   * What one run did.
   *
   * @param pointer the pointer the decisions were made against, or {@code null} when there was none
   * @param generations generations of the pipeline seen
   * @param deleted keys deleted (or, in a dry run, that would be)
   * @param swept store leftovers removed (or that would be)
   */
  public record Report(Pointer pointer, long generations, List<String> deleted, List<String> swept) {}

  private final ObjectStore store;
  private final Clock clock;

  public Retention(ObjectStore store, Clock clock) {
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  private record Generation(long windowStart, String key) {}

  private static final Comparator<Generation> OLDEST_FIRST =
      Comparator.comparingLong(Generation::windowStart).thenComparing(Generation::key);

  /** Applies {@code policy} to {@code pipeline}, then sweeps the store's leftovers older than the grace. */
  public Report run(String pipeline, Policy policy) throws IOException {
    Names.requirePipeline(pipeline);
    Instant now = clock.instant();
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

    List<String> deleted = new ArrayList<>();
    if (pointer != null) {
      // Deleting already-listed keys while the listing goes on is safe on both stores: the filesystem
      // store lists one directory snapshot at a time, S3 pages continue after the last key returned.
      store.list(pipeline + "/", o -> {
        Optional<Generation> g = parse(pipeline, o);
        if (g.isPresent() && deletable(g.get(), o, pointer, newest, policy, now)
            && (policy.dryRun() || store.delete(g.get().key()))) {
          deleted.add(g.get().key());
        }
        return true;
      });
    }
    List<String> swept = store.sweep(policy.grace(), policy.dryRun());
    return new Report(pointer, generations[0], deleted, swept);
  }

  private static boolean deletable(Generation g, ListedObject o, Pointer pointer, PriorityQueue<Generation> newest,
      Policy policy, Instant now) {
    if (newest.contains(g)) {
      return false;
    }
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
    return o.lastModified() != null && o.lastModified().isBefore(now.minus(policy.grace()));
  }

  private static Optional<Generation> parse(String pipeline, ListedObject o) {
    if (!OutputKey.looksLikeKey(o.key())) {
      return Optional.empty(); // not an idem generation: retention leaves it alone
    }
    OutputKey k = OutputKey.parse(o.key());
    return k.pipeline().equals(pipeline) ? Optional.of(new Generation(k.windowStartEpochSecond(), o.key())) : Optional.empty();
  }
}
