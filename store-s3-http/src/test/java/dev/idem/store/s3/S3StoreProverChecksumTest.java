package dev.idem.store.s3;

import static dev.idem.store.s3.testing.FakeS3Server.error;
import static dev.idem.store.s3.testing.FakeS3Server.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import dev.idem.core.proof.ProbeResult;
import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.internal.client.RetryPolicy;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.testing.FakeS3Server;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code put-checksum-sha256} probe against answers S3Proxy does not give: only a 400 refusal of the
 * wrong header, nothing stored, and the right header accepted count as held; every other answer is
 * recorded as not verified (single PUTs then sign the payload) and never fails the proof. Each case
 * removes its scratch key afterwards.
 */
class S3StoreProverChecksumTest {
  private static final String SCRATCH = "_idem/probe/0123456789abcdef01234567-checksum";
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
      return S3StoreProver.of(store).checksumSha256(SCRATCH);
    }
  }

  private List<String> methods() {
    return server.requests().stream().map(FakeS3Server.Request::method).toList();
  }

  private static FakeS3Server.Reply created() {
    return status(200, Map.of("ETag", "\"e\""));
  }

  /** A HEAD's 404, then the bucket's 200: the client makes sure a 404 is the key's, not the bucket's. */
  private static FakeS3Server.Action[] absent() {
    return new FakeS3Server.Action[] {status(404, Map.of()), status(200, Map.of())};
  }

  private static FakeS3Server.Action[] script(Object... steps) {
    List<FakeS3Server.Action> all = new java.util.ArrayList<>();
    for (Object step : steps) {
      if (step instanceof FakeS3Server.Action[] many) {
        all.addAll(List.of(many));
      } else {
        all.add((FakeS3Server.Action) step);
      }
    }
    return all.toArray(new FakeS3Server.Action[0]);
  }

  private static FakeS3Server.Reply deleted() {
    return status(204, Map.of());
  }

  private static String base64Sha256(String text) {
    return Base64.getEncoder().encodeToString(HexFormat.of().parseHex(Sha256.of(text.getBytes(StandardCharsets.US_ASCII))));
  }

  @Test
  void wrongRefusedNothingStoredRightAccepted_held() throws IOException {
    server.then(script(error(400, "BadDigest", "no"), absent(), created(), deleted()));

    ProbeResult r = probe();

    assertTrue(r.held(), r.toString());
    assertFalse(r.required());
    assertEquals("refused it (400 BadDigest), stored nothing, and accepted a matching one", r.observed());
    assertEquals(List.of("PUT", "HEAD", "HEAD", "PUT", "DELETE"), methods());
    FakeS3Server.Request wrong = server.requests().get(0);
    FakeS3Server.Request right = server.requests().get(3);
    assertEquals("UNSIGNED-PAYLOAD", wrong.headers().get("x-amz-content-sha256"));
    assertEquals(base64Sha256("other bytes"), wrong.headers().get(RequestBody.CHECKSUM_SHA256));
    assertEquals(base64Sha256("sixth"), right.headers().get(RequestBody.CHECKSUM_SHA256));
    assertEquals("*", right.headers().get("if-none-match"));
    assertEquals("/bkt/p/" + SCRATCH, server.requests().get(4).target());
  }

  @Test
  void wrongAccepted_absentAndRecorded() throws IOException {
    server.then(created(), deleted());

    ProbeResult r = probe();

    assertFalse(r.held());
    assertEquals("accepted a body that does not match its x-amz-checksum-sha256 (answered WRITTEN; single PUTs sign"
        + " the payload)", r.observed());
    assertEquals(List.of("PUT", "DELETE"), methods());
  }

  /** A server without checksum headers may answer 501: recorded, not a failed proof. */
  @Test
  void wrongAnswered501_absentNotThrown() throws IOException {
    server.then(error(501, "NotImplemented", "x-amz-checksum-sha256"), deleted());

    ProbeResult r = probe();

    assertFalse(r.held());
    assertEquals("answered 501 NotImplemented (not a 400 refusal of the body; single PUTs sign the payload)",
        r.observed());
    assertEquals(List.of("PUT", "DELETE"), methods());
  }

  @Test
  void wrongRefusedButStored_absent() throws IOException {
    server.then(error(400, "BadDigest", "no"), status(200, Map.of("ETag", "\"e\"")), deleted());

    ProbeResult r = probe();

    assertFalse(r.held());
    assertEquals("refused it (400 BadDigest) but stored it anyway; single PUTs sign the payload", r.observed());
    assertEquals(List.of("PUT", "HEAD", "DELETE"), methods());
  }

  @Test
  void rightRefusedToo_absent() throws IOException {
    server.then(script(error(400, "BadDigest", "no"), absent(), error(400, "InvalidRequest", "checksums"),
        deleted()));

    ProbeResult r = probe();

    assertFalse(r.held());
    assertEquals("refused it (400 BadDigest), and a matching one too (400 InvalidRequest; single PUTs sign the"
        + " payload)", r.observed());
    assertEquals(List.of("PUT", "HEAD", "HEAD", "PUT", "DELETE"), methods());
  }

  @Test
  void rightAnsweredPreconditionFailed_absent() throws IOException {
    server.then(script(error(400, "BadDigest", "no"), absent(), error(412, "PreconditionFailed", "exists"),
        deleted()));

    ProbeResult r = probe();

    assertFalse(r.held());
    assertEquals("refused it (400 BadDigest), then answered PRECONDITION_FAILED to a matching one on the fresh key;"
        + " single PUTs sign the payload", r.observed());
  }
}
