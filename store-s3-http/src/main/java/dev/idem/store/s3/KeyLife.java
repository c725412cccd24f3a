package dev.idem.store.s3;

import dev.idem.store.s3.internal.client.MalformedReplyException;
import dev.idem.store.s3.internal.client.ObjectHead;
import dev.idem.store.s3.internal.client.ObjectVersion;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.internal.client.S3Exception;
import dev.idem.store.s3.internal.client.VersionsPage;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Which version was first in the life of a key that a create-only write just added a version to. It
 * exists because some servers let racing {@code If-None-Match: *} writes all succeed (moto: multipart
 * completions nearly always, PUTs of a few MiB often) and keep each as a version; a later one then learns
 * it lost only by looking at the key's versions, and exactly one of them may report that it created the
 * key.
 *
 * <h2>Protocol ({@link #settle})</h2>
 *
 * The order a listing gives a key's versions is not the order they landed on every server: moto and
 * S3Proxy sort them by the last-modified time each write took (moto to the millisecond, writes of one
 * millisecond oldest first, and marks the first listed as latest; S3Proxy takes the time before a write
 * waits for its turn to land, and marks the current version latest, which a page gives first), so a
 * write that landed on another can be listed under it. What every
 * server keeps is S3's rule for the current version: it is the one that landed last among those still
 * there. So the decision rests on which versions are there, not on their order:
 *
 * <ol>
 *   <li>List the key's life ({@link #life}). This call's version alone in it: first. Any version
 *       written later sees this one there, and this one is never removed by its writer.
 *   <li>Else HEAD the key, then list the life again. This call's version alone: first. This call's
 *       version current at the HEAD: every version still there then landed before it, so a version in
 *       both listings (there before and after the HEAD, so at it) landed before this one, which lost;
 *       with none, every earlier version has been removed by its writer, a loser, and this one is first.
 *   <li>Else another version landed on this one and its writer has not yet given way: wait (20 ms,
 *       doubling) and look again, from the HEAD, at most {@value #SETTLE_ROUNDS} rounds (1.3 s of pauses).
 *       A writer stopped between its write and its removal leaves its version on top for good; then
 *       the listing's order decides ({@link #firstUnder}), which is the order the writes landed on S3 and,
 *       on the servers above, wrong only for writes that raced within the moment a write takes to land.
 * </ol>
 *
 * <p>A write applied twice (a completion sent again after its reply was lost, which S3Proxy can apply
 * twice) leaves two versions carrying this call's attempt; the later one, when current, is taken as this
 * call's, so the earlier one is found under it and this call gives way to itself.
 *
 * <h2>Listing a life</h2>
 *
 * ListObjectVersions with the key as prefix. The key's versions and delete markers come first, newest
 * first: every other key that starts with its name sorts after it. A life runs from the key's latest entry
 * down to the first delete marker, which ends it (gc's delete separates what it removed from what came
 * after). A page gives a key's latest entry first, but where a delete marker stands among the older entries
 * only a server that interleaves them in the page says: moto gives a page's Version elements before its
 * DeleteMarker elements, so an earlier life's version would pass for one of this life. So when a walk ends
 * at a delete marker after more than one version, it walks again with one entry per page, whose order is
 * the listing's on every server.
 *
 * <p>A walk starts again, at most {@value #ATTEMPTS} walks in all, when a page is refused as malformed
 * (S3Proxy lists a write in flight to the same key, another publisher's completion or a loser deleting
 * its version, as a version without an ETag, or under a temporary name, for a moment), when a page is
 * answered 404 {@code NoSuchVersion}, when a walk misses the version this call just wrote (S3Proxy lists
 * a version that is being made current again under no name for a moment) and when a walk of one entry
 * per page does not end at the delete marker the first walk met: the marker of one of its pages named a
 * version removed since the page before (S3Proxy ends the listing there).
 *
 * <p>{@link #firstUnder} and {@link #firstOfLife} read the listing's order: the fallback above, and the
 * version a loser gives way to when the life does not come down to one version in time.
 *
 * <p>Holds nothing. A repeated continuation position is an {@link IOException} ({@link ListingGuard}).
 */
final class KeyLife {
  static final int ATTEMPTS = 3;
  /**
   * Rounds {@link #settle} looks while another version sits on this call's; pauses of 20 ms doubling
   * between them, 1.3 s in all.
   */
  static final int SETTLE_ROUNDS = 7;

  /**
   * What a create-only write learnt about the version it added to a key's life.
   *
   * @param first whether that version is the first of the life (the write created the key)
   * @param own this call's version: the one the write created, or a later version of the same attempt
   *     that is current (the write was applied twice)
   * @param byListingOrder whether another version stayed on this call's through every round, so the
   *     listing's order decided: a racing writer stopped before removing its version
   */
  record Settled(boolean first, String own, boolean byListingOrder) {}

  private KeyLife() {}

  /**
   * Whether {@code own}, the version this call's write of {@code attempt} created, is the first of its
   * key's life (the class comment's protocol).
   *
   * @throws IOException when a listing fails, or does not hold this call's version (removed since it was
   *     written: who was first cannot be told)
   */
  static Settled settle(S3Client client, String bucket, String objectKey, String own, String attempt,
      int pageSize) throws IOException {
    List<String> seen = life(client, bucket, objectKey, own, pageSize);
    for (int round = 1; ; round++) {
      if (seen.equals(List.of(own))) {
        return new Settled(true, own, false);
      }
      Optional<ObjectHead> current = client.head(bucket, objectKey, null);
      String currentVersion = current.map(ObjectHead::versionId).orElse(null);
      if (currentVersion != null && !currentVersion.equals(own)
          && attempt.equals(current.get().meta(IdemMetadata.ATTEMPT))) {
        own = currentVersion;
      }
      List<String> now = life(client, bucket, objectKey, own, pageSize);
      if (now.equals(List.of(own))) {
        return new Settled(true, own, false);
      }
      if (own.equals(currentVersion)) {
        String mine = own;
        List<String> before = seen;
        return new Settled(now.stream().noneMatch(v -> !v.equals(mine) && before.contains(v)), own, false);
      }
      if (round == SETTLE_ROUNDS) {
        return new Settled(firstUnder(client, bucket, objectKey, own, pageSize).isEmpty(), own, true);
      }
      pause(round);
      seen = now;
    }
  }

  /**
   * The versions of the key's current life, as listed (newest first where the server orders by landing).
   *
   * @param own a version the life must hold (this call's), or null
   * @throws IOException when the listing fails, or, after {@value #ATTEMPTS} walks, does not hold {@code own}
   */
  static List<String> life(S3Client client, String bucket, String objectKey, String own, int pageSize)
      throws IOException {
    return walkedAgain(() -> {
      Life walked = walkLife(client, bucket, objectKey, pageSize);
      if (walked.endsAtMarker() && walked.versions().size() > 1 && pageSize > 1) {
        // A delete marker after several versions: one entry per page puts it in its place on every server.
        walked = walkLife(client, bucket, objectKey, 1);
        if (!walked.endsAtMarker()) {
          throw new ListingMoved("ListObjectVersions of s3://" + bucket + "/" + objectKey + " one entry per page"
              + " ended before the delete marker a page of it showed");
        }
      }
      if (own != null && !walked.versions().contains(own)) {
        throw new ListingMoved("ListObjectVersions of s3://" + bucket + "/" + objectKey + " does not hold"
            + " version " + own + ", which this publish just created; whether another version was there first"
            + " cannot be told");
      }
      return walked.versions();
    });
  }

  /** A walk of the listing, which may meet the moments the class comment lists. */
  @FunctionalInterface
  private interface Walk<T> {
    T walk() throws IOException;
  }

  /**
   * {@code walk}'s result, walked again, {@value #ATTEMPTS} walks in all, after a malformed page, a 404
   * {@code NoSuchVersion} or a {@link ListingMoved}.
   */
  private static <T> T walkedAgain(Walk<T> walk) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        return walk.walk();
      } catch (ListingMoved | MalformedReplyException e) {
        if (attempt == ATTEMPTS) {
          throw e;
        }
      } catch (S3Exception e) {
        if (attempt == ATTEMPTS || !"NoSuchVersion".equals(e.code())) {
          throw e;
        }
      }
    }
  }


  /** One walk of a life: its versions, and whether it ended at a delete marker of the key. */
  private record Life(List<String> versions, boolean endsAtMarker) {}

  private static Life walkLife(S3Client client, String bucket, String objectKey, int pageSize) throws IOException {
    ListingGuard<List<String>> guard = new ListingGuard<>("ListObjectVersions of s3://" + bucket + "/" + objectKey);
    List<String> life = new ArrayList<>();
    String keyMarker = null;
    String versionMarker = null;
    while (true) {
      VersionsPage page = client.listVersions(bucket, objectKey, keyMarker, versionMarker, pageSize);
      for (ObjectVersion v : page.versions()) {
        if (!v.key().equals(objectKey)) {
          return new Life(life, false);
        }
        if (v.deleteMarker()) {
          return new Life(life, true);
        }
        life.add(v.versionId());
      }
      if (!page.truncated()) {
        return new Life(life, false);
      }
      keyMarker = page.nextKeyMarker();
      versionMarker = page.nextVersionIdMarker();
      guard.next(Arrays.asList(keyMarker, versionMarker));
    }
  }

  /** A moment for racing writes to settle before the key's life is read again: 20, 40, 80 ms, and so on. */
  static void pause(int round) throws IOException {
    try {
      Thread.sleep(10L << round);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for racing writes to one key to settle");
    }
  }

  /**
   * The oldest version under {@code versionId} in its life of {@code objectKey}, by the listing's order.
   *
   * @return empty when {@code versionId} is the first of its life
   * @throws IOException when the listing fails, or does not hold {@code versionId} (removed since it was
   *     written: who was first cannot be told)
   */
  static Optional<String> firstUnder(S3Client client, String bucket, String objectKey, String versionId, int pageSize)
      throws IOException {
    return first(client, bucket, objectKey, versionId, pageSize);
  }

  /**
   * The oldest version of the key's current life: the walk from its latest entry down to the first
   * delete marker.
   *
   * @return empty when the key's latest entry is a delete marker, or it has none
   */
  static Optional<String> firstOfLife(S3Client client, String bucket, String objectKey, int pageSize)
      throws IOException {
    return first(client, bucket, objectKey, null, pageSize);
  }

  /**
   * The walk of {@link #firstUnder}, from the version {@code versionId}, or from the key's latest entry
   * when null: past the entries listed above ours, past ours, then down the versions under it to the first
   * delete marker; the last version met was first. A version found under ours is confirmed by a walk of one
   * entry per page that starts after ours (its version marker, which no other writer removes), so that a
   * publish listed first, the common case, costs one page.
   */
  private static Optional<String> first(S3Client client, String bucket, String objectKey, String versionId,
      int pageSize) throws IOException {
    return walkedAgain(() -> {
      Optional<String> first = walk(client, bucket, objectKey, versionId, false, pageSize);
      // A version under ours, as a page lists it: confirmed one entry per page, in which no server can
      // put a delete marker out of its place (moto gives a page's versions before its delete markers).
      return first.isEmpty() || pageSize == 1 ? first : walk(client, bucket, objectKey, versionId, true, 1);
    });
  }

  /**
   * One walk down the listing.
   *
   * @param fromOurs start after {@code versionId} (when not null) rather than at the key's latest entry
   */
  private static Optional<String> walk(S3Client client, String bucket, String objectKey, String versionId,
      boolean fromOurs, int pageSize) throws IOException {
    String listing = "ListObjectVersions of s3://" + bucket + "/" + objectKey;
    ListingGuard<List<String>> guard = new ListingGuard<>(listing);
    boolean ours = versionId == null || fromOurs;
    String keyMarker = ours && versionId != null ? objectKey : null;
    String versionMarker = ours ? versionId : null;
    boolean paged = false;
    String first = null;
    while (true) {
      VersionsPage page = client.listVersions(bucket, objectKey, keyMarker, versionMarker, pageSize);
      for (ObjectVersion v : page.versions()) {
        if (!v.key().equals(objectKey) || ours && v.deleteMarker()) {
          return found(ours, paged, first, versionId, listing);
        }
        if (ours) {
          first = v.versionId();
        } else {
          ours = versionId.equals(v.versionId());
        }
      }
      if (!page.truncated()) {
        return found(ours, paged, first, versionId, listing);
      }
      keyMarker = page.nextKeyMarker();
      versionMarker = page.nextVersionIdMarker();
      paged = true;
      guard.next(Arrays.asList(keyMarker, versionMarker));
    }
  }

  private static Optional<String> found(boolean ours, boolean paged, String first, String versionId,
      String listing) throws IOException {
    if (!ours) {
      String message = listing + " does not hold version " + versionId + ", which this publish just created;"
          + " whether another version was there first cannot be told";
      throw paged ? new ListingMoved(message) : new IOException(message);
    }
    return Optional.ofNullable(first);
  }

  /** A walk that paged and missed our version: a page's marker may name a version removed meanwhile. */
  private static final class ListingMoved extends IOException {
    private static final long serialVersionUID = 1L;

    ListingMoved(String message) {
      super(message);
    }
  }
}
