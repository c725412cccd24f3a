package dev.idem.store.s3;

import java.io.IOException;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * The one check every paginated listing loop runs on the position the server hands back for the next
 * page (a continuation token, a key marker, a key and version-id marker pair): it must be one this
 * listing has not been handed before (B1).
 *
 * <p>Why: a listing loop ends only when the server says the listing is complete. A server (or proxy)
 * that repeats a token or marker, or cycles through a few, would keep the history walk, the pointer-log
 * reader and the sweep listing the same pages forever. This guard turns the repeat into an {@link
 * IOException} naming the listing, before the repeated page is requested again.
 *
 * <p>Memory: one entry per page of the listing. Not thread-safe: one per listing.
 *
 * @param <P> the position type; compared with {@link Object#equals}
 */
final class ListingGuard<P> {
  private final String listing;
  private final Set<P> handedOut = new HashSet<>();

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
}
