package dev.idem.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** K4: nothing a user types can escape the store root or forge another pipeline's key. */
class NamesTest {

  @ParameterizedTest
  @ValueSource(strings = {"a", "orders", "border-state", "p.v2", "x_y", "0", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
  void requirePipeline_valid_accepted(String name) {
    assertEquals(name, Names.requirePipeline(name));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", ".", "..", "../etc", "a/b", "/abs", "A", "Orders", "_idem", "-x", ".x",
      "a b", "a\nb", "a\\b", "é", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "a\u0000"})
  void requirePipeline_invalid_rejectedWithRule(String name) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Names.requirePipeline(name));
    assertTrue(e.getMessage().startsWith("pipeline must be 1-64 characters"), e.getMessage());
    assertFalse(e.getMessage().contains("\n"), "one-line error");
  }

  @ParameterizedTest
  @ValueSource(strings = {"a/b", "p/1/state-x", "legacy/path with space.csv", "a.b/c"})
  void requireSafeKey_valid_accepted(String key) {
    assertEquals(key, Names.requireSafeKey(key));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "/abs", "a/", "a//b", "../x", "a/../b", "a/./b", "..", ".", "a\\b", "a\u0001b"})
  void requireSafeKey_escaping_rejected(String key) {
    assertThrows(IllegalArgumentException.class, () -> Names.requireSafeKey(key));
  }

  @ParameterizedTest
  @ValueSource(strings = {"host-a:4242:k3j9", "pod-7f9c@node", "w1", "A.b+c"})
  void requireWriterId_valid_accepted(String w) {
    assertEquals(w, Names.requireWriterId(w));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " x", "x y", "x\ny", ":x", "x\ty"})
  void requireWriterId_invalid_rejected(String w) {
    assertThrows(IllegalArgumentException.class, () -> Names.requireWriterId(w));
  }

  @ParameterizedTest
  @ValueSource(strings = {"a/b", "../x"})
  void outputKey_pipelineWithSlash_cannotForgeKey(String pipeline) {
    assertThrows(IllegalArgumentException.class, () -> RunSpec.of(pipeline, new Window(0, 60), 1));
  }
}
