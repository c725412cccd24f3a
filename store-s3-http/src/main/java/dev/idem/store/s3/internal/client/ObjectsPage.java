package dev.idem.store.s3.internal.client;

import java.util.List;

/**
 * One page of ListObjectsV2, keys ascending.
 *
 * @param objects the objects
 * @param truncated whether another page follows
 * @param nextContinuationToken the token for the next page (set when truncated)
 */
public record ObjectsPage(List<ObjectSummary> objects, boolean truncated, String nextContinuationToken) {
  public ObjectsPage {
    objects = List.copyOf(objects);
  }
}
