package dev.idem.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.security.MessageDigest;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * PlainSha256 hashes a command's keys, pointer documents and small payloads, so it must agree with
 * MessageDigest on any bytes, not only on the lengths {@code PlainSha256Test} walks: random contents
 * of random lengths up to 64 blocks, which spans every padding case many times over, fed whole or in
 * random pieces (single bytes among them), and again after a digest reset it.
 */
class PlainSha256Properties {

  @Property(tries = 500)
  void anyBytes_sameDigestAsMessageDigest(@ForAll @Size(max = 4096) byte[] message) {
    assertArrayEquals(Sha256.newDigest().digest(message), new PlainSha256().digest(message));
  }

  @Property(tries = 500)
  void anyBytesInAnyPieces_sameDigestAsMessageDigest(@ForAll @Size(max = 4096) byte[] message,
      @ForAll @Size(max = 20) List<@IntRange(min = 0, max = 200) Integer> pieces) {
    MessageDigest plain = new PlainSha256();
    plain.update(new byte[] {1, 2, 3}); // a digest in progress: the next digest() must reset it
    plain.digest();
    int at = 0;
    for (int piece : pieces) {
      int len = Math.min(piece, message.length - at);
      if (len == 1) {
        plain.update(message[at]);
      } else {
        plain.update(message, at, len);
      }
      at += len;
    }
    plain.update(message, at, message.length - at);

    assertArrayEquals(Sha256.newDigest().digest(message), plain.digest());
  }
}
