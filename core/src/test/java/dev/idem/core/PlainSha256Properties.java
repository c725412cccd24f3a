package dev.idem.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

/**
 * PlainSha256 hashes the first key of every JVM, so it must agree with MessageDigest on any spec's
 * canonical bytes, not only on the lengths {@code PlainSha256Test} walks: random contents of random
 * lengths up to 64 blocks, which spans every padding case many times over.
 */
class PlainSha256Properties {

  @Property(tries = 500)
  void anyBytes_sameDigestAsMessageDigest(@ForAll @Size(max = 4096) byte[] message) {
    assertArrayEquals(Sha256.newDigest().digest(message), PlainSha256.digest(message));
  }
}
