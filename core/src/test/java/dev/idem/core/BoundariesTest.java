package dev.idem.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.Pointer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Exact limits and the messages that name them: one step inside each limit is accepted, one outside is not. */
class BoundariesTest {
  private static final String HEX = "ab".repeat(32);

  // --- Names ---

  @Test
  void requireSafeKey_exactlyMaxLength_acceptedOneMoreRejected() {
    String k = "a".repeat(Names.MAX_KEY_LENGTH);
    assertEquals(k, Names.requireSafeKey(k));
    assertThrows(IllegalArgumentException.class, () -> Names.requireSafeKey(k + "a"));
  }

  @Test
  void requireInputName_valid_returnsTheName() {
    assertEquals("snapshot-v2", Names.requireInputName("snapshot-v2"));
  }

  @Test
  void requirePipeline_null_messageSaysNull() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Names.requirePipeline(null));
    assertTrue(e.getMessage().endsWith("was null"), e.getMessage());
  }

  @Test
  void requirePipeline_controlCharacters_escapedInMessageSpaceKept() {
    String m = assertThrows(IllegalArgumentException.class, () -> Names.requirePipeline("a\tb\u007f c\u001f")).getMessage();
    assertTrue(m.endsWith("was \"a\\u0009b\\u007f c\\u001f\""), m);
  }

  @Test
  void requirePipeline_longName_quotedUpTo80Characters() {
    String at80 = assertThrows(IllegalArgumentException.class, () -> Names.requirePipeline("Y".repeat(80))).getMessage();
    assertTrue(at80.endsWith("was \"" + "Y".repeat(80) + "\""), at80);
    String at81 = assertThrows(IllegalArgumentException.class, () -> Names.requirePipeline("Y".repeat(81))).getMessage();
    assertTrue(at81.endsWith("was \"" + "Y".repeat(80) + "...\""), at81);
  }

  // --- OutputKey ---

  @Test
  void looksLikeKey_onlyForTheReferenceLayoutWithAValidPipeline() {
    assertTrue(OutputKey.looksLikeKey("orders/60/state-" + HEX));
    assertFalse(OutputKey.looksLikeKey("orders/60/state-" + HEX.substring(1)));
    assertFalse(OutputKey.looksLikeKey("Orders/60/state-" + HEX), "upper case is no valid pipeline");
    assertFalse(OutputKey.looksLikeKey("legacy/output.json"));
    assertFalse(OutputKey.looksLikeKey(null));
    assertTrue(OutputKey.looksLikeKey("o/0/state-" + HEX), "the shortest form: 74 characters");
    assertFalse(OutputKey.looksLikeKey("o/01/state-" + HEX), "the pattern still decides past the length check");
    assertFalse(OutputKey.looksLikeKey("orders/60/state-" + HEX + "0"));
    assertFalse(OutputKey.looksLikeKey("orders/60/stat-" + HEX + "0"));
    assertFalse(OutputKey.looksLikeKey("/0/state-" + HEX), "an empty pipeline");
  }

  // --- RunSpec ---

  @Test
  void hashCode_equalSpecsEqualDifferentSpecsDiffer() {
    RunSpec a = RunSpec.of("p", new Window(60, 60), 1).withInput("in", "x");
    RunSpec b = RunSpec.of("p", new Window(60, 60), 1).withInput("in", "x");
    RunSpec c = RunSpec.of("p", new Window(60, 60), 2).withInput("in", "x");
    assertEquals(a, b);
    assertEquals(a.hashCode(), b.hashCode());
    assertEquals(Arrays.hashCode(a.canonicalBytes()), a.hashCode());
    assertNotEquals(a, c);
    assertNotEquals(a.hashCode(), c.hashCode());
    assertNotEquals(a, "p");
    assertEquals("p", a.pipeline());
  }

  @Test
  void toString_namesFieldsAndInputNamesOnly() {
    assertEquals("RunSpec{pipeline=p, window=[1970-01-01T00:01:00Z, 1970-01-01T00:02:00Z), schema=1}",
        RunSpec.of("p", new Window(60, 60), 1).toString());
    assertEquals("RunSpec{pipeline=p, window=[1970-01-01T00:01:00Z, 1970-01-01T00:02:00Z), schema=1, inputs=[a, b]}",
        RunSpec.of("p", new Window(60, 60), 1).withInput("b", "secret").withInput("a", "x").toString());
  }

  @Test
  void withInput_valueOfExactlyTheLimit_acceptedOneMoreRejected() {
    RunSpec s = RunSpec.of("p", new Window(60, 60), 1);
    s.withInput("big", new byte[RunSpec.MAX_INPUT_BYTES]);
    assertThrows(IllegalArgumentException.class, () -> s.withInput("big", new byte[RunSpec.MAX_INPUT_BYTES + 1]));
  }

  @Test
  void withInput_exactlyMaxInputs_acceptedOneMoreRejected() {
    RunSpec s = RunSpec.of("p", new Window(60, 60), 1);
    for (int i = 0; i < RunSpec.MAX_INPUTS; i++) {
      s = s.withInput("in" + i, "v");
    }
    RunSpec full = s;
    assertEquals(RunSpec.MAX_INPUTS, full.inputs().size());
    assertThrows(IllegalArgumentException.class, () -> full.withInput("one-more", "v"));
  }

  // --- Window ---

  @Test
  void window_endAtLongMax_acceptedPastItRejected() {
    assertEquals(Long.MAX_VALUE, new Window(Long.MAX_VALUE - 60, 60).endEpochSecond());
    assertThrows(IllegalArgumentException.class, () -> new Window(Long.MAX_VALUE - 59, 60));
  }

  @Test
  void closedAt_firstWindowAfterTheEpoch_startsAtZero() {
    assertEquals(new Window(0, 60), Window.closedAt(Instant.ofEpochSecond(60), Duration.ofSeconds(60), Duration.ZERO));
    assertEquals(new Window(60, 60), Window.closedAt(Instant.ofEpochSecond(179), Duration.ofSeconds(60), Duration.ZERO));
    assertThrows(IllegalArgumentException.class,
        () -> Window.closedAt(Instant.ofEpochSecond(59), Duration.ofSeconds(60), Duration.ZERO));
  }

  @Test
  void closedAt_withOffset_boundariesShiftedByTheOffset() {
    assertEquals(new Window(15, 60), Window.closedAt(Instant.ofEpochSecond(130), Duration.ofSeconds(60), Duration.ofSeconds(15)));
    assertEquals(new Window(75, 60), Window.closedAt(Instant.ofEpochSecond(135), Duration.ofSeconds(60), Duration.ofSeconds(15)));
  }

  @Test
  void window_toString_halfOpenInterval() {
    assertEquals("[1970-01-01T00:01:00Z, 1970-01-01T00:02:00Z)", new Window(60, 60).toString());
  }

  // --- Sha256 ---

  @Test
  void isHex_exactlySixtyFourLowercaseHexDigits() {
    assertTrue(Sha256.isHex(HEX));
    assertTrue(Sha256.isHex(Sha256.EMPTY));
    assertFalse(Sha256.isHex(HEX.toUpperCase(java.util.Locale.ROOT)));
    assertFalse(Sha256.isHex(HEX + "a"));
    assertFalse(Sha256.isHex(HEX.substring(1) + "g"));
    assertFalse(Sha256.isHex(null));
  }

  // --- ObjectInfo and Pointer ---

  @Test
  void objectInfo_sizeZeroAcceptedNegativeRejected() {
    assertEquals(0, new ObjectInfo("k", Sha256.EMPTY, 0, null, null).size());
    assertThrows(IllegalArgumentException.class, () -> new ObjectInfo("k", Sha256.EMPTY, -1, null, null));
  }

  private static String key(long windowStart) {
    return RunSpec.of("p", new Window(windowStart, 60), 1).outputKey().toString();
  }

  @Test
  void pointer_smallestLegalFields_accepted() {
    Pointer p = new Pointer("p", key(0), 0, 1, 0, Sha256.EMPTY, 0, "w", Instant.EPOCH);
    assertEquals(new Pointer.Position(0, 0), p.position());
    assertThrows(IllegalArgumentException.class, () -> new Pointer("p", key(0), 0, 0, 0, Sha256.EMPTY, 0, "w", Instant.EPOCH));
    assertThrows(IllegalArgumentException.class, () -> new Pointer("p", key(0), 0, 1, -1, Sha256.EMPTY, 0, "w", Instant.EPOCH));
    assertThrows(IllegalArgumentException.class, () -> new Pointer("p", key(0), 0, 1, 0, Sha256.EMPTY, -1, "w", Instant.EPOCH));
  }

  @Test
  void pointerTo_prefersTheObjectsWriterAndTime() {
    Instant t = Instant.ofEpochSecond(1234);
    ObjectInfo known = new ObjectInfo(key(60), Sha256.EMPTY, 0, "creator", t);
    Pointer p = Pointer.to(known, 60, 1, "fallback", Instant.EPOCH);
    assertEquals("creator", p.writer());
    assertEquals(t, p.publishedAt());
    ObjectInfo unknown = new ObjectInfo(key(60), Sha256.EMPTY, 0, null, null);
    Pointer q = Pointer.to(unknown, 60, 1, "fallback", Instant.EPOCH);
    assertEquals("fallback", q.writer());
    assertEquals(Instant.EPOCH, q.publishedAt());
  }

  @Test
  void parse_documentSizeLimitIsInclusive() {
    String under = assertThrows(Pointer.MalformedPointerException.class,
        () -> Pointer.parse("x".repeat(8192).getBytes(StandardCharsets.UTF_8), "t")).getMessage();
    assertTrue(under.contains("truncated"), under);
    String over = assertThrows(Pointer.MalformedPointerException.class,
        () -> Pointer.parse("x".repeat(8193).getBytes(StandardCharsets.UTF_8), "t")).getMessage();
    assertTrue(over.contains("larger than 8192 bytes"), over);
  }

  @Test
  void parse_lineWithEmptyName_rejectedNamingTheLine() {
    String doc = "idem-pointer 1\npipeline=p\n=orphan\n";
    String m = assertThrows(Pointer.MalformedPointerException.class,
        () -> Pointer.parse(doc.getBytes(StandardCharsets.UTF_8), "t")).getMessage();
    assertTrue(m.endsWith("line 3 is not name=value"), m);
  }

  @Test
  void position_toString_namesBothFields() {
    assertEquals("(window_start=60, schema=2)", new Pointer.Position(60, 2).toString());
  }
}
