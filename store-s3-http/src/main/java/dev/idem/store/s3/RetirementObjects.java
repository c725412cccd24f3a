package dev.idem.store.s3;

import dev.idem.core.store.Retirement;
import dev.idem.store.s3.internal.client.ObjectSummary;
import dev.idem.store.s3.internal.client.ObjectsPage;
import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.internal.client.S3Client.Condition;
import dev.idem.store.s3.internal.client.S3Client.ObjectBytes;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The pipelines' retirement marks of an {@link S3ObjectStore} ({@link S3ObjectStore#readRetirement},
 * {@link S3ObjectStore#raiseRetirement}), written create-only so that the mark can only move forward on
 * every server idem supports, including those whose {@code If-Match} is not atomic (S3Proxy, some MinIO
 * and Ceph releases).
 *
 * <h2>Layout</h2>
 *
 * One object per mark, {@code _idem/retired/PIPELINE/WINDOW_START} (20 digits, so keys list in window
 * order) holding a {@link Retirement} document; the mark of the pipeline is the one with the highest
 * window start. A raise removes the lower ones, so the prefix holds one object in the steady state (two
 * while a raise runs).
 *
 * <h2>Read</h2>
 *
 * List the pipeline's prefix (ListObjectsV2, every page, a repeated continuation token is an error), GET
 * the highest. A 404 there means a concurrent raise created a higher one and removed this one: list
 * again, at most {@value #ATTEMPTS} times.
 *
 * <h2>Raise</h2>
 *
 * <ol>
 *   <li>Read as above. A mark at or above the proposed window start is kept and returned; nothing is
 *       written.
 *   <li>PUT the proposed document at its own key with {@code If-None-Match: *}, which S3 applies
 *       atomically (the publish relies on the same). A 412 means a run proposed the same window start
 *       first; that one stays.
 *   <li>DELETE the lower marks the listing found. The set's highest only grows (nothing at or above a
 *       present mark is ever deleted), so two gc runs cannot move it back whatever the interleaving.
 * </ol>
 *
 * <h2>Failure states</h2>
 *
 * Each PUT is atomic: a mark object is whole or absent. A failure before the PUT leaves the old mark; after
 * it, the new mark is in force and some lower objects may be left, which readers ignore and the next
 * raise removes. On a versioned bucket each raise leaves the replaced mark as a noncurrent version and a
 * delete marker (a few hundred bytes per gc run that retired something); a lifecycle rule for
 * noncurrent versions under {@code _idem/} may expire them.
 */
final class RetirementObjects {
  static final int ATTEMPTS = 20;
  private static final int MAX_DOCUMENT = 8 * 1024;

  private final S3Client client;
  private final String bucket;
  private final KeyLayout layout;
  private final int pageSize;

  RetirementObjects(S3Client client, String bucket, KeyLayout layout, int pageSize) {
    this.client = client;
    this.bucket = bucket;
    this.layout = layout;
    this.pageSize = pageSize;
  }

  /** The highest mark and the window starts of every mark object listed. */
  private record Found(Retirement mark, List<Long> windowStarts) {}

  Optional<Retirement> read(String pipeline) throws IOException {
    return Optional.ofNullable(find(pipeline).mark());
  }

  Retirement raise(Retirement proposed) throws IOException {
    Objects.requireNonNull(proposed, "proposed");
    String pipeline = proposed.pipeline();
    Found found = find(pipeline);
    if (found.mark() != null && found.mark().windowStart() >= proposed.windowStart()) {
      return found.mark();
    }
    String key = layout.retiredEntry(pipeline, proposed.windowStart());
    try {
      client.put(bucket, key, RequestBody.ofBytes(proposed.toBytes()), Condition.ifNoneMatch(), Map.of());
    } catch (IOException e) {
      if (!PointerProtocol.conditionalConflict(e)) {
        throw e;
      }
      // 409: another run is creating the same key right now; the check below sees whose landed.
    }
    // WRITTEN, or 412: a mark for this very window start exists (another run's, or this call's own
    // retried write); either way the set's highest is now at least the proposed window start.
    for (long lower : found.windowStarts()) {
      if (lower < proposed.windowStart()) {
        client.delete(bucket, layout.retiredEntry(pipeline, lower));
      }
    }
    Retirement now = find(pipeline).mark();
    if (now == null || now.windowStart() < proposed.windowStart()) {
      throw new IOException("wrote the retirement mark of " + pipeline + " at s3://" + bucket + "/" + key
          + " but a listing does not show it (window_start=" + proposed.windowStart() + "); running gc again"
          + " retries");
    }
    return now;
  }

  private Found find(String pipeline) throws IOException {
    String retiredPrefix = layout.retiredPrefix(pipeline);
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      List<Long> starts = new ArrayList<>();
      String token = null;
      ListingGuard<String> guard = new ListingGuard<>("ListObjectsV2 of s3://" + bucket + "/" + retiredPrefix);
      ObjectsPage page;
      do {
        page = client.listObjects(bucket, retiredPrefix, null, token, pageSize);
        for (ObjectSummary o : page.objects()) {
          long start = KeyLayout.parseRetired(o.key(), retiredPrefix);
          if (start >= 0) {
            starts.add(start);
          }
        }
        token = guard.next(page.nextContinuationToken());
      } while (page.truncated());
      if (starts.isEmpty()) {
        return new Found(null, starts);
      }
      long highest = starts.stream().mapToLong(Long::longValue).max().orElseThrow();
      String key = layout.retiredEntry(pipeline, highest);
      Optional<ObjectBytes> got = client.getBytes(bucket, key, MAX_DOCUMENT);
      if (got.isPresent()) {
        Retirement mark = Retirement.parse(got.get().bytes(), "s3://" + bucket + "/" + key, pipeline);
        if (mark.windowStart() != highest) {
          throw new Retirement.MalformedRetirementException("s3://" + bucket + "/" + key,
              "names window_start=" + mark.windowStart() + ", not the one in its key");
        }
        return new Found(mark, starts);
      }
      // Removed by a concurrent raise after the listing: a higher mark exists now; list again.
    }
    throw new IOException("could not read the retirement mark of " + pipeline + " at s3://" + bucket + "/"
        + retiredPrefix + ": the highest listed mark vanished on each of " + ATTEMPTS + " attempts");
  }
}
