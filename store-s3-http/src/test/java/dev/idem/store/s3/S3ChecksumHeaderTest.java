package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Sha256;
import dev.idem.core.Window;
import dev.idem.core.proof.ProbeResult;
import dev.idem.core.proof.ProvenStore;
import dev.idem.core.proof.StoreMarker;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutStatus;
import dev.idem.store.s3.internal.auth.SigV4Signer;
import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.internal.client.S3Client.Condition;
import dev.idem.store.s3.internal.client.S3Exception;
import dev.idem.store.s3.testing.ChaosProxy;
import dev.idem.store.s3.testing.HeaderStrippingProxy;
import dev.idem.store.s3.testing.InterceptingHttpClient;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A single PUT carries its SHA-256 in {@code x-amz-checksum-sha256}, the payload {@code UNSIGNED-PAYLOAD},
 * only where the store's marker records that the server verifies that header (the {@code
 * put-checksum-sha256} probe); everywhere else it signs the payload hash as before. Either way a body
 * rewritten in transit is refused and nothing is stored: on S3Proxy, which verifies the header, through a
 * gateway that drops it, with a marker written before the probe existed, and on a bare store. The parts
 * of a multipart upload to this plain-http endpoint sign the SHA-256 the hash pass took of each, with the
 * store proven or not, and a part rewritten in transit is refused too.
 */
class S3ChecksumHeaderTest {
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-05T12:00:00Z"), ZoneOffset.UTC);
  private static final String KEY = RunSpec.of("orders", new Window(60, 60), 1).outputKey().toString();
  private static final String PROBE = "put-checksum-sha256";
  private static final int MIB = 1024 * 1024;
  /** Multipart above 5 MiB, in 5 MiB parts sent one at a time, so a flip at an offset lands in a known part. */
  private static final S3StoreOptions MULTIPART =
      S3StoreOptions.builder().multipartThreshold(5 * MIB).partSize(5 * MIB).uploadParallelism(1).build();
  private static S3ProxyServer s3;

  private String bucket;
  /** The publishes' PUT requests (those carrying idem's metadata), as the client sent them. */
  private final List<HttpRequest> publishes = new CopyOnWriteArrayList<>();
  /** The publishes' CreateMultipartUpload and UploadPart requests, as the client sent them. */
  private final List<HttpRequest> uploads = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void server() throws IOException {
    s3 = S3ProxyServer.shared();
  }

  @BeforeEach
  void bucket() throws IOException {
    bucket = s3.createBucket(false);
  }

  private S3ObjectStore store(URI endpoint) {
    return store(endpoint, S3StoreOptions.defaults());
  }

  private S3ObjectStore store(URI endpoint, S3StoreOptions options) {
    S3Location at = s3.location(bucket, "p").withEndpoint(endpoint, true);
    InterceptingHttpClient http = new InterceptingHttpClient(request -> {
      boolean publish = request.headers().firstValue("x-amz-meta-idem-sha256").isPresent();
      if (request.method().equals("PUT") && publish) {
        publishes.add(request);
      } else if (publish || InterceptingHttpClient.isPart(request) && request.uri().getPath().endsWith(KEY)) {
        uploads.add(request);
      }
    });
    return S3ObjectStore.open(S3ObjectStore.clientFor(at, s3.credentials()).httpClient(http).build(), at, options);
  }

  private static ProvenStore proven(S3ObjectStore store) {
    return ProvenStore.wrap(store, S3StoreProver.of(store), "idem test", CLOCK);
  }

  private static byte[] random(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  private ProbeResult recorded() throws IOException {
    byte[] marker = s3.client().getBytes(bucket, "p/" + StoreMarker.KEY, 16 * 1024).orElseThrow().bytes();
    return StoreMarker.parse(marker, bucket).probe(PROBE).orElseThrow();
  }

  private List<String> keys() throws IOException {
    return s3.client().listObjects(bucket, "", null, null, 1000).objects().stream().map(o -> o.key()).toList();
  }

  private byte[] stored() throws IOException {
    try (InputStream in = s3.client().get(bucket, "p/" + KEY).orElseThrow().body()) {
      return in.readAllBytes();
    }
  }

  private void assertCarriedInChecksumHeader(HttpRequest put, byte[] bytes) {
    assertEquals(SigV4Signer.UNSIGNED_PAYLOAD, put.headers().firstValue("x-amz-content-sha256").orElseThrow());
    assertEquals(Base64.getEncoder().encodeToString(HexFormat.of().parseHex(Sha256.of(bytes))),
        put.headers().firstValue(RequestBody.CHECKSUM_SHA256).orElseThrow());
  }

  private void assertSignedAsPayload(HttpRequest put, byte[] bytes) {
    assertEquals(Sha256.of(bytes), put.headers().firstValue("x-amz-content-sha256").orElseThrow());
    assertFalse(put.headers().firstValue(RequestBody.CHECKSUM_SHA256).isPresent());
  }

  /** The upload declared CRC32C, then sent its parts (of {@code bytes}, in order), each with its SHA-256 signed. */
  private void assertPartsSigned(byte[] bytes) {
    assertEquals("POST", uploads.get(0).method());
    assertEquals("CRC32C", uploads.get(0).headers().firstValue("x-amz-checksum-algorithm").orElseThrow());
    int parts = (bytes.length + 5 * MIB - 1) / (5 * MIB);
    assertEquals(1 + parts, uploads.size(), "the create and one request per part: " + uploads);
    for (int part = 1; part <= parts; part++) {
      HttpRequest put = uploads.get(part);
      assertTrue(InterceptingHttpClient.isPart(put, part), put.uri().toString());
      assertSignedAsPayload(put,
          java.util.Arrays.copyOfRange(bytes, (part - 1) * 5 * MIB, Math.min(bytes.length, part * 5 * MIB)));
      assertTrue(put.headers().firstValue(RequestBody.CHECKSUM_CRC32C).isPresent());
    }
  }

  private void assertNoUploadLeft() throws IOException {
    assertEquals(List.of(), s3.client().listMultipartUploads(bucket, "", null, null).uploads());
  }

  @Test
  void s3Proxy_probeHolds_singlePutsCarryTheirSha256InTheHeader() throws Exception {
    byte[] bytes = random(64 * 1024, 1);

    assertEquals(PutStatus.CREATED, proven(store(s3.endpoint())).putIfAbsent(KEY, Payload.ofBytes(bytes), "a").status());
    // A later process trusts the marker it reads, as the first trusted the one it created.
    assertEquals(PutStatus.IDENTICAL,
        proven(store(s3.endpoint())).putIfAbsent(KEY, Payload.ofBytes(bytes), "b").status());

    ProbeResult probe = recorded();
    assertTrue(probe.held(), probe.toString());
    assertFalse(probe.required());
    assertEquals("refused it (400 BadDigest), stored nothing, and accepted a matching one", probe.observed());
    assertEquals(2, publishes.size());
    publishes.forEach(put -> assertCarriedInChecksumHeader(put, bytes));
    assertArrayEquals(bytes, stored());
    assertEquals(List.of("p/" + StoreMarker.KEY, "p/" + KEY), keys().stream().sorted().toList());
  }

  @Test
  void gatewayDropsTheHeader_probeAbsent_singlePutsSignThePayload() throws Exception {
    byte[] bytes = random(64 * 1024, 2);
    try (HeaderStrippingProxy gateway = new HeaderStrippingProxy(s3, RequestBody.CHECKSUM_SHA256)) {
      assertEquals(PutStatus.CREATED,
          proven(store(gateway.endpoint())).putIfAbsent(KEY, Payload.ofBytes(bytes), "a").status());
      assertEquals(1, gateway.strippedCount(), "the probe's PUT with a wrong header, and nothing after it, carried one");
    }

    ProbeResult probe = recorded();
    assertFalse(probe.held(), probe.toString());
    assertFalse(probe.required());
    assertTrue(probe.observed().startsWith("accepted a body that does not match its x-amz-checksum-sha256"),
        probe.observed());
    assertEquals(1, publishes.size());
    assertSignedAsPayload(publishes.get(0), bytes);
    assertArrayEquals(bytes, stored());
    assertEquals(List.of("p/" + StoreMarker.KEY, "p/" + KEY), keys().stream().sorted().toList());
  }

  @Test
  void markerWrittenBeforeTheProbe_singlePutsSignThePayload() throws Exception {
    StoreMarker old = new StoreMarker("s3", "cas", Instant.EPOCH, "idem before the probe", List.of(
        ProbeResult.held("if-none-match", "a second PUT", true, "refused it (412)", "no-clobber publish")));
    s3.client().put(bucket, "p/" + StoreMarker.KEY, RequestBody.ofBytes(old.toBytes()), Condition.ifNoneMatch(), Map.of());
    byte[] bytes = random(1024, 3);

    assertEquals(PutStatus.CREATED, proven(store(s3.endpoint())).putIfAbsent(KEY, Payload.ofBytes(bytes), "a").status());

    assertEquals(1, publishes.size());
    assertSignedAsPayload(publishes.get(0), bytes);
  }

  @Test
  void bareStore_noMarkerVouches_singlePutsSignThePayload() throws Exception {
    byte[] bytes = random(1024, 4);
    try (S3ObjectStore bare = store(s3.endpoint())) {
      assertEquals(PutStatus.CREATED, bare.putIfAbsent(KEY, Payload.ofBytes(bytes), "a").status());
    }
    assertEquals(1, publishes.size());
    assertSignedAsPayload(publishes.get(0), bytes);
  }

  /**
   * A man in the middle who flips a byte of the body (he cannot re-sign) gets the PUT refused with nothing
   * stored, whichever way the SHA-256 travelled: S3Proxy checks a signed payload hash and a signed
   * checksum header alike.
   */
  @Test
  void bodyRewrittenInTransit_checksumHeader_refusedNothingStored() throws Exception {
    byte[] bytes = random(64 * 1024, 5);
    try (ChaosProxy mitm = new ChaosProxy(s3.endpoint())) {
      ProvenStore store = proven(store(mitm.endpoint()));
      store.requireWritable();
      mitm.flipRequestByteAt(20_000);

      S3Exception e = assertThrows(S3Exception.class, () -> store.putIfAbsent(KEY, Payload.ofBytes(bytes), "a"));

      assertTrue(mitm.flipped());
      assertEquals(400, e.status(), e.getMessage());
      assertEquals("BadDigest", e.code(), e.getMessage());
    }
    assertEquals(1, publishes.size());
    assertCarriedInChecksumHeader(publishes.get(0), bytes);
    assertEquals(List.of("p/" + StoreMarker.KEY), keys());
  }

  @Test
  void bodyRewrittenInTransit_signedPayload_refusedNothingStored() throws Exception {
    byte[] bytes = random(64 * 1024, 6);
    try (ChaosProxy mitm = new ChaosProxy(s3.endpoint()); S3ObjectStore bare = store(mitm.endpoint())) {
      mitm.flipRequestByteAt(20_000);

      S3Exception e = assertThrows(S3Exception.class, () -> bare.putIfAbsent(KEY, Payload.ofBytes(bytes), "a"));

      assertTrue(mitm.flipped());
      assertEquals(400, e.status(), e.getMessage());
      assertEquals("XAmzContentSHA256Mismatch", e.code(), e.getMessage());
    }
    assertEquals(1, publishes.size());
    assertSignedAsPayload(publishes.get(0), bytes);
    assertEquals(List.of(), keys());
  }

  // --- multipart: the parts of an upload to this plain-http endpoint

  @Test
  void s3Proxy_provenOrBare_partsSignTheSha256TheHashPassTook() throws Exception {
    byte[] bytes = random(11 * MIB, 7);

    assertEquals(PutStatus.CREATED,
        proven(store(s3.endpoint(), MULTIPART)).putIfAbsent(KEY, Payload.ofBytes(bytes), "a").status());

    assertTrue(recorded().held(), "single PUTs would carry the header; parts sign theirs all the same");
    assertPartsSigned(bytes);
    assertArrayEquals(bytes, stored());
    uploads.clear();
    assertEquals(PutStatus.IDENTICAL,
        proven(store(s3.endpoint(), MULTIPART)).putIfAbsent(KEY, Payload.ofBytes(bytes), "b").status());
    assertEquals(List.of(), uploads, "an identical publish uploads nothing");
    assertNoUploadLeft();
  }

  /**
   * A man in the middle who flips a byte of part 2 gets the part refused (its signed SHA-256, from the
   * hash pass, no longer matches), the upload aborted and nothing stored.
   */
  @Test
  void partRewrittenInTransit_refusedAbortedNothingStored() throws Exception {
    byte[] bytes = random(11 * MIB, 11);
    try (ChaosProxy mitm = new ChaosProxy(s3.endpoint()); S3ObjectStore bare = store(mitm.endpoint(), MULTIPART)) {
      mitm.flipRequestByteAt(6L * MIB);

      java.io.IOException e = assertThrows(java.io.IOException.class,
          () -> bare.putIfAbsent(KEY, Payload.ofBytes(bytes), "a"));

      assertTrue(mitm.flipped());
      assertTrue(e.getMessage().startsWith("part 2 of 3 (bytes 5242880-10485759) of s3://"), e.getMessage());
      S3Exception refusal = (S3Exception) e.getCause();
      assertEquals(400, refusal.status(), refusal.getMessage());
      assertEquals("XAmzContentSHA256Mismatch", refusal.code(), refusal.getMessage());
    }
    assertEquals(List.of(), keys());
    assertNoUploadLeft();
  }
}
