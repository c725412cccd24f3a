package dev.idem.core.scan;

import java.util.List;
import java.util.Objects;

/**
 * One position (contract G2: a pipeline's window and schema) that holds more than one key. The pointer
 * orders generations by position and names one key per position, so readers of {@code latest} get one
 * of the keys and never the others. Two causes give it: keying drift (two builds declared different
 * inputs for one window without bumping the schema, so each published its own key), and several
 * outputs of one window published under one pipeline (partitions told apart by an input). The key is a
 * hash of the inputs, which are not recorded, so the scan cannot tell the two apart, and reports both:
 * a pipeline that publishes several outputs a window is one pipeline per output to idem.
 *
 * <p>Stores record each key's schema with its publish ({@link dev.idem.core.store.KeyHistory#schema()}),
 * so a window where an old and a new build overlapped across a {@code --schema} bump holds one key per
 * schema and is not drift ({@link SchemaOverlap}). A key whose schema is not known (written by an older
 * idem or by another tool, its record lost, or, on S3, not read because the window's drift was already
 * proven by two other keys) could share a position with any other key of the window. When two keys of
 * known schema already share a position, that position is reported with its schema and the window's
 * keys of unknown schema are listed beside it ({@link #unplaced}); when none do, the whole window is
 * judged as one position and {@link #schema} is {@code null}: unknown schemas may raise a drift that is
 * a schema bump's overlap, never hide one.
 *
 * @param pipeline the pipeline
 * @param windowStart the window start, epoch seconds
 * @param schema the position's schema version, or {@code null} when no two keys of the window are known
 *     to share one and a key's schema is unknown, so the window was judged whole
 * @param keys the position's keys in store order, at least two (for a window judged whole, all its keys)
 * @param unplaced the window's keys whose schema is not known, in store order: they may hold this position
 *     too (for a window judged whole, the keys that made it so)
 */
public record WindowDrift(String pipeline, long windowStart, Integer schema, List<String> keys, List<String> unplaced) {
  public WindowDrift {
    Objects.requireNonNull(pipeline, "pipeline");
    keys = List.copyOf(keys);
    unplaced = List.copyOf(unplaced);
    if (keys.size() < 2) {
      throw new IllegalArgumentException("a position drifts only with two or more keys, had " + keys);
    }
  }

  /** A position whose window holds no key of unknown schema besides its own. */
  public WindowDrift(String pipeline, long windowStart, Integer schema, List<String> keys) {
    this(pipeline, windowStart, schema, keys, List.of());
  }

  /** Whether no two keys of this window were known to share a schema, so the window was judged whole. */
  public boolean schemaUnknown() {
    return schema == null;
  }
}
