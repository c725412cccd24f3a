package dev.idem.core.scan;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;

/**
 * A window holding more than one key, one per schema, every schema known: the overlap of a {@code
 * --schema} bump, where the old build and the new one each published their own position while the
 * deploy rolled. Not drift (every position holds one key, and the pointer moves to the higher schema);
 * reported so that a gate's log says the bump happened, and because on S3 learning the schemas took a
 * request per key of the window, which the scan spends only on windows it reports.
 *
 * @param pipeline the pipeline
 * @param windowStart the window start, epoch seconds
 * @param schemas the keys' schemas, in the order of {@code keys}, all different
 * @param keys the window's keys in store order, at least two
 */
public record SchemaOverlap(String pipeline, long windowStart, List<Integer> schemas, List<String> keys) {
  public SchemaOverlap {
    Objects.requireNonNull(pipeline, "pipeline");
    schemas = List.copyOf(schemas);
    keys = List.copyOf(keys);
    if (keys.size() < 2 || schemas.size() != keys.size() || new HashSet<>(schemas).size() != schemas.size()) {
      throw new IllegalArgumentException("an overlap is two or more keys of one schema each, had " + keys + " of "
          + schemas);
    }
  }
}
