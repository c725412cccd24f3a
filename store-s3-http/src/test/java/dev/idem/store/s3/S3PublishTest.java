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
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.PutStatus;
import dev.idem.store.s3.internal.client.ObjectHead;
import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.internal.client.RetryPolicy;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.testing.ChaosProxy;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Create-only publish against a real S3 server (S3Proxy): every outcome, multipart, and broken networks. */
class S3PublishTest {
  private static final int MIB = 1024 * 1024;
  private static S3ProxyServer s3;

  private String bucket;
  private S3ObjectStore store;

  @BeforeAll
  static void server() throws IOException {
    s3 = S3ProxyServer.shared();
  }

  @BeforeEach
  void bucket() throws IOException {
    bucket = s3.createBucket(true);
    store = open(S3StoreOptions.defaults());
  }

  private S3ObjectStore open(S3StoreOptions options) {
    return S3ObjectStore.open(s3.location(bucket, "p"), s3.credentials(), options);
  }

  private static String key(long windowStart) {
    return RunSpec.of("orders", new Window(windowStart, 60), 1).outputKey().toString();
  }

  private static Payload text(String s) {
    return Payload.ofBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] random(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  private byte[] read(S3ObjectStore st, String key) throws IOException {
    try (InputStream in = st.open(key).orElseThrow()) {
      return in.readAllBytes();
    }
  }

  /** The bucket keys under {@code p/_idem/evidence/}, in key order. */
  private List<String> evidenceKeys() throws IOException {
    return s3.client().listObjects(bucket, "p/_idem/evidence/", null, null, 1000).objects().stream()
        .map(o -> o.key()).toList();
  }

  private ObjectHead head(String objectKey) throws IOException {
    return s3.client().head(bucket, objectKey, null).orElseThrow();
  }

  // --- putIfAbsent outcomes

  @Test
  void putIfAbsent_new_createdWithMetadata() throws IOException {
    PutOutcome out = store.putIfAbsent(key(60), text("alpha"), "host-a:1");
    assertEquals(PutStatus.CREATED, out.status());
    ObjectHead h = head("p/" + key(60));
    assertEquals(Sha256.of("alpha".getBytes(StandardCharsets.UTF_8)), h.meta("idem-sha256"));
    assertEquals("host-a:1", h.meta("idem-writer"));
    assertEquals(out.stored().publishedAt().toString(), h.meta("idem-published"));
  }

  @Test
  void exists_afterPublish_answersFromCacheWithoutRequest() throws IOException {
    store.putIfAbsent(key(60), text("alpha"), "host-a");
    s3.client().delete(bucket, "p/" + key(60));
    assertTrue(store.exists(key(60)), "a key this process published is known to exist");
    try (S3ObjectStore fresh = open(S3StoreOptions.defaults())) {
      assertFalse(fresh.exists(key(60)), "another process asks the server");
    }
  }

  @Test
  void putIfAbsent_sameBytes_identicalStoredUntouched() throws IOException {
    store.putIfAbsent(key(60), text("alpha"), "host-a");
    String etag = head("p/" + key(60)).etag();
    PutOutcome again = store.putIfAbsent(key(60), text("alpha"), "host-b");
    assertEquals(PutStatus.IDENTICAL, again.status());
    assertEquals("host-a", again.stored().writer());
    assertEquals(etag, head("p/" + key(60)).etag());
  }

  @Test
  void putIfAbsent_differentBytes_divergentWithEvidenceBytes() throws IOException {
    store.putIfAbsent(key(60), text("alpha"), "host-a");
    PutOutcome out = store.putIfAbsent(key(60), text("beta"), "host-b");
    assertEquals(PutStatus.DIVERGENT, out.status());
    String betaSha = Sha256.of("beta".getBytes(StandardCharsets.UTF_8));
    assertEquals("_idem/evidence/" + key(60) + "!" + betaSha, out.evidenceKey());
    assertArrayEquals("beta".getBytes(StandardCharsets.UTF_8), read(store, out.evidenceKey()));
    ObjectHead ev = head("p/" + out.evidenceKey());
    assertEquals("host-b", ev.meta("idem-writer"));
    assertEquals(betaSha, ev.meta("idem-sha256"));
    assertArrayEquals("alpha".getBytes(StandardCharsets.UTF_8), read(store, key(60)), "P2");
  }

  @Test
  void putIfAbsent_divergentWithoutEvidenceBytes_markerKeepsHashAndSize() throws IOException {
    S3ObjectStore lean = open(S3StoreOptions.builder().keepEvidenceBytes(false).build());
    lean.putIfAbsent(key(60), text("alpha"), "host-a");
    PutOutcome out = lean.putIfAbsent(key(60), text("beta!"), "host-b");
    assertEquals(PutStatus.DIVERGENT, out.status());
    assertNull(out.evidenceKey());
    String sha = Sha256.of("beta!".getBytes(StandardCharsets.UTF_8));
    List<String> evidence = evidenceKeys();
    assertEquals(1, evidence.size(), evidence.toString());
    assertTrue(evidence.get(0).matches("p/_idem/evidence/" + key(60) + "!" + sha + "\\.[0-9a-f]{32}"), evidence.toString());
    ObjectHead marker = head(evidence.get(0));
    assertEquals(0, marker.size());
    assertEquals("5", marker.meta("idem-size"));
    assertEquals(Sha256.of("alpha".getBytes(StandardCharsets.UTF_8)), marker.meta("idem-stored-sha256"));
  }

  @Test
  void putIfAbsent_reservedKey_rejectedNothingWritten() throws IOException {
    assertThrows(IllegalArgumentException.class, () -> store.putIfAbsent("_idem/evidence/x", text("x"), "host-a"));
    assertTrue(s3.client().listObjects(bucket, null, null, null, 10).objects().isEmpty());
  }

  @Test
  void putIfAbsent_overForeignObject_comparedByContentHash() throws IOException {
    s3.client().put(bucket, "p/legacy/state.json", RequestBody.ofBytes("{}".getBytes(StandardCharsets.UTF_8)),
        null, Map.of());
    assertEquals(PutStatus.IDENTICAL, store.putIfAbsent("legacy/state.json", text("{}"), "host-a").status());
    PutOutcome other = store.putIfAbsent("legacy/state.json", text("{\"a\":1}"), "host-a");
    assertEquals(PutStatus.DIVERGENT, other.status());
    assertEquals(Sha256.of("{}".getBytes(StandardCharsets.UTF_8)), other.stored().sha256());
    assertNull(other.stored().writer());
    ObjectInfo info = store.stat("legacy/state.json").orElseThrow();
    assertEquals(Sha256.of("{}".getBytes(StandardCharsets.UTF_8)), info.sha256(), "stat hashes foreign objects");
  }

  @Test
  void putIfAbsent_payloadChangedUnderUpload_refusedNothingPublished() throws IOException {
    Payload lying = new Payload() {
      @Override
      public long size() {
        return 5;
      }

      @Override
      public String sha256() {
        return Sha256.of("alpha".getBytes(StandardCharsets.UTF_8));
      }

      @Override
      public InputStream open() {
        return new ByteArrayInputStream("alphA".getBytes(StandardCharsets.UTF_8));
      }
    };
    assertThrows(Payload.ChangedWhileReadingException.class, () -> store.putIfAbsent(key(60), lying, "host-a"));
    assertTrue(s3.client().listObjects(bucket, null, null, null, 10).objects().isEmpty());
  }

  // --- multipart

  @Test
  void putIfAbsent_aboveThreshold_multipartWithFixedPartsAndStreamedFile(@TempDir Path dir) throws IOException {
    S3ObjectStore mp = open(S3StoreOptions.builder().multipartThreshold(5 * MIB).partSize(5 * MIB).build());
    byte[] bytes = random(12 * MIB + 17, 1);
    Path file = Files.write(dir.resolve("payload.bin"), bytes);
    PutOutcome out = mp.putIfAbsent(key(60), Payload.ofFile(file), "host-a");
    assertEquals(PutStatus.CREATED, out.status());
    ObjectHead h = head("p/" + key(60));
    assertTrue(h.etag().endsWith("-3\""), "three parts of 5 MiB: " + h.etag());
    assertEquals(Sha256.of(bytes), h.meta("idem-sha256"));
    assertArrayEquals(bytes, read(mp, key(60)));
    assertEquals(PutStatus.IDENTICAL, mp.putIfAbsent(key(60), Payload.ofBytes(bytes), "host-b").status());
    assertTrue(s3.client().listMultipartUploads(bucket, null, null, null).uploads().isEmpty(), "no upload left");
  }

  @Test
  void putIfAbsent_sameBytesTwoKeys_sameMultipartEtag() throws IOException {
    S3ObjectStore mp = open(S3StoreOptions.builder().multipartThreshold(5 * MIB).partSize(5 * MIB).build());
    byte[] bytes = random(11 * MIB, 2);
    mp.putIfAbsent(key(60), Payload.ofBytes(bytes), "host-a");
    mp.putIfAbsent(key(120), Payload.ofBytes(bytes), "host-b");
    assertEquals(head("p/" + key(60)).etag(), head("p/" + key(120)).etag());
  }

  @Test
  void putIfAbsent_multipartDivergent_evidenceUploadedAndLoserAborted() throws IOException {
    S3ObjectStore mp = open(S3StoreOptions.builder().multipartThreshold(5 * MIB).partSize(5 * MIB).build());
    mp.putIfAbsent(key(60), Payload.ofBytes(random(6 * MIB, 3)), "host-a");
    byte[] other = random(6 * MIB, 4);
    PutOutcome out = mp.putIfAbsent(key(60), Payload.ofBytes(other), "host-b");
    assertEquals(PutStatus.DIVERGENT, out.status());
    assertArrayEquals(other, read(mp, out.evidenceKey()));
    assertTrue(s3.client().listMultipartUploads(bucket, null, null, null).uploads().isEmpty(),
        "the losing upload was aborted");
  }

  // --- broken networks

  @Test
  void putIfAbsent_replyLost_retryRecognisesOwnWriteAsCreated() throws IOException {
    try (ChaosProxy proxy = new ChaosProxy(s3.endpoint());
        S3ObjectStore viaProxy = S3ObjectStore.open(
            S3Client.builder(proxy.endpoint(), S3ProxyServer.REGION, s3.credentials()).pathStyle(true)
                .sleeper(d -> { }).build(),
            s3.location(bucket, "p"), S3StoreOptions.defaults())) {
      proxy.dropReplies(1);
      PutOutcome out = viaProxy.putIfAbsent(key(60), text("alpha"), "host-a");
      assertEquals(1, proxy.repliesDropped());
      assertEquals(PutStatus.CREATED, out.status(), "the 412 met this call's own earlier write");
      assertEquals(PutStatus.IDENTICAL, store.putIfAbsent(key(60), text("alpha"), "host-b").status());
    }
  }

  @Test
  void putIfAbsent_connectionCutMidBody_ioErrorNothingPublished() throws IOException {
    try (ChaosProxy proxy = new ChaosProxy(s3.endpoint());
        S3ObjectStore viaProxy = S3ObjectStore.open(
            S3Client.builder(proxy.endpoint(), S3ProxyServer.REGION, s3.credentials()).pathStyle(true)
                .retry(new RetryPolicy(3, Duration.ZERO, Duration.ZERO)).build(),
            s3.location(bucket, "p"), S3StoreOptions.defaults())) {
      proxy.cutRequestsAfter(64 * 1024);
      IOException e = assertThrows(IOException.class,
          () -> viaProxy.putIfAbsent(key(60), Payload.ofBytes(random(MIB, 5)), "host-a"));
      assertTrue(e.getMessage().contains("after 3 attempts"), e.getMessage());
      assertFalse(e.getMessage().contains(S3ProxyServer.SECRET_KEY));
    }
    assertFalse(store.exists(key(60)), "nothing half-published");
    assertEquals(PutStatus.CREATED, store.putIfAbsent(key(60), Payload.ofBytes(random(MIB, 5)), "host-a").status());
  }

  @Test
  void putIfAbsent_connectionCutMidPart_nothingPublishedUploadSwept() throws IOException {
    try (ChaosProxy proxy = new ChaosProxy(s3.endpoint());
        S3ObjectStore viaProxy = S3ObjectStore.open(
            S3Client.builder(proxy.endpoint(), S3ProxyServer.REGION, s3.credentials()).pathStyle(true)
                .retry(new RetryPolicy(2, Duration.ZERO, Duration.ZERO)).build(),
            s3.location(bucket, "p"), S3StoreOptions.builder().multipartThreshold(5 * MIB).partSize(5 * MIB).build())) {
      proxy.cutRequestsAfter(7 * MIB);
      assertThrows(IOException.class, () -> viaProxy.putIfAbsent(key(60), Payload.ofBytes(random(11 * MIB, 6)), "h"));
    }
    assertFalse(store.exists(key(60)), "nothing half-published");
    List<String> swept = store.sweep(Duration.ZERO, false);
    assertEquals(1, swept.size(), "the abort could not get through; sweep removes the upload: " + swept);
    assertTrue(swept.get(0).startsWith("aborted incomplete upload of " + key(60)), swept.get(0));
    assertTrue(s3.client().listMultipartUploads(bucket, null, null, null).uploads().isEmpty());
  }

  @Test
  void sweep_dryRun_reportsButKeeps() throws IOException {
    String id = s3.client().createMultipartUpload(bucket, "p/" + key(60), Map.of());
    List<String> lines = store.sweep(Duration.ZERO, true);
    assertEquals(List.of("would abort incomplete upload of " + key(60) + " (upload " + id + ", started "
        + s3.client().listMultipartUploads(bucket, null, null, null).uploads().get(0).initiated() + ")"), lines);
    assertEquals(List.of(), store.sweep(Duration.ofHours(1), false), "too young to sweep");
    assertEquals(1, s3.client().listMultipartUploads(bucket, null, null, null).uploads().size());
  }

  @Test
  void putIfAbsent_manyThreadsOneKey_exactlyOneCreated() throws Exception {
    int n = 16;
    List<Thread> threads = new ArrayList<>();
    List<PutOutcome> outs = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
    java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
    for (int i = 0; i < n; i++) {
      int w = i;
      Thread t = new Thread(() -> {
        try {
          go.await();
          outs.add(store.putIfAbsent(key(600), text("payload-" + (w % 2)), "writer-" + w));
        } catch (Throwable e) {
          errors.add(e);
        }
      });
      t.start();
      threads.add(t);
    }
    go.countDown();
    for (Thread t : threads) {
      t.join(120_000);
    }
    assertEquals(List.of(), errors);
    assertEquals(1, outs.stream().filter(o -> o.status() == PutStatus.CREATED).count(), outs.toString());
    String winner = outs.stream().filter(o -> o.status() == PutStatus.CREATED).findFirst().orElseThrow().attemptSha256();
    for (PutOutcome o : outs) {
      assertEquals(winner, o.stored().sha256());
      if (o.attemptSha256().equals(winner)) {
        assertTrue(o.status() == PutStatus.CREATED || o.status() == PutStatus.IDENTICAL, o.toString());
      } else {
        assertEquals(PutStatus.DIVERGENT, o.status(), o.toString());
      }
    }
  }
}
