package dev.idem.cli;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses {@code --at}: an ISO-8601 instant ({@code 2024-09-10T20:27:00Z}), an ISO-8601 date-time
 * with an offset ({@code 2024-09-10T22:27:00+02:00}), or whole epoch seconds ({@code 1726000000}).
 * A local time without an offset is refused: two replicas in different zones would disagree.
 */
public final class Instants implements ITypeConverter<Instant> {

  @Override
  public Instant convert(String value) {
    return parse(value);
  }

  public static Instant parse(String value) {
    if (value == null || value.isEmpty()) {
      throw new TypeConversionException("empty time");
    }
    if (value.matches("\\d{1,12}")) {
      return Instant.ofEpochSecond(Long.parseLong(value));
    }
    try {
      return Instant.parse(value);
    } catch (DateTimeException e) {
      try {
        return OffsetDateTime.parse(value).toInstant();
      } catch (DateTimeException e2) {
        throw new TypeConversionException("'" + value
            + "' is not a time (use ISO-8601 with a zone, e.g. 2024-09-10T20:27:00Z, or epoch seconds)");
      }
    }
  }
}
