package dev.idem.store.s3;

import dev.idem.core.store.KeyHistory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Future;

/**
 * Which keys of a window the history walk reads the recorded schema of ({@code idem-schema}, a HEAD
 * each: a listing carries no metadata), so that judging keying drift costs a bounded number of requests
 * per window the scan reports, never one per key.
 *
 * <p>The scan needs a key's schema only in a window of more than one key ({@code
 * dev.idem.core.scan.DivergenceScan}'s drift rule), and there only to tell a schema bump's overlap (one
 * key per schema) from drift. So in a window of several keys the walk reads the schema of its first two
 * keys, and of the third only when the first two do not share one (when they do, the window is drift
 * whatever the rest hold); no other key's. The keys not read count as of unknown schema, which can raise
 * a drift where four schemas overlap in one window, never hide one. A window of one key costs nothing, a
 * window of a thousand partitions of one schema two reads, a bump's overlap two. Every window of more
 * than one key is reported (drift, or a schema overlap), so the reads stay within {@link #PER_WINDOW} per
 * window reported.
 *
 * <p>The decision for a key depends only on which keys came before it in its window and on the schemas
 * of the first two, never on timing: a key resolved in the background while earlier ones are still being
 * read waits for them ({@link Read#wanted}), so the verdicts are those of a walk that reads one key at a
 * time.
 *
 * <p>Why not make the schema visible in listings instead (a small create-only record under {@code _idem/}
 * per publish, listed by prefix): that is one more PUT per publish, paid on every run of every pipeline
 * (a request of S3's dearer class, and one more write that can fail), to save requests only in windows of
 * more than one key, which the steady state does not have, and only for objects written after the change.
 * Reads at scan time are paid only where there is something to report.
 *
 * <p>Not thread-safe: one per walk, fed in key order.
 */
final class SchemaReads {
  /**
   * Schema reads a window may cost: the two keys of a bump's overlap, and a third, which proves or
   * refutes drift among three when the first two differ.
   */
  static final int PER_WINDOW = 3;

  /** Whether one key's schema is read: decided at once, or from the schemas of its window's first two keys. */
  static final class Read {
    static final Read NO = new Read(null);

    private final List<Future<KeyHistory>> firstTwo;
    private List<Future<KeyHistory>> sink;

    private Read(List<Future<KeyHistory>> firstTwo) {
      this.firstTwo = firstTwo;
    }

    /** Whether the schema may be read: {@link #wanted} can be true. */
    boolean maybe() {
      return this != NO;
    }

    /**
     * Whether the schema is read: for the third key of a window, once the first two are resolved (waiting
     * for them), unless they share a schema.
     */
    boolean wanted() throws IOException {
      if (firstTwo == null || firstTwo.size() < 2) {
        return maybe();
      }
      Integer a = Futures.join(firstTwo.get(0)).schema();
      Integer b = Futures.join(firstTwo.get(1)).schema();
      return a == null || !a.equals(b);
    }

    /** The key's history, as it will be resolved: the window's first two keys decide for the third. */
    void resolvedBy(Future<KeyHistory> history) {
      if (sink != null) {
        sink.add(history);
      }
    }
  }

  private String window;
  private int position;
  private final List<Future<KeyHistory>> firstTwo = new ArrayList<>(2);

  /**
   * How the schema of the next key is read: {@code window} is its {@code pipeline/window_start} ({@code
   * null} for a key outside idem's layout), {@code sharesWindow} whether a neighbour in the listing is in
   * the same window, {@code content} whether the key holds anything but delete markers (a key of delete
   * markers only is not in its window for the scan). The caller hands the key's history to {@link
   * Read#resolvedBy}.
   */
  Read next(String window, boolean sharesWindow, boolean content) {
    if (!Objects.equals(window, this.window)) {
      this.window = window;
      position = 0;
      firstTwo.clear();
    }
    if (window == null || !content || !sharesWindow) {
      return Read.NO; // alone in its window (the steady state): nothing to track
    }
    int at = position++;
    if (at >= PER_WINDOW) {
      return Read.NO;
    }
    Read read = new Read(at < 2 ? null : List.copyOf(firstTwo));
    if (at < 2) {
      read.sink = firstTwo;
    }
    return read;
  }
}
