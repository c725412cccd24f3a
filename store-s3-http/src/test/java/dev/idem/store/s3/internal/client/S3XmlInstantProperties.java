package dev.idem.store.s3.internal.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.StringLength;

/**
 * The listing's fast reader of S3 times ({@link S3Xml#utcInstant}) reads every time S3 writes exactly
 * as {@link Instant#parse} does, and declines (so {@link Instant#parse} decides) anything it is not
 * sure of.
 */
class S3XmlInstantProperties {

  @Property(tries = 2000)
  void readsWhatInstantParseReads(@ForAll @LongRange(min = -62_000_000_000L, max = 253_000_000_000L) long second,
      @ForAll @IntRange(min = 0, max = 999_999_999) int nanos, @ForAll @IntRange(min = 0, max = 9) int digits) {
    String full = Instant.ofEpochSecond(second, 0).toString(); // yyyy-MM-ddTHH:mm:ssZ for these years
    String fraction = digits == 0 ? "" : "." + String.format("%09d", nanos).substring(0, digits);
    String s = full.substring(0, full.length() - 1) + fraction + "Z";
    Instant fast = S3Xml.utcInstant(s);
    assertNotNull(fast, s);
    assertEquals(Instant.parse(s), fast, s);
  }

  @Property(tries = 2000)
  void neverDisagreesWithInstantParse(@ForAll @StringLength(min = 18, max = 31) String noise,
      @ForAll @IntRange(min = 0, max = 30) int at, @ForAll @LongRange(min = 0, max = 4_102_444_800L) long second) {
    // Mostly valid-looking times with one character replaced, so the checks are reached.
    String base = Instant.ofEpochSecond(second, 123_000_000).toString();
    int i = Math.min(at, base.length() - 1);
    for (String s : new String[] {noise, base.substring(0, i) + noise.charAt(0) + base.substring(i + 1)}) {
      Instant fast = S3Xml.utcInstant(s);
      Instant slow;
      try {
        slow = Instant.parse(s);
      } catch (DateTimeParseException e) {
        slow = null;
      }
      if (slow == null) {
        assertNull(fast, s);
      } else if (fast != null) {
        assertEquals(slow, fast, s);
      }
    }
  }
}
