package dev.idem.store.s3;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Which keys of a window the history walk reads the recorded schema of ({@code idem-schema}, a HEAD
 * each: a listing carries no metadata), so that judging keying drift costs a bounded number of requests
 * per window the scan reports, never one per key.
 *
 * <p>The scan needs a key's schema only in a window of more than one key ({@code
 * dev.idem.core.scan.DivergenceScan}'s drift rule), and there only to tell a schema bump's overlap (one
 * key per schema) from drift. So the walk reads schemas in key order and stops as soon as the answer is
 * drift whatever the rest hold: two keys share a schema (drift proven at that schema), or a key has
 * none recorded (the window is judged whole). It also stops after {@link #PER_WINDOW} reads; the keys
 * it did not read count as of unknown schema, which can raise a drift that is an overlap of more than
 * {@code PER_WINDOW} schemas, never hide one. A window of one key costs nothing, a window of partitions
 * of one schema two reads however many it holds, a bump's overlap of two schemas two. Every window of
 * more than one key is reported (drift, or a schema overlap), so the reads stay within {@code PER_WINDOW}
 * per window reported.
 *
 * <p>Why not make the schema visible in listings instead (a small create-only record under {@code _idem/}
 * per publish, listed by prefix): that is one more PUT per publish, paid on every run of every pipeline
 * (PUTs are the dearest requests S3 bills, and a publish's latency and failure modes would grow), to save
 * requests only in windows of more than one key, which the steady state does not have, and only for
 * objects written after the change. Reads at scan time are paid only where there is something to report.
 *
 * <p>Not thread-safe: one per walk, fed in key order.
 */
final class SchemaReads {
  /**
   * Schema reads a window may cost: the two keys of a bump's overlap and one more, which proves or
   * refutes drift among three.
   */
  static final int PER_WINDOW = 3;

  private String window;
  private final List<Integer> known = new ArrayList<>(PER_WINDOW);
  private int reads;
  private boolean settled;

  /**
   * Whether the schema of the next key, in {@code window} ({@code pipeline/window_start} of an idem key,
   * else {@code null}), should be read; {@code sharesWindow} says whether a neighbour in the listing is in
   * the same window.
   */
  boolean wanted(String window, boolean sharesWindow) {
    enter(window);
    return window != null && sharesWindow && !settled;
  }

  /**
   * Records what the key's entries said of its schema ({@code null}: none), {@code read} when it was read
   * because {@link #wanted} asked for it (a key HEADed for its SHA-256s tells its schema for free).
   */
  void learned(String window, Integer schema, boolean read) {
    enter(window);
    if (window == null) {
      return;
    }
    if (read) {
      reads++;
    }
    if (schema != null) {
      settled |= known.contains(schema);
      known.add(schema);
    } else if (read) {
      settled = true; // no schema recorded: the window is judged whole whatever its other keys hold
    }
    settled |= reads >= PER_WINDOW;
  }

  private void enter(String w) {
    if (!Objects.equals(w, window)) {
      window = w;
      known.clear();
      reads = 0;
      settled = false;
    }
  }
}
