package dev.idem.core.publish;

import dev.idem.core.Window;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Refuses to write for a window that has not closed yet (G5). Exists because the pointer only moves
 * forward: one publish for a window far in the future (a mistyped {@code --at}, a replica whose clock
 * jumped) would put the pointer ahead of every generation that follows, and they would all report
 * NEWER_PRESENT forever.
 *
 * <p>A window is accepted when it ends at or before now plus the allowed clock skew; the skew lets a
 * replica whose clock runs a little ahead of the others still publish the window they agree on.
 * Reading commands (computing a key, fetching an object) do not consult this guard.
 *
 * <p>Stateless apart from its clock; a refusal is an {@link IllegalArgumentException} raised before
 * anything is read or written, so it leaves the store as it was.
 */
public final class ClosedWindowGuard {
  /** The skew allowed unless configured otherwise: generous for NTP-synchronised hosts. */
  public static final Duration DEFAULT_MAX_CLOCK_SKEW = Duration.ofMinutes(5);

  private static final long YEAR_SECONDS = 31_557_600L; // 365.25 days
  private static final long DAY_SECONDS = 86_400L;

  private final Clock clock;
  private final Duration maxClockSkew;

  /**
   * @param maxClockSkew how far a window's end may lie ahead of {@code clock}, {@code >= 0}
   */
  public ClosedWindowGuard(Clock clock, Duration maxClockSkew) {
    this.clock = Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(maxClockSkew, "maxClockSkew");
    if (maxClockSkew.isNegative()) {
      throw new IllegalArgumentException("max clock skew must be >= 0, was " + maxClockSkew);
    }
    this.maxClockSkew = maxClockSkew;
  }

  /** The UTC system clock with {@link #DEFAULT_MAX_CLOCK_SKEW}. */
  public static ClosedWindowGuard systemDefault() {
    return new ClosedWindowGuard(Clock.systemUTC(), DEFAULT_MAX_CLOCK_SKEW);
  }

  public Clock clock() {
    return clock;
  }

  public Duration maxClockSkew() {
    return maxClockSkew;
  }

  /**
   * Passes when {@code window} has closed, give or take the allowed skew.
   *
   * @param action what the caller was about to do, for the message ("publish", "point at")
   * @throws IllegalArgumentException naming the window, how far ahead it ends and the allowed skew
   */
  public void requireClosed(Window window, String action) {
    Instant now = clock.instant();
    Instant end = window.end();
    if (!end.isAfter(now.plus(maxClockSkew))) {
      return;
    }
    throw new IllegalArgumentException("window " + window.start() + "..+" + window.lengthSeconds()
        + "s has not closed yet (ends " + span(Duration.between(now, end)) + " from now; allowed clock skew "
        + compact(maxClockSkew) + "): refusing to " + action + " a future window");
  }

  /** The largest whole unit, so a typo decades ahead reads as years, not as a count of seconds. */
  static String span(Duration d) {
    long s = d.getSeconds();
    if (s >= YEAR_SECONDS) {
      return plural(s / YEAR_SECONDS, "year");
    }
    if (s >= DAY_SECONDS) {
      return plural(s / DAY_SECONDS, "day");
    }
    if (s >= 3600) {
      return plural(s / 3600, "hour");
    }
    if (s >= 60) {
      return plural(s / 60, "minute");
    }
    return plural(s, "second");
  }

  private static String plural(long n, String unit) {
    return n + " " + unit + (n == 1 ? "" : "s");
  }

  /** The CLI's duration spelling (5m, 1h30m, 90s), so the message names the flag's own value. */
  static String compact(Duration d) {
    long s = d.getSeconds();
    if (s == 0) {
      return "0s";
    }
    StringBuilder b = new StringBuilder();
    long[] sizes = {DAY_SECONDS, 3600, 60, 1};
    String[] units = {"d", "h", "m", "s"};
    for (int i = 0; i < sizes.length; i++) {
      if (s >= sizes[i]) {
        b.append(s / sizes[i]).append(units[i]);
        s %= sizes[i];
      }
    }
    return b.toString();
  }
}
