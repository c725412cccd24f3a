package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.proof.ProbeResult;
import dev.idem.core.proof.ProvenStore;
import dev.idem.core.proof.StoreMarker;
import dev.idem.core.proof.StoreRefusedException;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutStatus;
import dev.idem.core.testing.Race;
import dev.idem.store.s3.internal.client.ObjectSummary;
import dev.idem.store.s3.internal.client.ObjectVersion;
import dev.idem.store.s3.testing.HeaderStrippingProxy;
import dev.idem.store.s3.testing.OnEachS3Server;
import dev.idem.store.s3.testing.S3Implementation;
import dev.idem.store.s3.testing.S3TestServer;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;

/**
 * A store proves itself before idem writes: against each real S3 implementation, and through a gateway
 * of the tests' own in front of it that strips conditional headers, as servers that ignore them behave.
 * Other servers' answers emulated on S3Proxy: {@link S3StoreProverQuirksTest}.
 */
@OnEachS3Server
class S3StoreProverTest {
  private static final String KEY = RunSpec.of("orders", new Window(1_726_000_000L, 60), 1).outputKey().toString();
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-02T14:00:00Z"), ZoneOffset.UTC);
  @Parameter
  S3Implementation implementation;

  private S3TestServer s3;

  @BeforeEach
  void server() throws IOException {
    s3 = implementation.shared();
  }

  private ProvenStore proven(URI endpoint, String bucket, PointerMode mode) {
    S3Location at = s3.location(bucket, "p").withEndpoint(endpoint, true);
    S3ObjectStore store = S3ObjectStore.open(at, s3.credentials(), S3StoreOptions.builder().pointerMode(mode).build());
    return ProvenStore.wrap(store, S3StoreProver.of(store), "idem test", CLOCK);
  }

  private static Payload text(String s) {
    return Payload.ofBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  private List<String> keys(String bucket) throws IOException {
    return s3.client().listObjects(bucket, "", null, null, 1000).objects().stream().map(ObjectSummary::key).toList();
  }

  private StoreMarker marker(String bucket) throws IOException {
    return StoreMarker.parse(s3.client().getBytes(bucket, "p/" + StoreMarker.KEY, 16 * 1024).orElseThrow().bytes(), bucket);
  }

  @Test
  void putIfAbsent_serverIgnoresIfNoneMatch_refusedNamingTheHeaderAndNothingWritten() throws Exception {
    String bucket = s3.createBucket(false);
    try (HeaderStrippingProxy proxy = new HeaderStrippingProxy(s3, "If-None-Match")) {
      ProvenStore store = proven(proxy.endpoint(), bucket, PointerMode.LOG);

      StoreRefusedException e = assertThrows(StoreRefusedException.class, () -> store.putIfAbsent(KEY, text("a"), "w"));

      assertTrue(e.getMessage().matches("s3://" + bucket + "/p at " + proxy.endpoint() + " ignores If-None-Match: \\*"
          + " \\(a second create-only PUT of _idem/probe/[0-9a-f]{24} succeeded\\); refusing to write: idem's"
          + " no-clobber publish depends on it"), e.getMessage());
      assertTrue(proxy.strippedCount() >= 2, "the proxy stripped " + proxy.strippedCount() + " headers");
      assertEquals(List.of(), keys(bucket));
      // A delete relies on no probed guarantee: on a store without a marker it neither probes nor marks.
      assertFalse(store.delete(KEY));
      assertEquals(List.of(), keys(bucket));
    }
  }

  @Test
  void putIfAbsent_serverIgnoresPartChecksums_recordedNotRequiredAndPublished() throws Exception {
    String bucket = s3.createBucket(true);
    try (HeaderStrippingProxy proxy = new HeaderStrippingProxy(s3, "x-amz-checksum-crc32c")) {
      ProvenStore store = proven(proxy.endpoint(), bucket, PointerMode.LOG);

      assertEquals(PutStatus.CREATED, store.putIfAbsent(KEY, text("a"), "w").status());

      ProbeResult probe = marker(bucket).probes().stream().filter(p -> p.guarantee().equals("part-checksum-crc32c"))
          .findFirst().orElseThrow();
      assertFalse(probe.held(), probe.toString());
      assertFalse(probe.required());
      assertTrue(probe.observed().startsWith("accepted it"), probe.observed());
      assertTrue(proxy.strippedCount() >= 2, "the proxy stripped " + proxy.strippedCount() + " headers");
      assertEquals(List.of(), s3.client().listMultipartUploads(bucket, "", null, null).uploads());
    }
  }

  @Test
  void putIfAbsent_serverIgnoresIfNoneMatchOnlyOnMultipartCompletion_refused() throws Exception {
    String bucket = s3.createBucket(false);
    try (HeaderStrippingProxy proxy = HeaderStrippingProxy.onMethod(s3, "POST", "If-None-Match")) {
      ProvenStore store = proven(proxy.endpoint(), bucket, PointerMode.LOG);

      StoreRefusedException e = assertThrows(StoreRefusedException.class, () -> store.putIfAbsent(KEY, text("a"), "w"));

      assertTrue(e.getMessage().contains(" ignores If-None-Match: * on CompleteMultipartUpload (a completion onto the"
          + " existing _idem/probe/"), e.getMessage());
      assertEquals(1, proxy.strippedCount());
      assertEquals(List.of(), keys(bucket));
      assertEquals(List.of(), s3.client().listMultipartUploads(bucket, "", null, null).uploads());
    }
  }

  @Test
  void compareAndSetPointer_casModeServerIgnoresIfMatch_refusedNamingTheHeader() throws Exception {
    String bucket = s3.createBucket(false);
    try (HeaderStrippingProxy proxy = new HeaderStrippingProxy(s3, "If-Match")) {
      ProvenStore store = proven(proxy.endpoint(), bucket, PointerMode.CAS);

      StoreRefusedException e = assertThrows(StoreRefusedException.class, () -> store.putIfAbsent(KEY, text("a"), "w"));

      assertTrue(e.getMessage().contains(" ignores If-Match (a PUT of _idem/probe/"), e.getMessage());
      assertTrue(e.getMessage().contains("refusing to write: the cas pointer mode depends on it"), e.getMessage());
      assertEquals(List.of(), keys(bucket));
    }
  }

  @Test
  void putIfAbsent_logModeServerIgnoresIfMatch_acceptedAndAnswerRecorded() throws Exception {
    String bucket = s3.createBucket(true);
    try (HeaderStrippingProxy proxy = new HeaderStrippingProxy(s3, "If-Match")) {
      ProvenStore store = proven(proxy.endpoint(), bucket, PointerMode.LOG);

      assertEquals(PutStatus.CREATED, store.putIfAbsent(KEY, text("a"), "w").status());

      StoreMarker m = marker(bucket);
      assertEquals("log", m.pointerMode());
      assertEquals("HELD", m.probe("if-none-match").orElseThrow().answer());
      assertEquals("ABSENT", m.probe("if-match").orElseThrow().answer());
      assertEquals(List.of("p/" + StoreMarker.KEY, "p/" + KEY), keys(bucket));
    }
  }

  /**
   * The marker records each probe's answer as the server gives it, on a versioned bucket: every guarantee
   * held on S3Proxy; moto verifies neither a part's {@code x-amz-checksum-crc32c} nor a PUT's {@code
   * x-amz-checksum-sha256} (recorded, not required), and lets racing creates all succeed, which a
   * versioned bucket lets publishes see (recorded, not required there), so those three are absent there.
   * Adobe S3Mock deletes the object at a key when an upload to it is aborted, so it is refused, naming that.
   */
  @Test
  void putIfAbsent_realServer_markerRecordsEachProbesAnswerAndProbeKeyRemoved() throws Exception {
    String bucket = s3.createBucket(true);
    ProvenStore store = proven(s3.endpoint(), bucket, PointerMode.CAS);

    if (implementation == S3Implementation.S3MOCK) {
      StoreRefusedException e = assertThrows(StoreRefusedException.class, () -> store.putIfAbsent(KEY, text("a"), "w"));
      assertTrue(e.getMessage().contains(" deletes the object at a key when a multipart upload to that key is aborted"),
          e.getMessage());
      // Its ListObjectsV2 still lists the probe's deleted scratch keys (their current version is a delete
      // marker, ServerGaps); nothing else is there.
      assertEquals(List.of(), keys(bucket).stream().filter(k -> !k.startsWith("p/_idem/probe/")).toList());
      return;
    }
    assertEquals(PutStatus.CREATED, store.putIfAbsent(KEY, text("a"), "w").status());

    StoreMarker m = marker(bucket);
    assertEquals("s3", m.kind());
    assertEquals("cas", m.pointerMode());
    assertEquals("idem test", m.createdBy());
    assertEquals(List.of("if-none-match", "if-match", "if-none-match-multipart", "abort-keeps-object",
        "part-checksum-crc32c", "put-checksum-sha256", "if-none-match-atomic"),
        m.probes().stream().map(p -> p.guarantee()).toList());
    assertEquals(implementation == S3Implementation.MOTO
        ? List.of("HELD", "HELD", "HELD", "HELD", "ABSENT", "ABSENT", "ABSENT")
        : List.of("HELD", "HELD", "HELD", "HELD", "HELD", "HELD", "HELD"), m.probes().stream().map(p -> p.answer()).toList());
    assertEquals(List.of(), s3.client().listMultipartUploads(bucket, "", null, null).uploads());
    assertEquals(List.of("p/" + StoreMarker.KEY, "p/" + KEY), keys(bucket));
  }

  /**
   * On an unversioned bucket nothing shows a publish that a racing one replaced, so a server whose racing
   * creates all succeed is refused there, naming the guarantee, with nothing written: moto (its
   * completions race within the probe's first round nearly every time, and the probe races up to six times).
   * S3Proxy's are atomic as far as the probe can tell: held, and required on this bucket.
   */
  @Test
  void putIfAbsent_unversionedBucket_refusedWhereRacingCreatesAllSucceed() throws Exception {
    String bucket = s3.createBucket(false);
    ProvenStore store = proven(s3.endpoint(), bucket, PointerMode.CAS);

    if (implementation == S3Implementation.MOTO) {
      StoreRefusedException e = assertThrows(StoreRefusedException.class, () -> store.putIfAbsent(KEY, text("a"), "w"));
      assertTrue(e.getMessage().contains(" does not apply If-None-Match: * atomically (if-none-match-atomic): 2 of 2"
          + " create-only "), e.getMessage());
      assertTrue(e.getMessage().contains("their replies named no version (an unversioned bucket)"), e.getMessage());
      assertEquals(List.of(), keys(bucket));
      assertEquals(List.of(), s3.client().listMultipartUploads(bucket, "", null, null).uploads());
      return;
    }
    assertEquals(PutStatus.CREATED, store.putIfAbsent(KEY, text("a"), "w").status());
    ProbeResult race = marker(bucket).probe("if-none-match-atomic").orElseThrow();
    assertEquals("HELD", race.answer(), race.toString());
    assertTrue(race.required(), "required on an unversioned bucket: " + race);
    assertEquals(List.of("p/" + StoreMarker.KEY, "p/" + KEY), keys(bucket));
  }

  @Test
  void requireWritable_markerPresent_trustedWithoutProbingAgain() throws Exception {
    String bucket = s3.createBucket(true);
    proven(s3.endpoint(), bucket, PointerMode.LOG).requireWritable();
    try (HeaderStrippingProxy proxy = new HeaderStrippingProxy(s3, "If-None-Match")) {
      // Through a gateway that would fail the probe: the marker is trusted, so no probe runs.
      ProvenStore later = proven(proxy.endpoint(), bucket, PointerMode.LOG);
      assertEquals(marker(bucket), later.requireWritable());
      assertEquals(0, proxy.strippedCount());
    }
  }

  @Test
  void writesAndPointerReads_markerNamesOtherPointerMode_refused() throws Exception {
    String bucket = s3.createBucket(true);
    proven(s3.endpoint(), bucket, PointerMode.CAS).requireWritable();
    ProvenStore logWriter = proven(s3.endpoint(), bucket, PointerMode.LOG);

    StoreRefusedException w = assertThrows(StoreRefusedException.class,
        () -> logWriter.putIfAbsent(KEY, text("a"), "w"));
    StoreRefusedException r = assertThrows(StoreRefusedException.class, () -> logWriter.readPointer("orders"));

    assertTrue(w.getMessage().startsWith("s3://" + bucket + "/p at " + s3.endpoint() + " uses pointer mode cas (its marker s3://"
        + bucket + "/p/_idem/store, created 2026-12-02T14:00:00Z by idem test), this process is configured for log"),
        w.getMessage());
    assertEquals(w.getMessage(), r.getMessage());
    assertEquals(List.of("p/" + StoreMarker.KEY), keys(bucket));
  }

  @Test
  void requireWritable_racingFirstWriters_oneMarkerVersionAndAllTrustIt() throws Exception {
    String bucket = s3.createBucket(true);
    List<StoreMarker> trusted = Race.run(6, i -> proven(s3.endpoint(), bucket, PointerMode.LOG).requireWritable());

    StoreMarker stored = marker(bucket);
    trusted.forEach(m -> assertEquals(stored, m));
    List<ObjectVersion> versions = s3.client().listVersions(bucket, "p/" + StoreMarker.KEY, null, null, 1000).versions();
    assertEquals(1, versions.size(), versions.toString());
  }

  @Test
  void readsOnly_freshBucket_writeNothing() throws Exception {
    String bucket = s3.createBucket(true);
    ProvenStore store = proven(s3.endpoint(), bucket, PointerMode.CAS);

    assertTrue(store.readPointer("orders").isEmpty());
    assertFalse(store.exists(KEY));
    assertTrue(store.stat(KEY).isEmpty());
    assertTrue(store.history("", h -> true));
    assertTrue(store.list("", o -> true));
    assertEquals(List.of(), store.sweep(java.time.Duration.ZERO, true));

    assertEquals(List.of(), s3.client().listVersions(bucket, "", null, null, 1000).versions());
  }

  @Test
  void environment_realServer_reportsEndpointVersioningCredentialsAndSkewWithoutSecrets() throws Exception {
    String bucket = s3.createBucket(true);
    S3ObjectStore store = S3ObjectStore.open(s3.location(bucket, "p"), s3.credentials(), S3StoreOptions.defaults());

    Map<String, String> env = S3StoreProver.of(store).environment();

    assertEquals(List.of("store", "endpoint", "region", "addressing", "pointer_mode", "versioning", "credentials",
        "clock_skew"), List.copyOf(env.keySet()));
    assertEquals(s3.endpoint().toString(), env.get("endpoint"));
    assertEquals("path-style", env.get("addressing"));
    assertEquals("Enabled", env.get("versioning"));
    assertEquals("supplied by the application", env.get("credentials"));
    assertTrue(env.get("clock_skew").contains("server Date "), env.get("clock_skew"));
    assertFalse(env.toString().contains(S3TestServer.SECRET_KEY), env.toString());
  }

  @Test
  void skew_serverAheadBehindOrWithinASecond_describedInSeconds() {
    Instant local = Instant.parse("2026-12-02T14:00:00.700Z");
    assertTrue(S3StoreProver.skew(Instant.parse("2026-12-02T14:00:01Z"), local).startsWith("none measurable"));
    assertTrue(S3StoreProver.skew(Instant.parse("2026-12-02T14:05:00Z"), local).startsWith("server 300 s ahead"));
    assertTrue(S3StoreProver.skew(Instant.parse("2026-12-02T13:59:50Z"), local).startsWith("server 10 s behind"));
  }
}
