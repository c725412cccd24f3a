package dev.idem.store.s3;

import static dev.idem.store.s3.testing.FakeS3Server.error;
import static dev.idem.store.s3.testing.FakeS3Server.ok;
import static dev.idem.store.s3.testing.FakeS3Server.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import dev.idem.core.proof.ProbeResult;
import dev.idem.store.s3.client.RequestBody;
import dev.idem.store.s3.client.RetryPolicy;
import dev.idem.store.s3.client.S3Client;
import dev.idem.store.s3.testing.FakeS3Server;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code part-checksum-sha256} probe against answers S3Proxy does not give: only a 400 refusal of the
 * part with the wrong header, the right one accepted, and the completed upload holding exactly its bytes
 * count as held; every other answer is recorded as not verified (parts over plain http then sign their
 * SHA-256) and never fails the proof. An upload that was not completed is aborted, and the scratch key is
 * deleted, whatever happened.
 */
class S3StoreProverPartChecksumTest {
  private static final String SCRATCH = "_idem/probe/0123456789abcdef01234567-parts";
  private static final String PART = "seventh";
  private FakeS3Server server;

  @BeforeEach
  void start() throws IOException {
    server = new FakeS3Server();
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  private ProbeResult probe() throws IOException {
    S3Client client = server.clientBuilder().retry(new RetryPolicy(1, Duration.ZERO, Duration.ZERO)).build();
    try (S3ObjectStore store = S3ObjectStore.open(client, server.location("p/"), S3StoreOptions.defaults())) {
      return S3StoreProver.of(store).partChecksumSha256(SCRATCH);
    }
  }

  private List<String> calls() {
    return server.requests().stream().map(r -> r.method() + " " + r.target().replaceAll("uploadId=[^&]*", "uploadId=U"))
        .toList();
  }

  private static FakeS3Server.Reply created() {
    return ok("<InitiateMultipartUploadResult><UploadId>U</UploadId></InitiateMultipartUploadResult>");
  }

  private static FakeS3Server.Reply part() {
    return status(200, Map.of("ETag", "\"p1\""));
  }

  private static FakeS3Server.Reply completed() {
    return ok("<CompleteMultipartUploadResult><ETag>\"m-1\"</ETag></CompleteMultipartUploadResult>");
  }

  private static FakeS3Server.Reply holds(String content) {
    return new FakeS3Server.Reply(200, Map.of(), content.getBytes(StandardCharsets.US_ASCII));
  }

  private static FakeS3Server.Reply gone() {
    return status(204, Map.of());
  }

  private static final String KEY = "/bkt/p/" + SCRATCH;
  private static final String CREATE = "POST " + KEY + "?uploads=";
  private static final String PUT_PART = "PUT " + KEY + "?partNumber=1&uploadId=U";
  private static final String COMPLETE = "POST " + KEY + "?uploadId=U";
  private static final String ABORT = "DELETE " + KEY + "?uploadId=U";
  private static final String DELETE = "DELETE " + KEY;

  @Test
  void wrongRefusedRightAcceptedCompletedWithItsBytes_held() throws IOException {
    server.then(created(), error(400, "BadDigest", "no"), part(), completed(), holds(PART), gone());

    ProbeResult r = probe();

    assertTrue(r.held(), r.toString());
    assertFalse(r.required());
    assertEquals("part-checksum-sha256", r.guarantee());
    assertEquals("refused it (400 BadDigest), accepted a matching one, and completed with exactly its bytes",
        r.observed());
    assertEquals(List.of(CREATE, PUT_PART, PUT_PART, COMPLETE, "GET " + KEY, DELETE), calls(),
        "a completed upload is not aborted");
    List<FakeS3Server.Request> sent = server.requests();
    assertEquals("SHA256", sent.get(0).headers().get("x-amz-checksum-algorithm"));
    assertEquals("UNSIGNED-PAYLOAD", sent.get(1).headers().get("x-amz-content-sha256"));
    String other = RequestBody.sha256Base64(Sha256.of("other bytes".getBytes(StandardCharsets.US_ASCII)));
    String right = RequestBody.sha256Base64(Sha256.of(PART.getBytes(StandardCharsets.US_ASCII)));
    assertEquals(other, sent.get(1).headers().get(RequestBody.CHECKSUM_SHA256));
    assertEquals(right, sent.get(2).headers().get(RequestBody.CHECKSUM_SHA256));
    assertEquals("UNSIGNED-PAYLOAD", sent.get(2).headers().get("x-amz-content-sha256"));
    assertEquals("*", sent.get(3).headers().get("if-none-match"));
    assertTrue(sent.get(3).bodyText().contains("<ETag>\"p1\"</ETag><ChecksumSHA256>" + right + "</ChecksumSHA256>"),
        sent.get(3).bodyText());
  }

  @Test
  void wrongAccepted_absentAborted() throws IOException {
    server.then(created(), part(), gone(), gone());

    ProbeResult r = probe();

    assertFalse(r.held());
    assertEquals("accepted a part that does not match its x-amz-checksum-sha256; parts over plain http sign the"
        + " payload", r.observed());
    assertEquals(List.of(CREATE, PUT_PART, ABORT, DELETE), calls());
  }

  /** A server without checksum headers may answer 501: recorded, not a failed proof. */
  @Test
  void wrongAnswered501_absentNotThrown() throws IOException {
    server.then(created(), error(501, "NotImplemented", "x-amz-checksum-sha256"), gone(), gone());

    ProbeResult r = probe();

    assertFalse(r.held());
    assertEquals("answered 501 NotImplemented (not a 400 refusal of the part; parts over plain http sign the"
        + " payload)", r.observed());
    assertEquals(List.of(CREATE, PUT_PART, ABORT, DELETE), calls());
  }

  @Test
  void rightRefusedToo_absentAborted() throws IOException {
    server.then(created(), error(400, "BadDigest", "no"), error(400, "InvalidRequest", "checksums"), gone(), gone());

    ProbeResult r = probe();

    assertFalse(r.held());
    assertEquals("refused it (400 BadDigest), then answered 400 InvalidRequest to the matching part or its"
        + " completion; parts over plain http sign the payload", r.observed());
    assertEquals(List.of(CREATE, PUT_PART, PUT_PART, ABORT, DELETE), calls());
  }

  @Test
  void completionRefused_absentAborted() throws IOException {
    server.then(created(), error(400, "BadDigest", "no"), part(), error(400, "InvalidPart", "checksum"), gone(),
        gone());

    ProbeResult r = probe();

    assertFalse(r.held());
    assertEquals("refused it (400 BadDigest), then answered 400 InvalidPart to the matching part or its"
        + " completion; parts over plain http sign the payload", r.observed());
    assertEquals(List.of(CREATE, PUT_PART, PUT_PART, COMPLETE, ABORT, DELETE), calls());
  }

  @Test
  void completionPreconditionFailedOnTheFreshKey_absentAborted() throws IOException {
    server.then(created(), error(400, "BadDigest", "no"), part(), error(412, "PreconditionFailed", "exists"), gone(),
        gone());

    ProbeResult r = probe();

    assertFalse(r.held());
    assertEquals("refused it (400 BadDigest), then answered PRECONDITION_FAILED completing the matching part onto"
        + " the fresh key; parts over plain http sign the payload", r.observed());
    assertEquals(List.of(CREATE, PUT_PART, PUT_PART, COMPLETE, ABORT, DELETE), calls());
  }

  @Test
  void completedWithOtherBytes_absent() throws IOException {
    server.then(created(), error(400, "BadDigest", "no"), part(), completed(), holds("seventh!"), gone());

    ProbeResult r = probe();

    assertFalse(r.held());
    assertEquals("refused it (400 BadDigest), but the completed upload holds 8 other bytes; parts over plain http"
        + " sign the payload", r.observed());
    assertEquals(List.of(CREATE, PUT_PART, PUT_PART, COMPLETE, "GET " + KEY, DELETE), calls());
  }

  @Test
  void completedButTooLargeToRead_absentNotThrown() throws IOException {
    server.then(created(), error(400, "BadDigest", "no"), part(), completed(), holds("x".repeat(16 * 1024 + 1)),
        gone());

    ProbeResult r = probe();

    assertFalse(r.held());
    assertEquals("refused it (400 BadDigest), but the completed upload holds more than 16384 bytes; parts over"
        + " plain http sign the payload", r.observed());
  }
}
