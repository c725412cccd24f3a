package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.idem.core.Sha256;
import dev.idem.store.s3.PartUploads.Transfer;
import dev.idem.store.s3.client.PartChecksum;
import dev.idem.store.s3.client.RequestBody;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * How multipart parts travel ({@link PartUploads.Transfer#to}): over TLS the transport authenticates the
 * body and a part goes {@code UNSIGNED-PAYLOAD} with its CRC32C; over plain http a CRC32C could be forged
 * by whoever rewrites the part, so the part's SHA-256 travels with it, in the checksum header where the
 * server is proven to verify it there and signed as the payload hash where it is not.
 */
class PartTransferTest {
  private static final byte[] PART = "part bytes".getBytes(StandardCharsets.US_ASCII);

  @Test
  void plainHttpParts_carryTheirSha256_httpsParts_theirCrc32c() {
    for (boolean verified : new boolean[] {false, true}) {
      assertEquals(Transfer.CRC32C_HEADER, Transfer.to(URI.create("https://s3.eu-west-1.amazonaws.com"), verified));
      assertEquals(Transfer.CRC32C_HEADER, Transfer.to(URI.create("HTTPS://minio.example:9000"), verified));
    }
    assertEquals(Transfer.SIGNED_SHA256, Transfer.to(URI.create("http://minio.storage.svc:9000"), false));
    assertEquals(Transfer.SIGNED_SHA256, Transfer.to(URI.create("HTTP://127.0.0.1:9000"), false));
    assertEquals(Transfer.SHA256_HEADER, Transfer.to(URI.create("http://minio.storage.svc:9000"), true));
    assertEquals(Transfer.SHA256_HEADER, Transfer.to(URI.create("HTTP://127.0.0.1:9000"), true));
  }

  @Test
  void eachTransfer_sendsExactlyTheChecksumItsUploadDeclares() {
    CRC32C crc = new CRC32C();
    crc.update(PART);
    int crc32c = (int) crc.getValue();
    for (Transfer t : Transfer.values()) {
      RequestBody body = t.body(PART, PART.length, crc32c, null);
      assertEquals(Set.of(t.declared().header()), body.headers().keySet(), t.toString());
      assertEquals(PART.length, body.length(), t.toString());
    }
    assertEquals(PartChecksum.CRC32C, Transfer.CRC32C_HEADER.declared());
    assertEquals(PartChecksum.CRC32C, Transfer.SIGNED_SHA256.declared());
    assertEquals(PartChecksum.SHA256, Transfer.SHA256_HEADER.declared());
    assertEquals("7bqbnA==", Transfer.CRC32C_HEADER.body(PART, PART.length, crc32c, null).headers().get("x-amz-checksum-crc32c"));
    assertEquals("UNSIGNED-PAYLOAD", Transfer.CRC32C_HEADER.body(PART, PART.length, crc32c, null).payloadHash());
    assertEquals(Sha256.of(PART), Transfer.SIGNED_SHA256.body(PART, PART.length, crc32c, null).payloadHash());
    RequestBody header = Transfer.SHA256_HEADER.body(PART, PART.length, crc32c, null);
    assertEquals("UNSIGNED-PAYLOAD", header.payloadHash());
    assertEquals(RequestBody.sha256Base64(Sha256.of(PART)), header.headers().get("x-amz-checksum-sha256"));
  }

  @Test
  void sha256Header_hashesOnlyTheFirstNBytesOfTheBuffer() {
    byte[] buffer = "part bytes and the rest of a reused buffer".getBytes(StandardCharsets.US_ASCII);
    assertEquals(RequestBody.sha256Base64(Sha256.of(PART)),
        Transfer.SHA256_HEADER.body(buffer, PART.length, 0, null).headers().get("x-amz-checksum-sha256"));
  }

  /** A SHA-256 from the hash pass is sent as given: the server, not this step, checks it against the bytes. */
  @Test
  void sha256FromTheHashPass_sentAsGiven_notRecomputed() {
    String given = Sha256.of("other bytes".getBytes(StandardCharsets.US_ASCII));
    assertEquals(RequestBody.sha256Base64(given),
        Transfer.SHA256_HEADER.body(PART, PART.length, 0, given).headers().get("x-amz-checksum-sha256"));
    assertEquals(given, Transfer.SIGNED_SHA256.body(PART, PART.length, 0, given).payloadHash());
    assertEquals("UNSIGNED-PAYLOAD", Transfer.CRC32C_HEADER.body(PART, PART.length, 0, given).payloadHash());
  }

  @Test
  void onlyTheTransfersOverPlainHttp_hashParts() {
    assertEquals(false, Transfer.CRC32C_HEADER.hashesParts());
    assertEquals(true, Transfer.SIGNED_SHA256.hashesParts());
    assertEquals(true, Transfer.SHA256_HEADER.hashesParts());
  }
}
