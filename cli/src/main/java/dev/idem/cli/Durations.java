package dev.idem.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses durations as people type them: one or more {@code <digits><unit>} parts with units {@code
 * s}, {@code m}, {@code h}, {@code d} ({@code 60s}, {@code 5m}, {@code 1h30m}, {@code 7d}), or
 * ISO-8601 ({@code PT1H}). A bare number is refused: {@code 60} could mean seconds or minutes.
 */
public final class Durations implements ITypeConverter<Duration> {
  private static final Pattern PART = Pattern.compile("(\\d{1,12})([smhd])");
  private static final Pattern WHOLE = Pattern.compile("(?:\\d{1,12}[smhd])+");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  /** @throws TypeConversionException with a one-line reason */
  public static Duration parse(String value) {
    if (value == null || value.isEmpty()) {
      throw new TypeConversionException("empty duration (use e.g. 60s, 5m, 1h30m, 7d)");
    }
    if (value.startsWith("P") || value.startsWith("p")) {
      try {
        Duration d = Duration.parse(value);
        if (d.isNegative()) {
          throw new TypeConversionException("negative duration '" + value + "'");
        }
        return d;
      } catch (DateTimeParseException e) {
        throw new TypeConversionException("'" + value + "' is not an ISO-8601 duration");
      }
    }
    if (!WHOLE.matcher(value).matches()) {
      throw new TypeConversionException("'" + value + "' is not a duration (use e.g. 60s, 5m, 1h30m, 7d)");
    }
    Duration total = Duration.ZERO;
    Matcher m = PART.matcher(value);
    try {
      while (m.find()) {
        long n = Long.parseLong(m.group(1));
        total = total.plus(switch (m.group(2)) {
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          default -> Duration.ofDays(n);
        });
      }
    } catch (ArithmeticException e) {
      throw new TypeConversionException("duration '" + value + "' is too large");
    }
    return total;
  }

  /** Short human form: {@code 90s} → {@code 1m30s}. */
  public static String format(Duration d) {
    long s = d.getSeconds();
    if (s == 0) {
      return d.toMillis() + "ms";
    }
    StringBuilder b = new StringBuilder();
    long days = s / 86400;
    long hours = s % 86400 / 3600;
    long minutes = s % 3600 / 60;
    long secs = s % 60;
    if (days > 0) {
      b.append(days).append('d');
    }
    if (hours > 0) {
      b.append(hours).append('h');
    }
    if (minutes > 0) {
      b.append(minutes).append('m');
    }
    if (secs > 0) {
      b.append(secs).append('s');
    }
    return b.toString();
  }
}
