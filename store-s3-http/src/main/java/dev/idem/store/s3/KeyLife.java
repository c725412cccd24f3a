package dev.idem.store.s3;

import dev.idem.store.s3.internal.client.MalformedReplyException;
import dev.idem.store.s3.internal.client.ObjectVersion;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.internal.client.S3Exception;
import dev.idem.store.s3.internal.client.VersionsPage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Which version was first in the life of a key that a create-only write just added a version to. It
 * exists because some servers let racing {@code If-None-Match: *} writes all succeed (moto: multipart
 * completions nearly always, PUTs of a few MiB often) and keep each as a version; the later one then
 * learns it lost only by looking under its own version.
 *
 * <h2>Protocol</h2>
 *
 * ListObjectVersions with the key as prefix. The key's versions and delete markers come first, newest
 * first: every other key that starts with its name sorts after it. Walk them: past the entries newer
 * than ours (a later writer on top, which removes its own), past ours, then down the versions under it
 * to the first delete marker, which ends the life (gc's delete separates what it removed from what came
 * after). The oldest version met there was first. The walk stops at the end of the life, at another key
 * or at the end of the listing, so it is one page unless a key holds more entries than a page.
 *
 * <p>A page gives a key's latest entry first, but where a delete marker stands among the older entries
 * only a server that interleaves them in the page says: moto gives a page's Version elements before its
 * DeleteMarker elements, so an earlier life's version would pass for one under ours. So when the walk
 * finds a version under ours (the publish lost, or the page misplaced a marker), it walks again with one
 * entry per page, whose order is the listing's on every server; a publish that was first, the common
 * case, still costs one page. That second walk starts after our own version (it is the first page's
 * version marker), which no other writer removes: a later racing version on top of ours is removed by
 * its writer while it gives way, and a page whose marker names a removed version does not continue the
 * listing (S3Proxy ends the listing there, or answers 404 {@code NoSuchVersion}).
 *
 * <p>A walk starts again, at most {@value #ATTEMPTS} walks in all, when a page is refused as malformed
 * (S3Proxy lists a write in flight to the same key, another publisher's completion or a loser deleting
 * its version, as a version without an ETag, or under a temporary name, for a moment), when a page is
 * answered 404 {@code NoSuchVersion}, and when a walk that paged did not meet our version: the marker of
 * one of its pages named a version removed since the page before.
 *
 * <p>{@link #firstOfLife} walks the same way from the key's latest entry: a loser that removed its own
 * version learns which version is first now.
 *
 * <p>Holds nothing. A repeated continuation position is an {@link IOException} ({@link ListingGuard}).
 */
final class KeyLife {
  static final int ATTEMPTS = 3;

  private KeyLife() {}

  /**
   * The oldest version under {@code versionId} in its life of {@code objectKey}.
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
   * The versions of the key's current life, newest first: from its latest entry down to the first
   * delete marker. Empty when the latest entry is a delete marker, or the key has none.
   */
  static List<String> versionsOfLife(S3Client client, String bucket, String objectKey, int pageSize)
      throws IOException {
    String listing = "ListObjectVersions of s3://" + bucket + "/" + objectKey;
    ListingGuard<List<String>> guard = new ListingGuard<>(listing);
    List<String> life = new ArrayList<>();
    String keyMarker = null;
    String versionMarker = null;
    while (true) {
      VersionsPage page = client.listVersions(bucket, objectKey, keyMarker, versionMarker, pageSize);
      for (ObjectVersion v : page.versions()) {
        if (!v.key().equals(objectKey) || v.deleteMarker()) {
          return life;
        }
        life.add(v.versionId());
      }
      if (!page.truncated()) {
        return life;
      }
      keyMarker = page.nextKeyMarker();
      versionMarker = page.nextVersionIdMarker();
      guard.next(Arrays.asList(keyMarker, versionMarker));
    }
  }

  /** The walk of {@link #firstUnder}, from the version {@code versionId}, or from the key's latest entry when null. */
  private static Optional<String> first(S3Client client, String bucket, String objectKey, String versionId,
      int pageSize) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        Optional<String> first = walk(client, bucket, objectKey, versionId, false, pageSize);
        // A version under ours, as a page lists it: confirmed one entry per page, in which no server can
        // put a delete marker out of its place (moto gives a page's versions before its delete markers).
        return first.isEmpty() || pageSize == 1 ? first : walk(client, bucket, objectKey, versionId, true, 1);
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
