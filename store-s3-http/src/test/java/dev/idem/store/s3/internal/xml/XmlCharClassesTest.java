package dev.idem.store.s3.internal.xml;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/**
 * {@link XmlInput}'s character classes against the XML 1.0 (fifth edition) productions, for every
 * code point and one past the last: {@code Char} (2), {@code NameStartChar} (4), {@code NameChar}
 * (4a) and {@code S} (3). The parser tests reach these classes only through a few sample names, so an
 * off-by-one at a range's end (PIT's boundary mutants) went unnoticed there.
 */
class XmlCharClassesTest {
  private static final int[][] CHAR = {
      {0x9, 0x9}, {0xA, 0xA}, {0xD, 0xD}, {0x20, 0xD7FF}, {0xE000, 0xFFFD}, {0x10000, 0x10FFFF}};
  private static final int[][] NAME_START = {
      {':', ':'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}, {0xC0, 0xD6}, {0xD8, 0xF6}, {0xF8, 0x2FF},
      {0x370, 0x37D}, {0x37F, 0x1FFF}, {0x200C, 0x200D}, {0x2070, 0x218F}, {0x2C00, 0x2FEF},
      {0x3001, 0xD7FF}, {0xF900, 0xFDCF}, {0xFDF0, 0xFFFD}, {0x10000, 0xEFFFF}};
  private static final int[][] NAME_EXTRA = {
      {'-', '-'}, {'.', '.'}, {'0', '9'}, {0xB7, 0xB7}, {0x300, 0x36F}, {0x203F, 0x2040}};

  private static boolean in(int[][] ranges, int c) {
    for (int[] r : ranges) {
      if (c >= r[0] && c <= r[1]) {
        return true;
      }
    }
    return false;
  }

  private static void assertClass(String name, IntPredicate spec, IntPredicate actual) {
    for (int c = 0; c <= 0x110000; c++) {
      if (spec.test(c) != actual.test(c)) {
        assertEquals(spec.test(c), actual.test(c), name + " of U+" + Integer.toHexString(c).toUpperCase());
      }
    }
  }

  @Test
  void xmlChar() {
    assertClass("Char", c -> in(CHAR, c), XmlInput::isXmlChar);
  }

  @Test
  void nameStartChar() {
    assertClass("NameStartChar", c -> in(NAME_START, c), XmlInput::isNameStart);
  }

  @Test
  void nameChar() {
    assertClass("NameChar", c -> in(NAME_START, c) || in(NAME_EXTRA, c), XmlInput::isNameChar);
  }

  @Test
  void space() {
    for (int b = Byte.MIN_VALUE; b <= Byte.MAX_VALUE; b++) {
      boolean spec = b == 0x20 || b == 0x9 || b == 0xD || b == 0xA;
      assertEquals(spec, XmlInput.isSpace((byte) b), "S of byte " + b);
    }
  }
}
