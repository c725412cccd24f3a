package dev.idem.core.publish;

import java.io.IOException;
import java.util.Locale;

/**
 * The store has less room than a publish needs, as far as the store can tell ({@link
 * dev.idem.core.store.ObjectStore#usableSpace()}): fewer free bytes than the publisher's reserve before
 * the task runs ({@link Publisher.Builder#minFree}), or than the result the task produced. Exists so a full
 * disk costs no task run, and a result too large for what is left is refused before any byte of it is
 * written, instead of failing half-way with "No space left on device". Nothing was written; when the
 * task had run, its result is the caller's to keep.
 */
public final class InsufficientSpaceException extends IOException {
  private static final long serialVersionUID = 1L;

  private final long free;
  private final long needed;

  public InsufficientSpaceException(String message, long free, long needed) {
    super(message);
    this.free = free;
    this.needed = needed;
  }

  /** The bytes the store said were free. */
  public long free() {
    return free;
  }

  /** The bytes the publish needed free. */
  public long needed() {
    return needed;
  }

  /** {@code n} bytes as people read them: {@code 512 bytes}, {@code 3.2 MiB}. */
  public static String bytes(long n) {
    if (n < 1024) {
      return n + " bytes";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = n;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }
}
