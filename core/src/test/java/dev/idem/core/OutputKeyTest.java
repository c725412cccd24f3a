package dev.idem.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link OutputKey}: every public way in validates; equality is by all three parts. */
class OutputKeyTest {
  private static final String HEX = "0123456789abcdef".repeat(4);

  @Test
  void of_validParts_makeTheKeyString() {
    OutputKey k = OutputKey.of("border-state", 1_726_000_000L, HEX);
    assertEquals("border-state", k.pipeline());
    assertEquals(1_726_000_000L, k.windowStartEpochSecond());
    assertEquals(HEX, k.digestHex());
    assertEquals("border-state/1726000000/state-" + HEX, k.toString());
  }

  @Test
  void of_invalidParts_refusedWithTheRule() {
    IllegalArgumentException pipeline =
        assertThrows(IllegalArgumentException.class, () -> OutputKey.of("Border", 0, HEX));
    assertTrue(pipeline.getMessage().startsWith("pipeline must be"), pipeline.getMessage());
    IllegalArgumentException start = assertThrows(IllegalArgumentException.class, () -> OutputKey.of("p", -1, HEX));
    assertEquals("window start must be >= 0, was -1", start.getMessage());
    for (String bad : new String[] {null, HEX.substring(1), HEX + "0", HEX.toUpperCase(), HEX.replace('f', 'g')}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OutputKey.of("p", 0, bad));
      assertTrue(e.getMessage().startsWith("digest must be 64 lowercase hex digits"), e.getMessage());
    }
    assertEquals(0, OutputKey.of("p", 0, HEX).windowStartEpochSecond());
  }

  @Test
  void equality_isByEveryPart() {
    OutputKey k = OutputKey.of("p", 60, HEX);
    OutputKey same = OutputKey.parse("p/60/state-" + HEX);
    assertEquals(k, same);
    assertEquals(k.hashCode(), same.hashCode());
    assertNotEquals(k, OutputKey.of("q", 60, HEX));
    assertNotEquals(k, OutputKey.of("p", 120, HEX));
    assertNotEquals(k, OutputKey.of("p", 60, HEX.replace('0', '1')));
    assertNotEquals(k, k.toString());
  }

  @Test
  void derivedKey_equalsTheValidatedKeyOfItsParts() {
    OutputKey derived = RunSpec.of("border-state", new Window(1_726_000_000L, 60), 3).outputKey();
    assertEquals(OutputKey.of(derived.pipeline(), derived.windowStartEpochSecond(), derived.digestHex()), derived);
    assertTrue(Sha256.isHex(derived.digestHex()));
  }
}
