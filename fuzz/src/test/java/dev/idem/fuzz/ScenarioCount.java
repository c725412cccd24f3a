package dev.idem.fuzz;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * How many scenarios this JVM ran per store, and how long they took, so that every run prints the
 * count it achieved and the rate per store ({@code [fuzz] ...} lines; the budget in fuzz/README.md
 * comes from them). Shrinking re-runs count: they are scenarios run for real.
 */
final class ScenarioCount {
  private static final Map<Backend.Kind, long[]> COUNTS = new EnumMap<>(Backend.Kind.class);

  private ScenarioCount() {}

  /** A progress line every this many scenarios, so that a long session shows where it is. */
  static final int PROGRESS_EVERY = 500;

  static void ran(Backend.Kind kind, long nanos) {
    boolean progress;
    synchronized (ScenarioCount.class) {
      long[] c = COUNTS.computeIfAbsent(kind, k -> new long[2]);
      c[0]++;
      c[1] += nanos;
      progress = c[0] % PROGRESS_EVERY == 0;
    }
    if (progress) {
      print();
    }
  }

  static synchronized long count(Backend.Kind kind) {
    long[] c = COUNTS.get(kind);
    return c == null ? 0 : c[0];
  }

  /** One line: scenarios and scenarios per second per store so far, and the filesystem plus S3 total. */
  static synchronized String summary() {
    StringBuilder b = new StringBuilder("[fuzz] scenarios run in this JVM so far:");
    for (Map.Entry<Backend.Kind, long[]> e : COUNTS.entrySet()) {
      long n = e.getValue()[0];
      double s = e.getValue()[1] / 1e9;
      b.append(' ').append(e.getKey().name().toLowerCase(Locale.ROOT)).append('=').append(n)
          .append(String.format(Locale.ROOT, " (%.0f s, %.2f/s);", s, s == 0 ? 0 : n / s));
    }
    b.append(" filesystem + S3 = ").append(count(Backend.Kind.FS) + count(Backend.Kind.S3));
    return b.toString();
  }

  static void print() {
    System.out.println(java.time.Instant.now() + " " + summary());
  }
}
