package dev.idem.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses byte sizes as people type them: a whole number of bytes ({@code 0}, {@code 4096}) or with a
 * binary unit, {@code K}, {@code M}, {@code G}, {@code T}, alone or as {@code KiB}, {@code MiB}, ...
 * (any case; powers of 1024, as {@code df -h} shows them): {@code 16M}, {@code 512KiB}, {@code 1G}.
 */
public final class Sizes implements ITypeConverter<Long> {
  private static final Pattern SIZE = Pattern.compile("(\\d{1,15})(?:([kmgt])(?:ib)?)?");

  @Override
  public Long convert(String value) {
    return parse(value);
  }

  /** @throws TypeConversionException with a one-line reason */
  public static long parse(String value) {
    Matcher m = SIZE.matcher(value == null ? "" : value.strip().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new TypeConversionException("'" + value + "' is not a size (use e.g. 0, 4096, 512K, 16MiB, 1G)");
    }
    long n = Long.parseLong(m.group(1));
    int shift = m.group(2) == null ? 0 : 10 * ("kmgt".indexOf(m.group(2)) + 1);
    if (shift > 0 && n > Long.MAX_VALUE >> shift) {
      throw new TypeConversionException("size '" + value + "' is too large");
    }
    return n << shift;
  }
}
