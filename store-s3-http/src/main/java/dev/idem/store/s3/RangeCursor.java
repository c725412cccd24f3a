package dev.idem.store.s3;

import dev.idem.store.s3.client.KeyOrder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Reads a listing cut into ranges ({@link KeyRanges}) one entry at a time in key order, while up to
 * {@code parallelism} ranges are listed at once: the range being read and the next ones open their
 * cursors (their first page, and the page after it in the background) before the reader gets to them.
 *
 * <p>Guarantees: entries come in the order of the ranges, and within a range in the listing's order;
 * each range yields exactly the entries it {@linkplain Range#holds holds} that its listing returns.
 * Memory: at most {@code parallelism} open ranges of two pages each ({@link PageCursor}), the
 * ranges behind the reader closed. Not thread-safe: one reader. {@link #close()} cancels every range
 * still open; a range that failed to list surfaces its {@link IOException} when the reader reaches it.
 * Each range's pages are checked by its {@link PageCursor}; a range whose rest, listed past a skipped
 * run ({@link #skipWhile}), comes back into the run (a server that ignores the position or the prefix it
 * is asked to list from) is not restarted a second time: the walk ends with an {@link IOException}
 * ({@link ListingGuard}). So each range restarts at most once, and every listing is bounded by its guard.
 *
 * @param <E> the listed entries
 */
final class RangeCursor<E> implements AutoCloseable {

  /** Opens the cursor of one range: its keys after {@code range.after()} ({@code null}: from its first). */
  @FunctionalInterface
  interface Opener<E> {
    PageCursor<?, E> open(Range range) throws IOException;
  }

  /**
   * One range of a listing: the keys above {@code after} ({@code null}: from the first) and not above
   * {@code upTo} ({@code null}: no upper bound), and, when {@code prefix} is set, starting with it. A
   * range with a prefix is listed with that prefix, so its listing ends where the prefix's keys do, with
   * no request past them.
   */
  record Range(String after, String upTo, String prefix) {
    /** The whole listing as one range. */
    static final Range ALL = new Range(null, null, null);

    /** Ranges cut at ascending {@code markers} above {@code start}: (start, m1], (m1, m2], …, (mk, end). */
    static List<Range> between(String start, List<String> markers) {
      List<Range> out = new ArrayList<>(markers.size() + 1);
      String after = start;
      for (String m : markers) {
        out.add(new Range(after, m, null));
        after = m;
      }
      out.add(new Range(after, null, null));
      return out;
    }

    /**
     * One range per directory, the keys starting with it, from {@code start} when the directory holds
     * it: a partition of the listing only when no key lies outside these directories.
     *
     * @param directories ascending, none wholly at or below {@code start}
     */
    static List<Range> directories(String start, List<String> directories) {
      List<Range> out = new ArrayList<>(directories.size());
      for (String d : directories) {
        out.add(new Range(start != null && start.startsWith(d) ? start : null, null, d));
      }
      return out;
    }

    /** Whether {@code key}, listed after {@link #after()}, belongs to this range. */
    boolean holds(String key) {
      return (prefix == null || key.startsWith(prefix)) && (upTo == null || KeyOrder.compare(key, upTo) <= 0);
    }
  }

  private record Open<E>(Range range, Future<PageCursor<?, E>> cursor) {}

  private final Opener<E> opener;
  private final Function<E, String> keyOf;
  private final ExecutorService executor;
  private final int parallelism;
  private final ArrayDeque<Range> waiting = new ArrayDeque<>();
  private final ArrayDeque<Open<E>> opening = new ArrayDeque<>();
  private final ListingGuard<Range> skips;
  private PageCursor<?, E> current;
  private Range currentRange;

  /**
   * @param ranges ascending and disjoint: every key of one range below every key of the next
   * @param listing what to name when a range is skipped to the same position twice ({@link ListingGuard})
   */
  RangeCursor(Opener<E> opener, Function<E, String> keyOf, List<Range> ranges, ExecutorService executor,
      int parallelism, String listing) {
    this.opener = opener;
    this.skips = new ListingGuard<>(listing);
    this.keyOf = keyOf;
    this.executor = executor;
    this.parallelism = Math.max(1, parallelism);
    waiting.addAll(ranges);
    fill();
  }

  /** How many ranges are open now (listing or being read): never more than the parallelism. */
  int openRanges() {
    return opening.size() + (current == null ? 0 : 1);
  }

  /** The next entry without consuming it, or {@code null} at the end of the last range. */
  E peek() throws IOException {
    while (true) {
      if (current == null) {
        Open<E> next = opening.poll();
        if (next == null) {
          return null;
        }
        currentRange = next.range;
        current = Futures.join(next.cursor);
        fill();
      }
      E e = current.peek();
      if (e != null && currentRange.holds(keyOf.apply(e))) {
        return e;
      }
      closeCurrent();
    }
  }

  /** Consumes the next entry; {@code null} at the end. */
  E next() throws IOException {
    E e = peek();
    if (e != null) {
      current.next();
    }
    return e;
  }

  /**
   * Skips the entries of the current range whose keys {@code area} accepts (a contiguous run of keys,
   * e.g. the store's own area): through what its cursor holds, and when the run goes on past that, by
   * listing the rest of the range with {@code rest} instead, which must start after the run without a
   * request of this cursor's listing (whose next position is inside the run).
   */
  void skipWhile(Predicate<String> area, Opener<E> rest) throws IOException {
    if (peek() == null || current.skipBuffered(e -> area.test(keyOf.apply(e)))) {
      return;
    }
    current.close();
    // The rest never gives the run's keys on a server that lists what it is asked for; restarting one
    // range twice means the server listed the skipped run again: refused, not a loop.
    current = rest.open(skips.restart(currentRange));
  }

  @Override
  public void close() {
    if (current != null) {
      current.close();
      current = null;
    }
    for (Open<E> o : opening) {
      if (!o.cursor.cancel(true)) { // already done: close what it opened
        try {
          o.cursor.get().close();
        } catch (ExecutionException | CancellationException failed) {
          // nothing was opened, so nothing to close
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    opening.clear();
    waiting.clear();
  }

  /**
   * {@code page} as {@code range} sees it: a page whose last key is outside the range ends it, so its
   * cursor does not fetch (or prefetch) the page after it.
   */
  static <C, E> PageCursor.Page<C, E> cut(PageCursor.Page<C, E> page, Range range, Function<E, String> keyOf) {
    List<E> entries = page.entries();
    if (page.next() != null && !entries.isEmpty() && !range.holds(keyOf.apply(entries.get(entries.size() - 1)))) {
      return new PageCursor.Page<>(entries, null);
    }
    return page;
  }

  private void closeCurrent() {
    current.close();
    current = null;
  }

  /** Starts listing waiting ranges until {@code parallelism} are open. */
  private void fill() {
    while (openRanges() < parallelism && !waiting.isEmpty()) {
      Range r = waiting.poll();
      opening.add(new Open<>(r, executor.submit(() -> {
        try {
          return opener.open(r);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      })));
    }
  }
}
