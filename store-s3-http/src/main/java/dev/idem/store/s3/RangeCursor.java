package dev.idem.store.s3;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * Reads a listing cut into ranges ({@link KeyRanges}) one entry at a time in key order, while up to
 * {@code parallelism} ranges are listed at once: the range being read and the next ones open their
 * cursors (their first page, and the page after it in the background) before the reader gets to them.
 *
 * <p>Guarantees: entries come in the order of the ranges, and within a range in the listing's order;
 * each range yields exactly the entries whose key is above its lower marker and not above its upper
 * one. Memory: at most {@code parallelism} open ranges of two pages each ({@link PageCursor}), the
 * ranges behind the reader closed. Not thread-safe: one reader. {@link #close()} cancels every range
 * still open; a range that failed to list surfaces its {@link IOException} when the reader reaches it.
 *
 * @param <E> the listed entries
 */
final class RangeCursor<E> implements AutoCloseable {

  /** Opens the cursor of one range: keys after {@code after} ({@code null}: from the first). */
  @FunctionalInterface
  interface Opener<E> {
    PageCursor<?, E> open(String after, String upTo) throws IOException;
  }

  private record Range(String after, String upTo) {}

  private record Open<E>(Range range, Future<PageCursor<?, E>> cursor) {}

  private final Opener<E> opener;
  private final Function<E, String> keyOf;
  private final ExecutorService executor;
  private final int parallelism;
  private final ArrayDeque<Range> waiting = new ArrayDeque<>();
  private final ArrayDeque<Open<E>> opening = new ArrayDeque<>();
  private PageCursor<?, E> current;
  private Range currentRange;

  /**
   * @param start where the listing starts ({@code null}: its first key)
   * @param markers ascending split markers, all above {@code start}
   */
  RangeCursor(Opener<E> opener, Function<E, String> keyOf, String start, List<String> markers,
      ExecutorService executor, int parallelism) {
    this.opener = opener;
    this.keyOf = keyOf;
    this.executor = executor;
    this.parallelism = Math.max(1, parallelism);
    String after = start;
    for (String m : markers) {
      waiting.add(new Range(after, m));
      after = m;
    }
    waiting.add(new Range(after, null));
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
      if (e != null && inRange(keyOf.apply(e), currentRange.upTo)) {
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

  /** Skips the rest of the current range up to {@code after} (inclusive), e.g. the store's own area. */
  void skipTo(String after) throws IOException {
    if (peek() == null) {
      return;
    }
    if (currentRange.upTo != null && KeyOrder.compare(after, currentRange.upTo) >= 0) {
      closeCurrent();
      return;
    }
    current.close();
    current = opener.open(after, currentRange.upTo);
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
   * {@code page} as the range up to {@code upTo} sees it: a page whose last key is past {@code upTo} ends
   * the range, so its cursor does not fetch (or prefetch) the page after it.
   */
  static <C, E> PageCursor.Page<C, E> cut(PageCursor.Page<C, E> page, String upTo, Function<E, String> keyOf) {
    List<E> entries = page.entries();
    if (page.next() != null && !entries.isEmpty() && !inRange(keyOf.apply(entries.get(entries.size() - 1)), upTo)) {
      return new PageCursor.Page<>(entries, null);
    }
    return page;
  }

  /** Whether {@code key} is at or below {@code upTo} ({@code null}: no upper bound). */
  static boolean inRange(String key, String upTo) {
    return upTo == null || KeyOrder.compare(key, upTo) <= 0;
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
          return opener.open(r.after, r.upTo);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      })));
    }
  }
}
