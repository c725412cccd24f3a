package dev.idem.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.idem.core.store.Retirement.MalformedRetirementException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A retirement mark's limits: its window from 0 on, who retired it in one short line, a small document. */
class RetirementBoundsTest {
  @Test
  void windowStart_zeroAllowedNegativeRefused() {
    assertEquals(0, new Retirement("p", 0, Instant.EPOCH, "gc").windowStart());
    assertThrows(IllegalArgumentException.class, () -> new Retirement("p", -1, Instant.EPOCH, "gc"));
  }

  @Test
  void retiredBy_upToTheMaximumLength() {
    String longest = "g".repeat(Retirement.MAX_BY_LENGTH);
    assertEquals(longest, new Retirement("p", 0, Instant.EPOCH, longest).retiredBy());
    assertThrows(IllegalArgumentException.class, () -> new Retirement("p", 0, Instant.EPOCH, longest + "g"));
  }

  @Test
  void parse_documentAtTheSizeLimit_judgedByWhatItHolds() {
    assertEquals("malformed retirement record m: truncated (no final newline)", refused("x".repeat(4096)));
    assertEquals("malformed retirement record m: larger than 4096 bytes", refused("x".repeat(4097)));
  }

  @Test
  void parse_lineWithoutAName_refusedNamingTheLine() {
    String good = new String(new Retirement("p", 60, Instant.EPOCH, "gc").toBytes(), StandardCharsets.UTF_8);
    assertEquals("malformed retirement record m: line 3 is not name=value", refused(good.replace("window_start=", "=")));
  }

  private static String refused(String doc) {
    return assertThrows(MalformedRetirementException.class,
        () -> Retirement.parse(doc.getBytes(StandardCharsets.UTF_8), "m")).getMessage();
  }
}
