package dev.idem.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * What {@code idem scan} notes on stderr besides its totals, kept readable in a gate's log whatever the
 * number of keys: one line per kind of note, with how many and the first one met as an example, printed
 * after the scan ({@link #summarize}). With {@code -v} every note is also printed as it is met, one line
 * each ({@link #add}'s detail); {@code --json} has every one anyway, so notes are never lost to brevity.
 *
 * <p>Not thread-safe: the scan reports from one thread.
 */
final class ScanNotes {

  /** The kinds of note, in the order their lines are printed. */
  enum Kind {
    ETAG_DIVERGENT("notes", "divergent key compared by ETag, not SHA-256",
        "divergent keys compared by ETag, not SHA-256",
        "objects idem did not write: an ETag is no content hash for multipart or SSE-KMS objects, so ETags that "
            + "differ may be the same bytes"),
    DRIFT("drift", "window holds several keys of one schema", "windows hold several keys of one schema",
        "keying drift, an input changed without a --schema bump, or several outputs of one window under one "
            + "pipeline; the pointer names one of them"),
    DRIFT_WHOLE("drift", "window of several keys judged whole", "windows of several keys judged whole",
        "a key's schema is unknown (not recorded, or on S3 not read: --fail-on-drift reads them), so it could "
            + "share any key's position"),
    SCHEMA_OVERLAP("notes", "window holds one key per schema", "windows hold one key per schema",
        "the overlap of a --schema bump, not drift"),
    REPUBLISHED("notes", "key republished after gc removed it", "keys republished after gc removed them",
        "each life holds one complete generation; not a failure"),
    CLAIM_HELD("claims", "claim held", "claims held",
        "a replica at work on a key not yet published; advice, never the verdict"),
    CLAIM_STALE("claims", "stale claim", "stale claims",
        "not renewed within --claim-ttl, its writer stopped; 'idem gc' removes it; never the verdict");

    private final String label;
    private final String one;
    private final String many;
    private final String why;

    Kind(String label, String one, String many, String why) {
      this.label = label;
      this.one = one;
      this.many = many;
      this.why = why;
    }
  }

  private static final int KEYS_SHOWN = 2;

  private final PrintWriter err;
  private final boolean verbose;
  private final long[] counts = new long[Kind.values().length];
  private final String[] examples = new String[Kind.values().length];

  /** @param verbose also print every note as it is met */
  ScanNotes(PrintWriter err, boolean verbose) {
    this.err = err;
    this.verbose = verbose;
  }

  /**
   * Counts one note of {@code kind}; the first one's {@code example} is kept for its line. With {@code
   * -v}, prints {@code detail} now.
   */
  void add(Kind kind, String example, Supplier<String> detail) {
    if (counts[kind.ordinal()]++ == 0) {
      examples[kind.ordinal()] = example;
    }
    detail(detail);
  }

  /** With {@code -v}, prints {@code detail}: more about a note already counted. */
  void detail(Supplier<String> detail) {
    if (verbose) {
      err.println(detail.get());
    }
  }

  /** Prints one line per kind noted: the count, what it means, and the first one as an example. */
  void summarize() {
    for (Kind k : Kind.values()) {
      long n = counts[k.ordinal()];
      if (n > 0) {
        err.println("idem scan: " + k.label + ": " + String.format(Locale.ROOT, "%,d", n) + " "
            + (n == 1 ? k.one : k.many) + " (" + k.why + "), e.g. " + examples[k.ordinal()]
            + (n > 1 && !verbose ? "; -v lists every one" : ""));
      }
    }
  }

  /** {@code keys} as an example shows them: the first two, and how many more. */
  static String someKeys(List<String> keys) {
    return String.join(" ", keys.subList(0, Math.min(KEYS_SHOWN, keys.size())))
        + (keys.size() > KEYS_SHOWN ? " (+" + (keys.size() - KEYS_SHOWN) + " more)" : "");
  }
}
