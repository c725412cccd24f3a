package dev.idem.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class WindowTest {
  private static final Duration MINUTE = Duration.ofSeconds(60);

  @Test
  void closedAt_midWindow_returnsPreviousWholeWindow() {
    Window w = Window.closedAt(Instant.parse("2024-09-10T20:27:35Z"), MINUTE, Duration.ZERO);
    assertEquals(Instant.parse("2024-09-10T20:26:00Z"), w.start());
    assertEquals(Instant.parse("2024-09-10T20:27:00Z"), w.end());
  }

  @Test
  void closedAt_exactlyOnBoundary_returnsWindowEndingNow() {
    Window w = Window.closedAt(Instant.parse("2024-09-10T20:27:00Z"), MINUTE, Duration.ZERO);
    assertEquals(Instant.parse("2024-09-10T20:27:00Z"), w.end());
  }

  @Test
  void closedAt_twoReplicasSecondsApart_sameWindow() {
    Instant oldReplica = Instant.parse("2024-09-10T20:27:01Z");
    Instant newReplica = Instant.parse("2024-09-10T20:27:58.999Z");
    assertEquals(Window.closedAt(oldReplica, MINUTE, Duration.ZERO), Window.closedAt(newReplica, MINUTE, Duration.ZERO));
  }

  @Test
  void closedAt_withOffset_alignsToOffsetBoundaries() {
    Window w = Window.closedAt(Instant.parse("2024-09-10T21:20:00Z"), Duration.ofHours(1), Duration.ofMinutes(15));
    assertEquals(Instant.parse("2024-09-10T20:15:00Z"), w.start());
    assertEquals(Instant.parse("2024-09-10T21:15:00Z"), w.end());
  }

  @Test
  void closedAt_badArguments_rejected() {
    Instant t = Instant.parse("2024-09-10T21:20:00Z");
    assertThrows(IllegalArgumentException.class, () -> Window.closedAt(t, Duration.ZERO, Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> Window.closedAt(t, Duration.ofMillis(1500), Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> Window.closedAt(t, MINUTE, MINUTE));
    assertThrows(IllegalArgumentException.class, () -> Window.closedAt(t, MINUTE, Duration.ofSeconds(-1)));
    assertThrows(IllegalArgumentException.class, () -> Window.closedAt(Instant.EPOCH, MINUTE, Duration.ZERO));
  }

  @Test
  void constructor_invalid_rejected() {
    assertThrows(IllegalArgumentException.class, () -> new Window(-1, 60));
    assertThrows(IllegalArgumentException.class, () -> new Window(0, 0));
    assertThrows(IllegalArgumentException.class, () -> new Window(Long.MAX_VALUE - 10, 60));
  }

  @Test
  void next_followsImmediately() {
    assertEquals(new Window(120, 60), new Window(60, 60).next());
  }
}
