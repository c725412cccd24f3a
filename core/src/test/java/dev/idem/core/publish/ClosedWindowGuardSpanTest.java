package dev.idem.core.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The refusal of a future window names how far ahead it ends in the largest whole unit, switching
 * unit exactly at one minute, hour, day and year (365.25 days), and the guard reports its skew.
 */
class ClosedWindowGuardSpanTest {
  @Test
  void span_switchesUnitExactlyAtEachBoundary() {
    assertEquals("59 seconds", ClosedWindowGuard.span(Duration.ofSeconds(59)));
    assertEquals("1 minute", ClosedWindowGuard.span(Duration.ofSeconds(60)));
    assertEquals("59 minutes", ClosedWindowGuard.span(Duration.ofSeconds(3599)));
    assertEquals("1 hour", ClosedWindowGuard.span(Duration.ofSeconds(3600)));
    assertEquals("23 hours", ClosedWindowGuard.span(Duration.ofSeconds(86_399)));
    assertEquals("1 day", ClosedWindowGuard.span(Duration.ofSeconds(86_400)));
    assertEquals("365 days", ClosedWindowGuard.span(Duration.ofSeconds(31_557_599)));
    assertEquals("1 year", ClosedWindowGuard.span(Duration.ofSeconds(31_557_600)));
  }

  @Test
  void maxClockSkew_asGiven() {
    assertEquals(Duration.ofSeconds(7), new ClosedWindowGuard(Clock.systemUTC(), Duration.ofSeconds(7)).maxClockSkew());
  }
}
