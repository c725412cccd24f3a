package dev.idem.core;

import java.time.Duration;
import java.time.Instant;

/**
 * A closed time window {@code [start, start + length)} in whole epoch seconds.
 *
 * <p>{@link #closedAt} is what makes two replicas that fire seconds apart agree: both ask for "the
 * last window that had fully closed when I started" and get the same answer as long as they start
 * within the same window length. Windows are aligned to multiples of the length, shifted by an
 * optional offset (a 1-hour window with a 15-minute offset runs from :15 to :15).
 *
 * @param startEpochSecond first second of the window, {@code >= 0}
 * @param lengthSeconds window length, {@code > 0}
 */
public record Window(long startEpochSecond, long lengthSeconds) {

  public Window {
    if (startEpochSecond < 0) {
      throw new IllegalArgumentException("window start must be >= 0 epoch seconds, was " + startEpochSecond);
    }
    if (lengthSeconds <= 0) {
      throw new IllegalArgumentException("window length must be positive, was " + lengthSeconds + "s");
    }
    if (startEpochSecond > Long.MAX_VALUE - lengthSeconds) {
      throw new IllegalArgumentException("window end overflows: start " + startEpochSecond + ", length " + lengthSeconds);
    }
  }

  /**
   * The newest window of {@code length} that had closed at {@code at}: its end is the last boundary
   * at or before {@code at}, boundaries being {@code offset + k * length}.
   *
   * @throws IllegalArgumentException when length is not a positive whole number of seconds, offset is
   *     not in {@code [0, length)}, or the window would start before the epoch
   */
  public static Window closedAt(Instant at, Duration length, Duration offset) {
    if (length.isNegative() || length.isZero() || length.getNano() != 0) {
      throw new IllegalArgumentException("window length must be a positive whole number of seconds, was " + length);
    }
    if (offset.isNegative() || offset.getNano() != 0 || offset.compareTo(length) >= 0) {
      throw new IllegalArgumentException(
          "window offset must be whole seconds in [0, length), was " + offset + " for length " + length);
    }
    long len = length.getSeconds();
    long off = offset.getSeconds();
    long end = Math.floorDiv(at.getEpochSecond() - off, len) * len + off;
    long start = end - len;
    if (start < 0) {
      throw new IllegalArgumentException("no window of " + length + " has closed by " + at);
    }
    return new Window(start, len);
  }

  public long endEpochSecond() {
    return startEpochSecond + lengthSeconds;
  }

  public Instant start() {
    return Instant.ofEpochSecond(startEpochSecond);
  }

  public Instant end() {
    return Instant.ofEpochSecond(endEpochSecond());
  }

  /** The window right after this one. */
  public Window next() {
    return new Window(endEpochSecond(), lengthSeconds);
  }

  @Override
  public String toString() {
    return "[" + start() + ", " + end() + ")";
  }
}
