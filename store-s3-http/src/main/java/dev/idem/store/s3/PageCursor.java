package dev.idem.store.s3;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * Walks a paginated S3 listing one entry at a time, holding one page and fetching the next one in the
 * background while the current one is consumed, so a scan's wall time is close to the listing's alone.
 *
 * <p>Memory: at most two pages. Not thread-safe: one consumer per cursor. {@link #close()} cancels the
 * page in flight; a failure to fetch a page surfaces from {@link #peek()} as the fetch's own {@link
 * IOException}. A page whose next position the server handed out before ends the walk with an {@link
 * IOException} ({@link ListingGuard}) instead of fetching it again, and so does a second {@link #restart}
 * at the same position (a server that ignores where it is asked to start).
 *
 * @param <C> the position a page is fetched from (markers, a continuation token)
 * @param <E> the entries
 */
final class PageCursor<C, E> implements AutoCloseable {

  /** Fetches the page at a position. */
  @FunctionalInterface
  interface Fetch<C, E> {
    /**
     * @param page which page of the listing this is, counted from 0 where the cursor was opened or
     *     restarted (a count of this cursor's, never part of the position the guard compares)
     */
    Page<C, E> fetch(C position, int page) throws IOException;
  }

  /**
   * One page.
   *
   * @param entries the page's entries
   * @param next where the next page starts, or {@code null} when this is the last
   */
  record Page<C, E>(List<E> entries, C next) {}

  private final Fetch<C, E> fetch;
  private final ExecutorService executor;
  private final ListingGuard<C> guard;
  private List<E> entries = List.of();
  private int index;
  /** Pages accepted since the cursor was opened or restarted. */
  private int pages;
  private C next;
  private boolean more;
  private Future<Page<C, E>> pending;

  /**
   * A cursor that starts with {@code first} (already fetched, so the caller sees its errors directly).
   *
   * @param listing what to name when the server repeats a position ({@link ListingGuard})
   */
  PageCursor(Fetch<C, E> fetch, Page<C, E> first, ExecutorService executor, String listing) throws IOException {
    this.fetch = fetch;
    this.executor = executor;
    this.guard = new ListingGuard<>(listing);
    accept(first);
  }

  /** A cursor whose first page is fetched at {@code start}, now. */
  static <C, E> PageCursor<C, E> open(Fetch<C, E> fetch, C start, ExecutorService executor, String listing)
      throws IOException {
    return new PageCursor<>(fetch, fetch.fetch(start, 0), executor, listing);
  }

  /** The next entry without consuming it, or {@code null} at the end. */
  E peek() throws IOException {
    while (index >= entries.size()) {
      if (!more) {
        return null;
      }
      accept(pending != null ? join() : fetch.fetch(next, pages));
    }
    return entries.get(index);
  }

  /** Consumes the next entry; {@code null} at the end. */
  E next() throws IOException {
    E e = peek();
    if (e != null) {
      index++;
    }
    return e;
  }

  /** Drops what is buffered and continues from {@code position} (to skip a range of keys). */
  void restart(C position) throws IOException {
    cancel();
    pages = 0;
    accept(fetch.fetch(guard.restart(position), 0));
  }

  @Override
  public void close() {
    cancel();
  }

  private void accept(Page<C, E> page) throws IOException {
    entries = page.entries();
    index = 0;
    pages++;
    next = guard.next(page.next());
    more = next != null;
    if (more) {
      C position = next;
      int number = pages;
      pending = executor.submit(() -> {
        try {
          return fetch.fetch(position, number);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }

  private Page<C, E> join() throws IOException {
    Future<Page<C, E>> f = pending;
    pending = null;
    return Futures.join(f);
  }

  private void cancel() {
    if (pending != null) {
      pending.cancel(true);
      pending = null;
    }
    entries = List.of();
    index = 0;
    more = false;
  }
}
