package dev.idem.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link Deadline} on a fake ticker: what is left, pausing, extending and how it is named. */
class DeadlineTest {
  private final AtomicLong now = new AtomicLong(5_000_000_000L);

  private void advance(Duration d) {
    now.addAndGet(d.toNanos());
  }

  @Test
  void left_timePasses_countsDownAndPassesAtTheLimit() {
    Deadline d = Deadline.after(Duration.ofSeconds(10), "--max-time", now::get);
    advance(Duration.ofSeconds(4));
    assertEquals(Duration.ofSeconds(6), d.left());
    assertFalse(d.passed());
    advance(Duration.ofSeconds(6));
    assertTrue(d.passed());
    advance(Duration.ofSeconds(1));
    assertEquals(Duration.ZERO, d.left(), "never negative");
    assertEquals(-1_000_000_000L, d.nanosLeft());
  }

  @Test
  void cap_shorterOrLonger_theShorterOfWantedAndLeft() {
    Deadline d = Deadline.after(Duration.ofSeconds(10), null, now::get);
    assertEquals(Duration.ofSeconds(3), d.cap(Duration.ofSeconds(3)));
    assertEquals(Duration.ofSeconds(10), d.cap(Duration.ofMinutes(1)));
    advance(Duration.ofSeconds(20));
    assertEquals(Duration.ZERO, d.cap(Duration.ofMinutes(1)));
  }

  @Test
  void pause_timeSpentWhilePaused_doesNotCount() {
    Deadline d = Deadline.after(Duration.ofSeconds(10), "--max-time", now::get);
    advance(Duration.ofSeconds(2));
    d.pause();
    d.pause();
    advance(Duration.ofHours(1));
    assertEquals(Duration.ofSeconds(8), d.left(), "frozen while paused");
    d.resume();
    d.resume();
    advance(Duration.ofSeconds(3));
    assertEquals(Duration.ofSeconds(5), d.left());
  }

  @Test
  void extend_allowance_movesTheEndAndIsNamed() {
    Deadline d = Deadline.after(Duration.ofMinutes(2), "--max-time", now::get);
    d.extend(Duration.ofSeconds(90));
    advance(Duration.ofMinutes(3));
    assertEquals(Duration.ofSeconds(30), d.left());
    assertEquals("the 3m30s deadline (--max-time)", d.describe());
    assertThrows(IllegalArgumentException.class, () -> d.extend(Duration.ofSeconds(-1)));
  }

  @Test
  void after_limitBeyondACentury_reachesACenturyWithoutOverflow() {
    Deadline d = Deadline.after(Duration.ofDays(999_999_999_999L), "--max-time", now::get);
    d.extend(Duration.ofDays(999_999_999_999L));
    assertFalse(d.passed());
    assertTrue(d.left().compareTo(Duration.ofDays(36_600)) < 0, d.toString());
  }

  @Test
  void after_negativeLimit_refused() {
    assertThrows(IllegalArgumentException.class, () -> Deadline.after(Duration.ofSeconds(-1), null, now::get));
    assertTrue(Deadline.after(Duration.ZERO, null, now::get).passed(), "zero: passed at once");
  }

  @Test
  void format_durations_asPeopleWriteThem() {
    assertEquals("0s", Deadline.format(Duration.ZERO));
    assertEquals("250ms", Deadline.format(Duration.ofMillis(250)));
    assertEquals("1500ms", Deadline.format(Duration.ofMillis(1500)));
    assertEquals("45s", Deadline.format(Duration.ofSeconds(45)));
    assertEquals("2m", Deadline.format(Duration.ofMinutes(2)));
    assertEquals("1h2m3s", Deadline.format(Duration.ofSeconds(3723)));
    assertEquals("1h", Deadline.format(Duration.ofHours(1)));
    assertEquals("1m", Deadline.format(Duration.ofSeconds(60)));
    assertEquals("1h1m", Deadline.format(Duration.ofSeconds(3660)));
    assertEquals("the 30s deadline", Deadline.after(Duration.ofSeconds(30), null, now::get).describe());
  }

  @Test
  void format_fractionOfASecond_inMillisecondsUpToAMillionSeconds() {
    assertEquals("999999500ms", Deadline.format(Duration.ofSeconds(999_999, 500_000_000)));
    assertEquals("277h46m40s", Deadline.format(Duration.ofSeconds(1_000_000, 500_000_000)));
  }

  @Test
  void deadlineExceeded_namesTheDeadlineTheAttemptsAndWhatTheLastMet() {
    Deadline d = Deadline.after(Duration.ofSeconds(10), "--max-time", now::get);
    IOException busy = new IOException("503 Slow Down");

    DeadlineExceededException e = new DeadlineExceededException("PUT p/latest: " + d.describe() + " ran out", 3, busy, d);

    assertSame(busy, e.lastFailure());
    assertSame(busy, e.getCause(), "a caller's stack trace shows what the last attempt met");
    assertEquals(3, e.attempts());
    assertSame(d, e.deadline());
    assertEquals(0, new DeadlineExceededException("no time left", 0, null, null).attempts());
  }
}
