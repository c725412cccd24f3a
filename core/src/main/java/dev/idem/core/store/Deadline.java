package dev.idem.core.store;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * One overall deadline over a piece of store work (B2): every wait the work makes (a request, its
 * retries and their backoff, a credential fetch, a lock) ends by it, the request in flight included.
 *
 * <p>Why: a timeout per request and a number of attempts bound each wait, not their sum. Six attempts
 * that each wait a minute for a server that accepts connections and never answers take six minutes,
 * whatever a command's own time limit says. A store given a deadline caps each wait at the time left
 * and, with none left, gives up with a {@link DeadlineExceededException} that names this deadline
 * ({@link #describe()}), so the caller learns which wait ran out.
 *
 * <p>Time is read from a monotonic ticker (nanoseconds, as {@link System#nanoTime}; tests pass their
 * own). The deadline can be paused, so that work which is not the store's (the task {@code idem run}
 * runs) does not count against it, and extended, so that moving a large payload gets an allowance for
 * its bytes. A deadline reaches at most a century ahead, however long the limit given. Thread-safe: the
 * end moves only under this object's lock, and every read sees one consistent end.
 */
public final class Deadline {
  /** The longest a deadline reaches, so that nanosecond arithmetic on it cannot overflow: a century. */
  private static final long LONGEST_NANOS = Duration.ofDays(36_525).toNanos();

  private final String name;
  private final LongSupplier ticker;
  /** The limit plus every extension: what {@link #describe()} names. Guarded by {@code this}. */
  private Duration total;
  /** The end, in ticker nanoseconds. Guarded by {@code this}. */
  private long end;
  /** The ticker reading when paused, or {@code null} when running. Guarded by {@code this}. */
  private Long pausedAt;

  private Deadline(Duration limit, String name, LongSupplier ticker) {
    Objects.requireNonNull(limit, "limit");
    if (limit.isNegative()) {
      throw new IllegalArgumentException("a deadline must be >= 0, was " + limit);
    }
    this.name = name;
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.total = limit;
    this.end = ticker.getAsLong() + nanos(limit);
  }

  /** {@code d} in nanoseconds, at most a century. */
  private static long nanos(Duration d) {
    return d.compareTo(Duration.ofNanos(LONGEST_NANOS)) > 0 ? LONGEST_NANOS : d.toNanos();
  }

  /**
   * A deadline {@code limit} from now on {@link System#nanoTime}.
   *
   * @param name what set it, for messages (e.g. {@code --max-time}); {@code null} for nothing
   */
  public static Deadline after(Duration limit, String name) {
    return new Deadline(limit, name, System::nanoTime);
  }

  /** A deadline {@code limit} from now, read from {@code ticker} (nanoseconds, as {@link System#nanoTime}). */
  public static Deadline after(Duration limit, String name, LongSupplier ticker) {
    return new Deadline(limit, name, ticker);
  }

  /** Nanoseconds left: zero or negative once the deadline has passed; frozen while paused. */
  public synchronized long nanosLeft() {
    return end - (pausedAt != null ? pausedAt : ticker.getAsLong());
  }

  /** The time left, never negative. */
  public Duration left() {
    return Duration.ofNanos(Math.max(0, nanosLeft()));
  }

  /** Whether no time is left. */
  public boolean passed() {
    return nanosLeft() <= 0;
  }

  /** {@code wanted}, or the time left when that is shorter (never negative). */
  public Duration cap(Duration wanted) {
    Duration left = left();
    return left.compareTo(wanted) < 0 ? left : wanted;
  }

  /** Stops the clock: until {@link #resume()}, no time is spent. Pausing a paused deadline does nothing. */
  public synchronized void pause() {
    if (pausedAt == null) {
      pausedAt = ticker.getAsLong();
    }
  }

  /** Starts the clock again where {@link #pause()} stopped it. Resuming a running deadline does nothing. */
  public synchronized void resume() {
    if (pausedAt != null) {
      end += ticker.getAsLong() - pausedAt;
      pausedAt = null;
    }
  }

  /** Moves the end {@code more} later (an allowance for work learned of on the way). */
  public synchronized void extend(Duration more) {
    if (more.isNegative()) {
      throw new IllegalArgumentException("an extension must be >= 0, was " + more);
    }
    end += Math.min(nanos(more), LONGEST_NANOS - Math.max(0, nanosLeft()));
    total = total.plus(more);
  }

  /** The limit with every extension, as given (not what is left). */
  public synchronized Duration limit() {
    return total;
  }

  /** {@code the 2m deadline (--max-time)}: the limit with its extensions, and what set it. */
  public String describe() {
    return "the " + format(limit()) + " deadline" + (name == null ? "" : " (" + name + ")");
  }

  @Override
  public String toString() {
    return "Deadline[" + describe() + ", " + format(left()) + " left]";
  }

  /** A duration as people write it: {@code 1h2m3s}, {@code 90s} as {@code 1m30s}, below a second {@code 250ms}. */
  public static String format(Duration d) {
    if (d.getNano() != 0 && d.getSeconds() < 1_000_000) {
      return d.toMillis() + "ms";
    }
    long s = d.getSeconds();
    if (s == 0) {
      return "0s";
    }
    StringBuilder b = new StringBuilder();
    if (s >= 3600) {
      b.append(s / 3600).append('h');
    }
    if (s % 3600 >= 60) {
      b.append(s % 3600 / 60).append('m');
    }
    if (s % 60 != 0) {
      b.append(s % 60).append('s');
    }
    return b.toString();
  }
}
