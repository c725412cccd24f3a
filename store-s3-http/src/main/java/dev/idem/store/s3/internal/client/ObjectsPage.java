package dev.idem.store.s3.internal.client;

import java.time.Instant;
import java.util.List;

/**
 * One page of ListObjectsV2, keys ascending.
 *
 * @param objects the objects
 * @param truncated whether another page follows
 * @param nextContinuationToken the token for the next page (set when truncated)
 * @param serverTime the server's clock when it answered: the reply's {@code Date} header (whole seconds),
 *     or {@code null} when the reply had none that parses
 */
public record ObjectsPage(List<ObjectSummary> objects, boolean truncated, String nextContinuationToken,
    Instant serverTime) {
  public ObjectsPage {
    objects = List.copyOf(objects);
  }

  /** A page as its body tells it, before the reply's headers are read. */
  ObjectsPage(List<ObjectSummary> objects, boolean truncated, String nextContinuationToken) {
    this(objects, truncated, nextContinuationToken, null);
  }

  /** This page answered at {@code serverTime}. */
  ObjectsPage at(Instant serverTime) {
    return new ObjectsPage(objects, truncated, nextContinuationToken, serverTime);
  }
}
