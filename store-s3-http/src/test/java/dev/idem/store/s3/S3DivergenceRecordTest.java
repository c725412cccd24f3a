package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Sha256;
import dev.idem.core.Window;
import dev.idem.core.scan.KeyVerdict;
import dev.idem.core.store.DivergenceRecord;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.PutStatus;
import dev.idem.store.s3.internal.client.RetryPolicy;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.testing.InterceptingHttpClient;
import dev.idem.store.s3.testing.InterceptingHttpClient.ErrorReply;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fact before the bytes (P8) on S3, against S3Proxy: a divergence is recorded by a create-only
 * marker before its evidence bytes are uploaded, so a publisher killed or refused while uploading them
 * (503 SlowDown on every retry, AccessDenied, a multipart upload cut short) still leaves the divergence
 * for the scan; where not even the marker can be written, the publish still ends DIVERGENT and says why.
 * Faults are answered in the server's place by {@link InterceptingHttpClient}, keyed on the request's
 * key, so everything else reaches the real server.
 */
class S3DivergenceRecordTest {
  private static final int MIB = 1024 * 1024;
  private static final byte[] FIRST = random(1000, 1);
  private static final byte[] OTHER = random(1200, 2);
  private static S3ProxyServer s3;

  private String bucket;

  @BeforeAll
  static void server() throws IOException {
    s3 = S3ProxyServer.shared();
  }

  @BeforeEach
  void bucket() throws IOException {
    bucket = s3.createBucket(false);
  }

  private static byte[] random(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static String key(long windowStart) {
    return RunSpec.of("orders", new Window(windowStart, 60), 1).outputKey().toString();
  }

  private S3ObjectStore open(S3StoreOptions options) {
    return S3ObjectStore.open(s3.location(bucket, "p/"), s3.credentials(), options);
  }

  /** A store whose requests {@code http} sends, retrying three times without waiting. */
  private S3ObjectStore open(InterceptingHttpClient http, S3StoreOptions options) {
    S3Client client = S3Client.builder(s3.endpoint(), S3ProxyServer.REGION, s3.credentials()).pathStyle(true)
        .httpClient(http).retry(new RetryPolicy(3, Duration.ZERO, Duration.ZERO)).build();
    return S3ObjectStore.open(client, s3.location(bucket, "p/"), options);
  }

  /** A request that writes divergent bytes as evidence (a PUT, or any request of its multipart upload). */
  private static boolean evidenceBytes(HttpRequest r) {
    return !r.method().equals("GET") && !r.method().equals("HEAD")
        && InterceptingHttpClient.path(r).matches(".*/_idem/evidence/.*![0-9a-f]{64}");
  }

  /** Any write under {@code _idem/evidence/}: markers and bytes. */
  private static boolean evidenceArea(HttpRequest r) {
    return r.method().equals("PUT") && InterceptingHttpClient.path(r).contains("/_idem/evidence/");
  }

  private static InterceptingHttpClient answering(Predicate<HttpRequest> which, ErrorReply reply, AtomicInteger count) {
    return InterceptingHttpClient.answering(r -> { }, r -> {
      if (which.test(r)) {
        count.incrementAndGet();
        return reply;
      }
      return null;
    });
  }

  private KeyHistory history(String key) throws IOException {
    List<KeyHistory> found = new ArrayList<>();
    try (S3ObjectStore fresh = open(S3StoreOptions.defaults())) {
      fresh.history("", h -> {
        if (h.key().equals(key)) {
          found.add(h);
        }
        return true;
      });
    }
    assertEquals(1, found.size(), found.toString());
    return found.get(0);
  }

  private boolean noUploadsLeft() throws IOException {
    return s3.client().listMultipartUploads(bucket, null, null, null).uploads().isEmpty();
  }

  @Test
  void putIfAbsent_evidenceBytesSlowDownOnEveryRetry_divergentBytesNotKeptAndTheScanSeesIt() throws IOException {
    String k = key(60);
    AtomicInteger refused = new AtomicInteger();
    try (S3ObjectStore plain = open(S3StoreOptions.defaults());
        S3ObjectStore st = open(answering(S3DivergenceRecordTest::evidenceBytes, new ErrorReply(503, "SlowDown"), refused),
            S3StoreOptions.defaults())) {
      plain.putIfAbsent(k, Payload.ofBytes(FIRST), "host-a");
      PutOutcome out = st.putIfAbsent(k, Payload.ofBytes(OTHER), "host-b");
      assertEquals(PutStatus.DIVERGENT, out.status());
      assertEquals(DivergenceRecord.BYTES_NOT_KEPT, out.record(), out.toString());
      assertNull(out.evidenceKey());
      assertTrue(out.recordFailure().startsWith("could not keep the divergent bytes at s3://" + bucket
          + "/p/_idem/evidence/" + k + "!" + Sha256.of(OTHER) + ": "), out.recordFailure());
      assertTrue(out.recordFailure().contains("SlowDown"), out.recordFailure());
      assertFalse(out.recordFailure().contains("\n"), out.recordFailure());
    }
    assertEquals(3, refused.get(), "every retry was refused");
    KeyVerdict v = KeyVerdict.of(history(k));
    assertTrue(v.divergent(), v.toString());
    assertEquals("DIVERGENT " + k + " writes=2 payloads=2", v.referenceLine());
    HistoryEntry attempt = v.entries().get(v.entries().size() - 1);
    assertEquals(HistoryEntry.Kind.DIVERGENT_ATTEMPT, attempt.kind());
    assertEquals("host-b", attempt.writer());
    assertEquals(OTHER.length, attempt.size());
    assertEquals(Sha256.of(FIRST), attempt.metSha256());
  }

  @Test
  void putIfAbsent_evidenceAreaDenied_divergentNotRecordedSayingWhy() throws IOException {
    String k = key(60);
    AtomicInteger refused = new AtomicInteger();
    try (S3ObjectStore plain = open(S3StoreOptions.defaults());
        S3ObjectStore st = open(answering(S3DivergenceRecordTest::evidenceArea, new ErrorReply(403, "AccessDenied"), refused),
            S3StoreOptions.defaults())) {
      plain.putIfAbsent(k, Payload.ofBytes(FIRST), "host-a");
      PutOutcome out = st.putIfAbsent(k, Payload.ofBytes(OTHER), "host-b");
      assertEquals(PutStatus.DIVERGENT, out.status());
      assertEquals(DivergenceRecord.NOT_RECORDED, out.record(), out.toString());
      assertTrue(out.recordFailure().startsWith("could not write the divergence marker s3://" + bucket
          + "/p/_idem/evidence/" + k + "!" + Sha256.of(OTHER) + "."), out.recordFailure());
      assertTrue(out.recordFailure().contains("AccessDenied"), out.recordFailure());
      assertEquals(Sha256.of(FIRST), out.stored().sha256());
    }
    assertEquals(1, refused.get(), "the marker only: no bytes are sent once the fact cannot be kept");
  }

  /**
   * A rolling deploy's SIGTERM while a multipart-sized attempt is uploaded as evidence: killed once its
   * parts are sent, before the upload completes (the publishing thread's last request of it).
   */
  @Test
  void putIfAbsent_killedDuringMultipartEvidence_theMarkerIsThereAndTheScanSeesIt() throws IOException {
    String k = key(120);
    byte[] large = random(11 * MIB, 3);
    S3StoreOptions multipart = S3StoreOptions.builder().multipartThreshold(5 * MIB).partSize(5 * MIB).build();
    AtomicInteger parts = new AtomicInteger();
    AtomicBoolean dead = new AtomicBoolean();
    InterceptingHttpClient dying = new InterceptingHttpClient(r -> {
      if (evidenceBytes(r) && InterceptingHttpClient.isPart(r)) {
        parts.incrementAndGet();
      }
      String q = r.uri().getRawQuery();
      if (evidenceBytes(r) && r.method().equals("POST") && q != null && q.startsWith("uploadId=")) {
        dead.set(true);
      }
      if (dead.get()) {
        throw new KilledHere(); // a dead process sends nothing more, not even the abort
      }
    });
    try (S3ObjectStore plain = open(multipart); S3ObjectStore st = open(dying, multipart)) {
      plain.putIfAbsent(k, Payload.ofBytes(random(11 * MIB, 4)), "host-a");
      assertThrows(KilledHere.class, () -> st.putIfAbsent(k, Payload.ofBytes(large), "host-b"));
    }
    assertEquals(3, parts.get(), "killed after the parts were sent");
    KeyVerdict v = KeyVerdict.of(history(k));
    assertTrue(v.divergent(), v.toString());
    assertEquals("DIVERGENT " + k + " writes=2 payloads=2", v.referenceLine());
    assertEquals(Sha256.of(large), v.entries().get(v.entries().size() - 1).sha256());
    assertFalse(noUploadsLeft(), "the killed upload is left for sweep");
  }

  @Test
  void putIfAbsent_multipartEvidenceSlowDownOnEveryRetry_bytesNotKeptUploadAborted() throws IOException {
    String k = key(180);
    S3StoreOptions multipart = S3StoreOptions.builder().multipartThreshold(5 * MIB).partSize(5 * MIB).build();
    AtomicInteger refused = new AtomicInteger();
    Predicate<HttpRequest> parts = r -> evidenceBytes(r) && InterceptingHttpClient.isPart(r);
    try (S3ObjectStore plain = open(multipart);
        S3ObjectStore st = open(answering(parts, new ErrorReply(503, "SlowDown"), refused), multipart)) {
      plain.putIfAbsent(k, Payload.ofBytes(random(6 * MIB, 5)), "host-a");
      PutOutcome out = st.putIfAbsent(k, Payload.ofBytes(random(6 * MIB, 6)), "host-b");
      assertEquals(DivergenceRecord.BYTES_NOT_KEPT, out.record(), out.toString());
    }
    assertTrue(refused.get() >= 3, "refused " + refused.get());
    assertTrue(noUploadsLeft(), "the evidence upload was aborted");
    assertTrue(KeyVerdict.of(history(k)).divergent());
  }

  /**
   * Each divergent attempt has its own marker, and the bytes of equal attempts are kept once: the scan
   * counts every attempt and the object they met, also once that object is deleted (retention keeps a
   * divergent key's evidence), and deleting the records removes markers and bytes.
   */
  @Test
  void history_markersPerAttemptAndTheObjectTheyMet_countedAlsoAfterTheObjectIsDeleted() throws IOException {
    String k = key(240);
    try (S3ObjectStore st = open(S3StoreOptions.defaults())) {
      st.putIfAbsent(k, Payload.ofBytes(FIRST), "host-a");
      PutOutcome b = st.putIfAbsent(k, Payload.ofBytes(OTHER), "host-b");
      PutOutcome c = st.putIfAbsent(k, Payload.ofBytes(OTHER), "host-c");
      assertEquals(b.evidenceKey(), c.evidenceKey());
      assertArrayEquals(OTHER, st.open(b.evidenceKey()).orElseThrow().readAllBytes());
      assertEquals("DIVERGENT " + k + " writes=3 payloads=2", KeyVerdict.of(history(k)).referenceLine());
      assertTrue(st.delete(k));
      assertEquals("DIVERGENT " + k + " writes=3 payloads=2", KeyVerdict.of(history(k)).referenceLine(),
          "the object the attempts met still counts");
      assertEquals(3, st.deleteRecords(k), "two markers and the bytes");
    }
    assertTrue(s3.client().listObjects(bucket, "p/_idem/evidence/", null, null, 10).objects().isEmpty());
  }

  @Test
  void putIfAbsent_keyTooLongForItsMarker_refusedBeforeAnythingIsWritten() throws IOException {
    // The object's key (944 bytes) fits in S3's 1024; its marker's (1057) does not.
    String prefix = "p/" + "x".repeat(KeyLayout.MAX_OBJECT_KEY_BYTES - KeyLayout.DIVERGENCE_OVERHEAD - 50) + "/";
    String k = key(60);
    assertTrue((prefix + k).length() < KeyLayout.MAX_OBJECT_KEY_BYTES);
    try (S3ObjectStore st = S3ObjectStore.open(s3.location(bucket, prefix), s3.credentials(), S3StoreOptions.defaults())) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> st.putIfAbsent(k, Payload.ofBytes(FIRST), "host-a"));
      assertTrue(e.getMessage().contains("too long to publish under prefix"), e.getMessage());
    }
    assertTrue(s3.client().listObjects(bucket, null, null, null, 10).objects().isEmpty(), "nothing written");
  }

  /** What a process killed at a request looks like from inside: no I/O error, nothing after it runs. */
  private static final class KilledHere extends Error {
    private static final long serialVersionUID = 1L;
  }
}
