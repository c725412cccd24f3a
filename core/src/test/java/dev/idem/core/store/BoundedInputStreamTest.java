package dev.idem.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * {@link BoundedInputStream} gives at most its bound, whichever read is used, and says so in {@code
 * available()}: a range read of a payload must never run into the bytes after the range.
 */
class BoundedInputStreamTest {
  private static BoundedInputStream fourOf(String s) {
    return new BoundedInputStream(new ByteArrayInputStream(s.getBytes(java.nio.charset.StandardCharsets.US_ASCII)), 4);
  }

  @Test
  void readByByte_stopsExactlyAtTheBound() throws IOException {
    BoundedInputStream in = fourOf("abcdefgh");
    assertEquals(4, in.available());
    for (char c : "abcd".toCharArray()) {
      assertEquals(c, in.read());
    }
    assertEquals(0, in.available());
    assertEquals(-1, in.read(), "the fifth byte is past the bound");
  }

  @Test
  void readIntoArray_stopsExactlyAtTheBound() throws IOException {
    BoundedInputStream in = fourOf("abcdefgh");
    byte[] b = new byte[8];
    assertEquals(0, in.read(b, 0, 0));
    assertEquals(4, in.read(b, 0, 8));
    assertArrayEquals("abcd".getBytes(java.nio.charset.StandardCharsets.US_ASCII), java.util.Arrays.copyOf(b, 4));
    assertEquals(-1, in.read(b, 0, 8));
  }

  @Test
  void zeroBytes_countTowardsTheBound() throws IOException {
    BoundedInputStream in = new BoundedInputStream(new ByteArrayInputStream(new byte[3]), 2);
    assertEquals(0, in.read());
    assertEquals(0, in.read());
    assertEquals(-1, in.read(), "a zero byte is a byte");
  }

  @Test
  void sourceShorterThanTheBound_endsWithTheSource() throws IOException {
    BoundedInputStream in = fourOf("ab");
    assertEquals(2, in.available());
    assertEquals(2, in.read(new byte[8], 0, 8));
    assertEquals(-1, in.read());
  }
}
