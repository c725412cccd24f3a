package dev.idem.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A retirement mark may retire from window 0 on, never from before it. */
class RetirementBoundsTest {
  @Test
  void windowStart_zeroAllowedNegativeRefused() {
    assertEquals(0, new Retirement("p", 0, Instant.EPOCH, "gc").windowStart());
    assertThrows(IllegalArgumentException.class, () -> new Retirement("p", -1, Instant.EPOCH, "gc"));
  }
}
