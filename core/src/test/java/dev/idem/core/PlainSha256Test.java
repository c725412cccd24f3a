package dev.idem.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** PlainSha256 gives MessageDigest's SHA-256 bytes: the FIPS 180-4 examples, and every length across three blocks. */
class PlainSha256Test {
  private static String plain(String s) {
    return Sha256.hex(new PlainSha256().digest(s.getBytes(StandardCharsets.US_ASCII)));
  }

  @Test
  void fipsExamples() {
    assertEquals(Sha256.EMPTY, plain(""));
    assertEquals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", plain("abc"));
    assertEquals("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
        plain("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"));
  }

  @Test
  void everyLengthUpTo300_matchesMessageDigest() {
    Random random = new Random(20261205);
    for (int length = 0; length <= 300; length++) {
      byte[] message = new byte[length];
      random.nextBytes(message);
      assertArrayEquals(Sha256.newDigest().digest(message), new PlainSha256().digest(message), "length " + length);
    }
  }

  @Test
  void outputKey_sameWhicheverDigestHashedIt() {
    RunSpec spec = RunSpec.of("p", Window.closedAt(java.time.Instant.parse("2024-09-10T20:27:30Z"),
        java.time.Duration.ofHours(1), java.time.Duration.ZERO), 1).withInput("a", "b");
    String first = spec.outputKey().toString();
    for (int i = 0; i < 3; i++) {
      assertEquals(first, spec.outputKey().toString());
    }
    assertEquals(first.substring(first.lastIndexOf('-') + 1), Sha256.hex(new PlainSha256().digest(spec.canonicalBytes())));
  }

  @Test
  void byteByByte_acrossBlocks_andItsLength() {
    byte[] message = new byte[130];
    new Random(7).nextBytes(message);
    java.security.MessageDigest plain = new PlainSha256();
    for (byte b : message) {
      plain.update(b);
    }

    assertArrayEquals(Sha256.newDigest().digest(message), plain.digest());
    assertEquals(32, plain.getDigestLength());
  }
}
