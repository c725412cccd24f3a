package dev.idem.core.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The verdict shapes the scan reports: a verdict made without lives counts one life when the key was
 * written at all, and one divergent life when it held more than one content; a drifted window says
 * whether its schema was unknown; a schema overlap holds one key per schema.
 */
class VerdictShapesTest {
  @Test
  void verdictWithoutLives_livesFromWritesAndPayloads() {
    KeyVerdict never = new KeyVerdict("p/60/state-a", 0, 0, Basis.SHA256, 0, List.of());
    assertEquals(0, never.lives());
    assertEquals(0, never.divergentLives());
    KeyVerdict once = new KeyVerdict("p/60/state-a", 1, 1, Basis.SHA256, 0, List.of());
    assertEquals(1, once.lives());
    assertEquals(0, once.divergentLives());
    KeyVerdict two = new KeyVerdict("p/60/state-a", 2, 2, Basis.SHA256, 0, List.of());
    assertEquals(1, two.lives());
    assertEquals(1, two.divergentLives());
    assertFalse(two.reborn());
  }

  @Test
  void windowDrift_schemaUnknownOnlyWithoutASchema() {
    assertTrue(new WindowDrift("p", 60, null, List.of("a", "b")).schemaUnknown());
    assertFalse(new WindowDrift("p", 60, 2, List.of("a", "b")).schemaUnknown());
    assertEquals(List.of(), new WindowDrift("p", 60, 2, List.of("a", "b")).unplaced());
  }

  @Test
  void schemaOverlap_oneKeyPerSchemaOnly() {
    assertEquals(List.of(1, 2), new SchemaOverlap("p", 60, List.of(1, 2), List.of("a", "b")).schemas());
    assertThrows(IllegalArgumentException.class, () -> new SchemaOverlap("p", 60, List.of(1, 1), List.of("a", "b")));
    assertThrows(IllegalArgumentException.class, () -> new SchemaOverlap("p", 60, List.of(1), List.of("a")));
    assertThrows(IllegalArgumentException.class, () -> new SchemaOverlap("p", 60, List.of(1, 2), List.of("a")));
  }
}
