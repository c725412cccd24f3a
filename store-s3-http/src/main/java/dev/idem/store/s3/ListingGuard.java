package dev.idem.store.s3;

import java.io.IOException;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * The one check every paginated listing loop runs before it asks for a page (B1): the position the
 * server handed back for the next page (a continuation token, a key marker, a key and version-id marker
 * pair) must be one this listing has not been handed before, and a position the loop restarts the
 * listing at itself (to skip the store's own {@code _idem/} keys) must be one it has not restarted at
 * before.
 *
 * <p>Why: a listing loop ends only when the server says the listing is complete. A server (or proxy)
 * that repeats a token or marker, or cycles through a few, would keep the loop listing the same pages
 * forever; so would one that ignores where it is asked to start, since the loop then meets the keys it
 * skipped again and restarts at the same place. This guard turns either into an {@link IOException}
 * naming the listing, before the repeated page is requested again. It is the only such check: the
 * history walk's page cursors and split listing ({@link PageCursor}, {@link SplitListing}), the pointer log, the
 * sweeps, the retirement marks and the records gc deletes all page through it.
 *
 * <p>Positions are the server's, never a count of pages, so a repeat is seen as one. Memory: one entry
 * per page of the listing. Not thread-safe: one per listing.
 *
 * @param <P> the position type; compared with {@link Object#equals}, so a record or a list, never an
 *     array
 */
final class ListingGuard<P> {
  private final String listing;
  private final Set<P> handedOut = new HashSet<>();
  private final Set<P> restartedAt = new HashSet<>();

  /** @param listing what to name in the error, e.g. {@code ListObjectsV2 of s3://bucket/prefix} */
  ListingGuard(String listing) {
    this.listing = Objects.requireNonNull(listing, "listing");
  }

  /**
   * Checks the position the server gave for the next page.
   *
   * @param next the position, or {@code null} when the listing is complete (always accepted)
   * @return {@code next}
   * @throws IOException when the server handed out {@code next} before in this listing; nothing is
   *     fetched from it
   */
  P next(P next) throws IOException {
    if (next != null && !handedOut.add(next)) {
      throw new IOException(listing + ": the server handed out the same continuation position twice (" + next
          + ") after " + handedOut.size() + " pages; stopping rather than listing the same pages forever");
    }
    return next;
  }

  /**
   * Checks a position the loop restarts the listing at (after keys it skips).
   *
   * @return {@code at}
   * @throws IOException when the listing was restarted at {@code at} before: the server listed the
   *     skipped keys again instead of starting where it was asked; nothing is fetched from it
   */
  P restart(P at) throws IOException {
    if (!restartedAt.add(at)) {
      throw new IOException(listing + ": restarted twice at the same position (" + at + "): the server lists"
          + " keys before the position it is asked to start at; stopping rather than listing the same pages forever");
    }
    return at;
  }
}
