package dev.idem.core.scan;

import java.util.List;
import java.util.Objects;

/**
 * One position (contract G2: a pipeline's window and schema) that holds more than one key: the
 * signature of keying drift, two builds that declared different inputs for one window without bumping
 * the schema, so each published its own key and readers get whichever advanced the pointer first.
 *
 * <p>Stores record each key's schema with its publish ({@link dev.idem.core.store.KeyHistory#schema()}),
 * so a window where an old and a new build overlapped across a {@code --schema} bump holds one key per
 * schema and is not drift. When a key of the window has no recorded schema (written by an older idem or
 * by another tool, or its record was lost), it could share a position with any other key of the window,
 * so the whole window is judged as one position and {@link #schema} is {@code null}: unknown schemas
 * may raise a drift that is a schema bump's overlap, never hide one.
 *
 * @param pipeline the pipeline
 * @param windowStart the window start, epoch seconds
 * @param schema the position's schema version, or {@code null} when a key of the window has none
 *     recorded and the window was judged whole
 * @param keys the position's keys in store order, at least two (for a window judged whole, all its keys)
 */
public record WindowDrift(String pipeline, long windowStart, Integer schema, List<String> keys) {
  public WindowDrift {
    Objects.requireNonNull(pipeline, "pipeline");
    keys = List.copyOf(keys);
    if (keys.size() < 2) {
      throw new IllegalArgumentException("a position drifts only with two or more keys, had " + keys);
    }
  }

  /** Whether the schema of a key of this window was unknown, so the window was judged whole. */
  public boolean schemaUnknown() {
    return schema == null;
  }
}
