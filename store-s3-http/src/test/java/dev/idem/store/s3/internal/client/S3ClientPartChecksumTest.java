package dev.idem.store.s3.internal.client;

import static dev.idem.store.s3.testing.FakeS3Server.ok;
import static dev.idem.store.s3.testing.FakeS3Server.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsProvider;
import dev.idem.store.s3.testing.FakeS3Server;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a multipart upload puts on the wire since parts stopped carrying their SHA-256: the upload
 * declares CRC32C, each part goes {@code UNSIGNED-PAYLOAD} with its CRC32C in a signed {@code
 * x-amz-checksum-crc32c}, and a server's {@code BadDigest} for a part is an error, not retried.
 */
class S3ClientPartChecksumTest {
  private FakeS3Server server;
  private S3Client client;

  @BeforeEach
  void start() throws IOException {
    server = new FakeS3Server();
    client = S3Client.builder(server.endpoint(), "us-east-1",
            CredentialsProvider.of(AwsCredentials.of("AKIDEXAMPLE", "secret-never-printed")))
        .pathStyle(true).sleeper(d -> { }).requestTimeout(Duration.ofSeconds(10)).build();
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  private static int crc32c(byte[] b) {
    CRC32C crc = new CRC32C();
    crc.update(b);
    return (int) crc.getValue();
  }

  @Test
  void crc32cBase64_bigEndianBytesInBase64_asS3AndBotocoreWriteIt() {
    // "part bytes" has CRC32C 0xedba9b9c (computed independently, bit by bit, in Python).
    assertEquals(0xedba9b9c, crc32c("part bytes".getBytes(StandardCharsets.US_ASCII)));
    assertEquals("7bqbnA==", RequestBody.crc32cBase64(0xedba9b9c));
    assertEquals("AAAAAA==", RequestBody.crc32cBase64(0));
  }

  @Test
  void createMultipartUpload_declaresCrc32c() throws IOException {
    server.then(ok("<InitiateMultipartUploadResult><UploadId>up1</UploadId></InitiateMultipartUploadResult>"));
    assertEquals("up1", client.createMultipartUpload("bkt", "k", Map.of("idem-sha256", "abc")));
    FakeS3Server.Request r = server.requests().get(0);
    assertEquals("CRC32C", r.headers().get("x-amz-checksum-algorithm"));
    assertEquals("abc", r.headers().get("x-amz-meta-idem-sha256"));
  }

  /** For a plain-http endpoint: the part's SHA-256 signed as well, so a rewritten part is refused. */
  @Test
  void uploadPart_signedPart_sha256SignedAndCrc32cHeader() throws IOException {
    server.then(status(200, Map.of("ETag", "\"e1\"")));
    byte[] buffer = "xxpart bytesyy".getBytes(StandardCharsets.US_ASCII);
    int crc = crc32c("part bytes".getBytes(StandardCharsets.US_ASCII));
    assertEquals("\"e1\"", client.uploadPart("bkt", "k", "up1", 3, RequestBody.ofSignedPart(buffer, 2, 10, crc,
        dev.idem.core.Sha256.of("part bytes".getBytes(StandardCharsets.US_ASCII)))));
    FakeS3Server.Request r = server.requests().get(0);
    assertEquals(dev.idem.core.Sha256.of("part bytes".getBytes(StandardCharsets.US_ASCII)),
        r.headers().get("x-amz-content-sha256"));
    assertEquals("7bqbnA==", r.headers().get("x-amz-checksum-crc32c"));
    assertTrue(r.headers().get("authorization").contains(
        "SignedHeaders=host;x-amz-checksum-crc32c;x-amz-content-sha256;x-amz-date,"), r.headers().get("authorization"));
    assertEquals(10, r.received(), "only the slice is sent");
  }

  @Test
  void uploadPart_unsignedPayloadWithSignedCrc32cHeader() throws IOException {
    server.then(status(200, Map.of("ETag", "\"e1\"")));
    byte[] buffer = "xxpart bytesyy".getBytes(StandardCharsets.US_ASCII);
    int crc = crc32c("part bytes".getBytes(StandardCharsets.US_ASCII));
    assertEquals("\"e1\"", client.uploadPart("bkt", "k", "up1", 3, RequestBody.ofPart(buffer, 2, 10, crc)));
    FakeS3Server.Request r = server.requests().get(0);
    assertEquals("UNSIGNED-PAYLOAD", r.headers().get("x-amz-content-sha256"));
    assertEquals("7bqbnA==", r.headers().get("x-amz-checksum-crc32c"));
    assertTrue(r.headers().get("authorization").contains(
        "SignedHeaders=host;x-amz-checksum-crc32c;x-amz-content-sha256;x-amz-date,"), r.headers().get("authorization"));
    assertEquals(10, r.received(), "only the slice is sent");
  }

  @Test
  void uploadPart_serverRefusesTheChecksum_badDigestNotRetried() {
    server.then(FakeS3Server.error(400, "BadDigest", "The CRC32C you specified did not match the calculated checksum."),
        status(200, Map.of("ETag", "\"e1\"")));
    byte[] part = "part bytes".getBytes(StandardCharsets.US_ASCII);
    S3Exception e = assertThrows(S3Exception.class,
        () -> client.uploadPart("bkt", "k", "up1", 1, RequestBody.ofPart(part, 0, part.length, ~crc32c(part))));
    assertEquals("BadDigest", e.code());
    assertFalse(e.isRetryable());
    assertEquals(1, server.requests().size());
  }

  @Test
  void completeMultipartUpload_checksumsMustMatchTheParts() {
    assertThrows(IllegalArgumentException.class, () -> client.completeMultipartUpload("bkt", "k", "up1",
        List.of("\"a\"", "\"b\""), List.of("AAAAAA=="), null));
    assertTrue(server.requests().isEmpty());
  }
}
