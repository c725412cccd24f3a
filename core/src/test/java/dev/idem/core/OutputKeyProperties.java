package dev.idem.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link OutputKey#looksLikeKey} answers yes exactly for the keys {@link OutputKey#parse} reads, over
 * window starts of every length, the 19-digit ones around {@code Long.MAX_VALUE} above all: a listed key
 * that is not idem's is legacy to the scan, range planning and gc, never an error that stops them.
 */
class OutputKeyProperties {
  private static final String DIGEST = "ab".repeat(32);
  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  @Provide
  Arbitrary<String> windowStarts() {
    Arbitrary<String> anyDigits = Arbitraries.strings().withCharRange('0', '9').ofMinLength(1).ofMaxLength(21);
    Arbitrary<String> nineteen = Arbitraries.strings().withCharRange('0', '9').ofLength(19);
    Arbitrary<String> nearMax = Arbitraries.longs().between(-1000, 1000)
        .map(d -> LONG_MAX.add(BigInteger.valueOf(d)).toString());
    Arbitrary<String> longs = Arbitraries.longs().greaterOrEqual(0).map(String::valueOf);
    return Arbitraries.oneOf(anyDigits, nineteen, nearMax, longs);
  }

  @Property(tries = 2000)
  void looksLikeKey_exactlyWhenParseReadsIt(@ForAll("windowStarts") String windowStart) {
    String key = "orders/" + windowStart + "/state-" + DIGEST;
    boolean fits = !windowStart.startsWith("0") || windowStart.equals("0");
    fits &= new BigInteger(windowStart).compareTo(LONG_MAX) <= 0;
    assertEquals(fits, OutputKey.looksLikeKey(key), key);
    if (fits) {
      assertEquals(key, OutputKey.parse(key).toString());
    } else {
      assertThrows(IllegalArgumentException.class, () -> OutputKey.parse(key));
    }
  }
}
