package dev.idem.store.s3.client;

import static dev.idem.store.s3.testing.FakeS3Server.ok;
import static dev.idem.store.s3.testing.FakeS3Server.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.auth.AwsCredentials;
import dev.idem.store.s3.auth.CredentialsProvider;
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
 * What a multipart upload puts on the wire: the upload declares its part checksum ({@link PartChecksum}),
 * each part carries it in the signed header of that algorithm ({@code UNSIGNED-PAYLOAD}, or over plain
 * http unproven with the part's SHA-256 signed as well), the completion names it per part in that
 * algorithm's element, and a server's {@code BadDigest} for a part is an error, not retried.
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
  void createMultipartUpload_declaresTheAlgorithm() throws IOException {
    for (PartChecksum declared : PartChecksum.values()) {
      server.then(ok("<InitiateMultipartUploadResult><UploadId>up1</UploadId></InitiateMultipartUploadResult>"));
      assertEquals("up1", client.createMultipartUpload("bkt", "k", Map.of("idem-sha256", "abc"), declared));
    }
    List<FakeS3Server.Request> r = server.requests();
    assertEquals("CRC32C", r.get(0).headers().get("x-amz-checksum-algorithm"));
    assertEquals("SHA256", r.get(1).headers().get("x-amz-checksum-algorithm"));
    assertEquals("abc", r.get(1).headers().get("x-amz-meta-idem-sha256"));
    assertTrue(r.get(1).headers().get("authorization").contains("x-amz-checksum-algorithm;"),
        "the declaration is signed: " + r.get(1).headers().get("authorization"));
  }

  /** The part's SHA-256 ({@code 1d8971…}, computed independently with Python's hashlib) in base64, the payload unsigned. */
  @Test
  void uploadPart_sha256InASignedChecksumHeader_payloadUnsigned() throws IOException {
    server.then(status(200, Map.of("ETag", "\"e1\"")));
    byte[] buffer = "xxpart bytesyy".getBytes(StandardCharsets.US_ASCII);
    String sha256 = "1d897106c02045927cf3278c97f2417b765ec295a3d704d9d2682a6b3592ec62";
    assertEquals("\"e1\"", client.uploadPart("bkt", "k", "up1", 3,
        RequestBody.ofPartWithChecksumSha256(buffer, 2, 10, sha256)));
    FakeS3Server.Request r = server.requests().get(0);
    assertEquals("UNSIGNED-PAYLOAD", r.headers().get("x-amz-content-sha256"));
    assertEquals("HYlxBsAgRZJ88yeMl/JBe3ZewpWj1wTZ0mgqazWS7GI=", r.headers().get("x-amz-checksum-sha256"));
    assertFalse(r.headers().containsKey("x-amz-checksum-crc32c"), "one algorithm per upload");
    assertTrue(r.headers().get("authorization").contains(
        "SignedHeaders=host;x-amz-checksum-sha256;x-amz-content-sha256;x-amz-date,"), r.headers().get("authorization"));
    assertEquals(10, r.received(), "only the slice is sent");
  }

  @Test
  void completeMultipartUpload_namesEachPartsChecksumInItsAlgorithmsElement() throws IOException {
    String done = "<CompleteMultipartUploadResult><ETag>\"x-2\"</ETag></CompleteMultipartUploadResult>";
    server.then(ok(done), ok(done));
    client.completeMultipartUpload("bkt", "k", "up1", List.of("\"a\"", "\"b\""), PartChecksum.SHA256,
        List.of("c2hhMQ==", "c2hhMg=="), null);
    client.completeMultipartUpload("bkt", "k", "up1", List.of("\"a\""), PartChecksum.CRC32C, List.of("AAAAAA=="), null);
    String sha = server.requests().get(0).bodyText();
    assertTrue(sha.contains("<Part><PartNumber>1</PartNumber><ETag>\"a\"</ETag><ChecksumSHA256>c2hhMQ=="
        + "</ChecksumSHA256></Part><Part><PartNumber>2</PartNumber><ETag>\"b\"</ETag><ChecksumSHA256>"
        + "c2hhMg==</ChecksumSHA256></Part>"), sha);
    String crc = server.requests().get(1).bodyText();
    assertTrue(crc.contains("<ETag>\"a\"</ETag><ChecksumCRC32C>AAAAAA==</ChecksumCRC32C></Part>"), crc);
    assertFalse(crc.contains("SHA256"), crc);
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
        List.of("\"a\"", "\"b\""), PartChecksum.CRC32C, List.of("AAAAAA=="), null));
    assertTrue(server.requests().isEmpty());
  }
}
