package dev.idem.core.scan;

import dev.idem.core.Names;
import dev.idem.core.OutputKey;
import dev.idem.core.store.HistoryQuery;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PublishHistory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The newest generation of one schema version of a pipeline: what a reader that understands only that
 * format follows while a deploy moves the pointer between schemas.
 *
 * <p>Why: the pointer orders generations by position {@code (window_start, schema_version)} (G2), so
 * during an overlap it moves to schema 4's generation of window N, then to schema 3's of window N+1
 * (a later window), then to schema 4's of N+1. A reader of schema 3 that follows the pointer meets
 * schema 4 in between; this finds the newest generation of schema 3 instead.
 *
 * <p>Guarantees: the generation found holds an object now (a key retention deleted is passed over) and
 * lies at or behind the pointer's position, so a generation an operator rewound the pointer away from,
 * or one whose advance never landed, is never handed to a reader, as the pointer itself never hands it.
 * No pointer: nothing. Read-only.
 *
 * <p>Cost: one walk of the pipeline's history (one listing on S3, bounded by {@code minWindowStart}).
 * Keys whose history does not carry their schema (on S3, a window of one key) are remembered from the
 * last key known to be of the schema on, and asked for their schema ({@link PublishHistory#schemaOf}, one
 * HEAD each on S3) newest first until one is of it: in the steady state of one schema that is one
 * request; after the schema stopped being written it is one per window since.
 *
 * <p>A store without {@link PublishHistory} records no schema to find a generation by: refused ({@link
 * dev.idem.core.store.MissingCapabilityException}), never answered with a generation of another schema.
 */
public final class LatestOfSchema {
  private LatestOfSchema() {}

  /**
   * The key of the newest generation of {@code schema} of {@code pipeline} at or behind its pointer,
   * among windows starting at or after {@code minWindowStart}; empty when there is none.
   */
  public static Optional<String> find(ObjectStore store, String pipeline, int schema, long minWindowStart)
      throws IOException {
    Names.requirePipeline(pipeline);
    PublishHistory history = PublishHistory.of(store, "a generation is found by the schema its history recorded");
    Optional<Pointer> pointer = store.readPointer(pipeline).map(p -> p.pointer());
    if (pointer.isEmpty()) {
      return Optional.empty();
    }
    // At or behind the pointer; after a generation found gone (deleted since it was listed), behind it.
    Pointer.Position limit = pointer.get().position();
    boolean inclusive = true;
    while (true) {
      Found f = newest(history, pipeline, schema, minWindowStart, limit, inclusive);
      if (f == null || store.exists(f.key())) {
        return f == null ? Optional.empty() : Optional.of(f.key());
      }
      limit = f.position();
      inclusive = false;
    }
  }

  private record Found(String key, Pointer.Position position) {}

  /** The newest listed key of {@code schema} at or before ({@code inclusive}) or before {@code limit}. */
  private static Found newest(PublishHistory history, String pipeline, int schema, long minWindowStart,
      Pointer.Position limit, boolean inclusive) throws IOException {
    // Oldest first: the last key known to be of the schema, then every key after it whose schema is unknown.
    List<String> candidates = new ArrayList<>();
    List<Integer> known = new ArrayList<>();
    history.history(HistoryQuery.windows(pipeline, minWindowStart), h -> {
      if (!OutputKey.looksLikeKey(h.key()) || !h.holdsObject()) {
        return true;
      }
      long window = OutputKey.parse(h.key()).windowStartEpochSecond();
      Integer s = h.schema();
      if (window > limit.windowStart() || (s != null && (s != schema || !within(window, s, limit, inclusive)))) {
        return true;
      }
      if (s != null) {
        candidates.clear();
        known.clear();
      }
      candidates.add(h.key());
      known.add(s);
      return true;
    });
    for (int i = candidates.size() - 1; i >= 0; i--) {
      String key = candidates.get(i);
      long window = OutputKey.parse(key).windowStartEpochSecond();
      Integer s = known.get(i) != null ? known.get(i) : history.schemaOf(key).orElse(null);
      if (s != null && s == schema && within(window, s, limit, inclusive)) {
        return new Found(key, new Pointer.Position(window, s));
      }
    }
    return null;
  }

  private static boolean within(long window, int schema, Pointer.Position limit, boolean inclusive) {
    int c = new Pointer.Position(window, schema).compareTo(limit);
    return inclusive ? c <= 0 : c < 0;
  }
}
