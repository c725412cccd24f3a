package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import dev.idem.store.s3.PartUploads.Transfer;
import dev.idem.store.s3.internal.client.RequestBody;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * How multipart parts travel ({@link PartUploads.Transfer#to}): over TLS the transport authenticates the
 * body and a part goes {@code UNSIGNED-PAYLOAD} with its CRC32C; over plain http a CRC32C could be forged
 * by whoever rewrites the part, so the part's SHA-256 is signed too: the one the hash pass took when
 * there is one, else one taken of the bytes in the buffer.
 */
class PartTransferTest {
  private static final byte[] PART = "part bytes".getBytes(StandardCharsets.US_ASCII);
  private static final int CRC = crc32c(PART);

  private static int crc32c(byte[] b) {
    CRC32C crc = new CRC32C();
    crc.update(b);
    return (int) crc.getValue();
  }

  @Test
  void plainHttpParts_signTheirSha256_httpsParts_not() {
    assertEquals(Transfer.SIGNED_SHA256, Transfer.to(URI.create("http://minio.storage.svc:9000")));
    assertEquals(Transfer.SIGNED_SHA256, Transfer.to(URI.create("HTTP://127.0.0.1:9000")));
    assertEquals(Transfer.CRC32C_HEADER, Transfer.to(URI.create("https://s3.eu-west-1.amazonaws.com")));
    assertEquals(Transfer.CRC32C_HEADER, Transfer.to(URI.create("HTTPS://minio.example:9000")));
    assertTrue(Transfer.SIGNED_SHA256.hashesParts());
    assertFalse(Transfer.CRC32C_HEADER.hashesParts());
  }

  @Test
  void bothCarryTheCrc32cHeader_onlyPlainHttpSignsTheSha256() {
    for (Transfer t : Transfer.values()) {
      RequestBody body = t.body(PART, PART.length, CRC, null);
      assertEquals(Map.of("x-amz-checksum-crc32c", "7bqbnA=="), body.headers(), t.toString());
      assertEquals(PART.length, body.length(), t.toString());
    }
    assertEquals("UNSIGNED-PAYLOAD", Transfer.CRC32C_HEADER.body(PART, PART.length, CRC, null).payloadHash());
    assertEquals(Sha256.of(PART), Transfer.SIGNED_SHA256.body(PART, PART.length, CRC, null).payloadHash());
  }

  @Test
  void hashedHere_onlyTheFirstNBytesOfTheBuffer() {
    byte[] buffer = "part bytes and the rest of a reused buffer".getBytes(StandardCharsets.US_ASCII);
    assertEquals(Sha256.of(PART), Transfer.SIGNED_SHA256.body(buffer, PART.length, CRC, null).payloadHash());
  }

  /** A SHA-256 from the hash pass is signed as given: the server, not this step, checks it against the bytes. */
  @Test
  void sha256FromTheHashPass_signedAsGiven_notRecomputed() {
    String given = Sha256.of("other bytes".getBytes(StandardCharsets.US_ASCII));
    assertEquals(given, Transfer.SIGNED_SHA256.body(PART, PART.length, CRC, given).payloadHash());
    assertEquals("UNSIGNED-PAYLOAD", Transfer.CRC32C_HEADER.body(PART, PART.length, CRC, given).payloadHash());
  }
}
