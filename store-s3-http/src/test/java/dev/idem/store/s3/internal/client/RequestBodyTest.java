package dev.idem.store.s3.internal.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import dev.idem.store.s3.internal.auth.SigV4Signer;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * What a streamed body declares before its first byte: the payload hash SigV4 signs and the headers it
 * travels with, in both forms of a single PUT, and the arguments each refuses.
 */
class RequestBodyTest {
  private static final byte[] BYTES = "a single put".getBytes(StandardCharsets.US_ASCII);
  private static final String SHA = Sha256.of(BYTES);

  private static int crc() {
    CRC32C c = new CRC32C();
    c.update(BYTES);
    return (int) c.getValue();
  }

  @Test
  void ofStream_signsTheSha256AndAddsNoHeader() {
    RequestBody b = RequestBody.ofStream(() -> new ByteArrayInputStream(BYTES), BYTES.length, SHA, crc(), "bytes");

    assertEquals(SHA, b.payloadHash());
    assertEquals(Map.of(), b.headers());
    assertEquals(BYTES.length, b.length());
  }

  @Test
  void ofStreamWithChecksum_unsignedPayloadAndTheSha256InItsHeader() {
    RequestBody b = RequestBody.ofStreamWithChecksum(() -> new ByteArrayInputStream(BYTES), BYTES.length, SHA, crc(),
        "bytes");

    assertEquals(SigV4Signer.UNSIGNED_PAYLOAD, b.payloadHash());
    assertEquals(Map.of(RequestBody.CHECKSUM_SHA256, Base64.getEncoder().encodeToString(HexFormat.of().parseHex(SHA))),
        b.headers());
    assertEquals(BYTES.length, b.length());
  }

  /** A part's SHA-256 from the hash pass is signed as given, and must be one: 64 lowercase hex digits. */
  @Test
  void ofSignedPart_signsTheGivenSha256_refusesAnythingElse() {
    RequestBody b = RequestBody.ofSignedPart(BYTES, 0, BYTES.length, crc(), SHA);
    assertEquals(SHA, b.payloadHash());
    assertEquals(Map.of(RequestBody.CHECKSUM_CRC32C, RequestBody.crc32cBase64(crc())), b.headers());
    for (String bad : new String[] {SHA.toUpperCase(java.util.Locale.ROOT), SHA.substring(1), "UNSIGNED-PAYLOAD"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> RequestBody.ofSignedPart(BYTES, 0, BYTES.length, crc(), bad));
      assertTrue(e.getMessage().contains(bad), e.getMessage());
    }
  }

  @Test
  void bothForms_emptyBodyAccepted() {
    assertEquals(0, RequestBody.ofStream(() -> new ByteArrayInputStream(new byte[0]), 0, Sha256.EMPTY, 0, "e").length());
    assertEquals(0,
        RequestBody.ofStreamWithChecksum(() -> new ByteArrayInputStream(new byte[0]), 0, Sha256.EMPTY, 0, "e").length());
  }

  @Test
  void bothForms_shaNotLowercaseHex_refusedNamingIt() {
    String upper = SHA.toUpperCase(java.util.Locale.ROOT);
    IllegalArgumentException a = assertThrows(IllegalArgumentException.class,
        () -> RequestBody.ofStream(() -> new ByteArrayInputStream(BYTES), BYTES.length, upper, crc(), "bytes"));
    IllegalArgumentException b = assertThrows(IllegalArgumentException.class,
        () -> RequestBody.ofStreamWithChecksum(() -> new ByteArrayInputStream(BYTES), BYTES.length, upper, crc(), "b"));

    IllegalArgumentException c = assertThrows(IllegalArgumentException.class,
        () -> RequestBody.ofStreamWithChecksum(() -> new ByteArrayInputStream(BYTES), BYTES.length, "not-a-sha", crc(),
            "b"));

    assertEquals("sha256 must be 64 lowercase hex digits, was " + upper, a.getMessage());
    assertEquals(a.getMessage(), b.getMessage());
    assertEquals("sha256 must be 64 lowercase hex digits, was not-a-sha", c.getMessage());
  }

  @Test
  void bothForms_negativeLength_refused() {
    assertEquals("length must be >= 0, was -1", assertThrows(IllegalArgumentException.class,
        () -> RequestBody.ofStream(() -> new ByteArrayInputStream(BYTES), -1, SHA, crc(), "bytes")).getMessage());
    assertEquals("length must be >= 0, was -1", assertThrows(IllegalArgumentException.class,
        () -> RequestBody.ofStreamWithChecksum(() -> new ByteArrayInputStream(BYTES), -1, SHA, crc(), "b")).getMessage());
  }
}
