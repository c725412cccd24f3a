package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.proof.ProbeResult;
import dev.idem.core.proof.ProvenStore;
import dev.idem.core.proof.StoreRefusedException;
import dev.idem.core.store.Payload;
import dev.idem.store.s3.internal.client.ObjectSummary;
import dev.idem.store.s3.testing.QuirkProxy;
import dev.idem.store.s3.testing.QuirkProxy.Quirk;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store probe against servers that answer as other S3 implementations do, each emulated on S3Proxy
 * by a gateway ({@link QuirkProxy}) so that every other answer is a real server's: an abort that deletes
 * the object at its key (Adobe S3Mock), a conditional completion answered 304 (S3Mock 4.12), an abort of
 * a finished upload answered 405 (s3rver), another reply root (moto). Each is refused with exit 8's
 * exception naming the guarantee, never an I/O error.
 */
class S3StoreProverQuirksTest {
  private static final String KEY = RunSpec.of("orders", new Window(1_726_000_000L, 60), 1).outputKey().toString();
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-02T14:00:00Z"), ZoneOffset.UTC);
  private static S3ProxyServer s3;

  @BeforeAll
  static void server() throws IOException {
    s3 = S3ProxyServer.shared();
  }

  private static ProvenStore proven(URI endpoint, String bucket, PointerMode mode) {
    S3Location at = s3.location(bucket, "p").withEndpoint(endpoint, true);
    S3ObjectStore store = S3ObjectStore.open(at, s3.credentials(), S3StoreOptions.builder().pointerMode(mode).build());
    return ProvenStore.wrap(store, S3StoreProver.of(store), "idem test", CLOCK);
  }

  private static Payload text(String s) {
    return Payload.ofBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  private static List<String> keys(String bucket) throws IOException {
    return s3.client().listObjects(bucket, "", null, null, 1000).objects().stream().map(ObjectSummary::key).toList();
  }

  /** Every probe's answer, by guarantee, through {@code endpoint}. */
  private static Map<String, ProbeResult> probe(URI endpoint, String bucket, PointerMode mode) throws IOException {
    S3ObjectStore store = S3ObjectStore.open(s3.location(bucket, "p").withEndpoint(endpoint, true), s3.credentials(),
        S3StoreOptions.builder().pointerMode(mode).build());
    return S3StoreProver.of(store).probe().stream().collect(Collectors.toMap(ProbeResult::guarantee,
        Function.identity()));
  }

  /**
   * Adobe S3Mock deletes the object at a key when an upload to that key is aborted, as a publisher that
   * lost a race does with its refused completion: refused. The if-match probe still meets its object,
   * so it is judged on a 412, not on the 404 of a key the abort emptied.
   */
  @Test
  void putIfAbsent_abortDeletesTheObjectAtItsKey_refusedNamingTheAbortGuarantee() throws Exception {
    String bucket = s3.createBucket(false);
    try (QuirkProxy proxy = new QuirkProxy(s3, Quirk.abortDeletesTheObject(s3))) {
      ProvenStore store = proven(proxy.endpoint(), bucket, PointerMode.CAS);

      StoreRefusedException e = assertThrows(StoreRefusedException.class, () -> store.putIfAbsent(KEY, text("a"), "w"));

      assertTrue(e.getMessage().matches("s3://" + bucket + "/p at " + proxy.endpoint() + " deletes the object at a"
          + " key when a multipart upload to that key is aborted \\(_idem/probe/[0-9a-f]{24}-abort was gone after"
          + " AbortMultipartUpload\\); refusing to write: a multipart publish that is refused .* aborts its upload,"
          + " and the object at the key must stay"), e.getMessage());
      assertEquals(List.of(), keys(bucket));
      Map<String, ProbeResult> probes = probe(proxy.endpoint(), bucket, PointerMode.CAS);
      assertEquals("MISSING", probes.get("abort-keeps-object").answer(), probes.toString());
      assertEquals("refused it (412)", probes.get("if-match").observed(), probes.toString());
      assertEquals("HELD", probes.get("if-none-match-multipart").answer(), probes.toString());
    }
  }

  /**
   * s3rver: If-None-Match ignored everywhere, and the abort of an upload that was completed answered
   * 405. The clean-up's error never replaces the verdict.
   */
  @Test
  void putIfAbsent_ifNoneMatchIgnoredAndCleanupAbortAnswers405_refusedNamingTheHeader() throws Exception {
    String bucket = s3.createBucket(false);
    AtomicInteger stripped = new AtomicInteger();
    try (QuirkProxy proxy = new QuirkProxy(s3, Quirk.strips(null, Set.of("If-None-Match"), stripped),
        Quirk.abortOfFinishedUploadAnswers(405))) {
      ProvenStore store = proven(proxy.endpoint(), bucket, PointerMode.LOG);

      StoreRefusedException e = assertThrows(StoreRefusedException.class, () -> store.putIfAbsent(KEY, text("a"), "w"));

      assertTrue(e.getMessage().contains(" ignores If-None-Match: * (a second create-only PUT of _idem/probe/"),
          e.getMessage());
      assertTrue(stripped.get() >= 2, "stripped " + stripped);
      assertEquals(List.of(), keys(bucket));
    }
  }

  /** Adobe S3Mock 4.12 answers a conditional completion onto an existing key with 304: refused, not an outage. */
  @Test
  void putIfAbsent_conditionalCompletionAnswered304_refusedNamingTheMultipartGuarantee() throws Exception {
    String bucket = s3.createBucket(false);
    try (QuirkProxy proxy = new QuirkProxy(s3, Quirk.conditionalCompletionAnswers(304, s3))) {
      ProvenStore store = proven(proxy.endpoint(), bucket, PointerMode.LOG);

      StoreRefusedException e = assertThrows(StoreRefusedException.class, () -> store.putIfAbsent(KEY, text("a"), "w"));

      assertTrue(e.getMessage().contains(" does not refuse a CompleteMultipartUpload with If-None-Match: * onto the"
          + " existing _idem/probe/"), e.getMessage());
      assertTrue(e.getMessage().contains("answered 304, not 412"), e.getMessage());
      assertEquals(List.of(), keys(bucket));
      assertEquals(List.of(), s3.client().listMultipartUploads(bucket, "", null, null).uploads());
    }
  }

  /**
   * A server that ignores If-None-Match on completion and names its reply's root otherwise (moto spells
   * it CompleteMultipartUploadResponse): refused for the header, not for the reply's spelling.
   */
  @Test
  void putIfAbsent_completionIgnoresIfNoneMatchAndRootSpelledOtherwise_refusedNamingTheHeader() throws Exception {
    String bucket = s3.createBucket(false);
    try (QuirkProxy proxy = new QuirkProxy(s3, Quirk.strips("POST", Set.of("If-None-Match"), new AtomicInteger()),
        Quirk.renamesRoot("CompleteMultipartUploadResult", "CompleteMultipartUploadResponse"))) {
      ProvenStore store = proven(proxy.endpoint(), bucket, PointerMode.LOG);

      StoreRefusedException e = assertThrows(StoreRefusedException.class, () -> store.putIfAbsent(KEY, text("a"), "w"));

      assertTrue(e.getMessage().contains(" ignores If-None-Match: * on CompleteMultipartUpload (a completion onto the"
          + " existing _idem/probe/"), e.getMessage());
      assertEquals(List.of(), keys(bucket));
    }
  }
}
