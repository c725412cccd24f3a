package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.PutStatus;
import dev.idem.store.s3.internal.client.RetryPolicy;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.testing.ChaosProxy;
import dev.idem.store.s3.testing.InterceptingHttpClient;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The upload path against a real S3 server (S3Proxy): the HEAD before a large upload (an existing key
 * costs no payload bytes) and multipart parts in parallel (same object, bounded, aborted on a failed part).
 */
class S3UploadTest {
  private static final int MIB = 1024 * 1024;
  /** More than any request's headers, far less than any payload here. */
  private static final long HEADERS_ONLY = 64 * 1024;
  private static S3ProxyServer s3;

  private String bucket;

  @BeforeAll
  static void server() throws IOException {
    s3 = S3ProxyServer.shared();
  }

  @BeforeEach
  void bucket() throws IOException {
    bucket = s3.createBucket(true);
  }

  private S3ObjectStore open(S3Client client, S3StoreOptions options) {
    return S3ObjectStore.open(client, s3.location(bucket, "p"), options);
  }

  private S3ObjectStore open(S3StoreOptions options) {
    return S3ObjectStore.open(s3.location(bucket, "p"), s3.credentials(), options);
  }

  private S3Client.Builder clientVia(java.net.URI endpoint) {
    return S3Client.builder(endpoint, S3ProxyServer.REGION, s3.credentials()).pathStyle(true);
  }

  private static S3StoreOptions.Builder multipart() {
    return S3StoreOptions.builder().multipartThreshold(5 * MIB).partSize(5 * MIB);
  }

  private static String key(long windowStart) {
    return RunSpec.of("orders", new Window(windowStart, 60), 1).outputKey().toString();
  }

  private static byte[] random(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static byte[] read(S3ObjectStore st, String key) throws IOException {
    try (InputStream in = st.open(key).orElseThrow()) {
      return in.readAllBytes();
    }
  }

  /** A payload that can only be read from the start, as a pipe would be. */
  private static Payload stream(byte[] bytes) {
    Payload inner = Payload.ofBytes(bytes);
    return new Payload() {
      @Override
      public long size() {
        return bytes.length;
      }

      @Override
      public String sha256() throws IOException {
        return inner.sha256();
      }

      @Override
      public InputStream open() {
        return new ByteArrayInputStream(bytes);
      }
    };
  }

  private String etag(String key) throws IOException {
    return s3.client().head(bucket, "p/" + key, null).orElseThrow().etag();
  }

  private boolean noUploadsLeft() throws IOException {
    return s3.client().listMultipartUploads(bucket, null, null, null).uploads().isEmpty();
  }

  // --- HEAD before a large upload

  /**
   * A payload of exactly the threshold is a single PUT, however many parts the threshold would make: its
   * one CRC32C covers the whole content (a pass taken per part would check the PUT against the first
   * part's), and one PUT request carries it.
   */
  @Test
  void putIfAbsent_exactlyTheThresholdAboveOnePart_onePutOfTheWhole() throws IOException {
    byte[] bytes = random(10 * MIB, 41);
    List<String> requests = Collections.synchronizedList(new ArrayList<>());
    InterceptingHttpClient http = new InterceptingHttpClient(r -> requests.add(r.method() + " "
        + (r.uri().getRawQuery() == null ? "" : r.uri().getRawQuery())));
    try (S3ObjectStore st = open(clientVia(s3.endpoint()).httpClient(http).build(),
        S3StoreOptions.builder().multipartThreshold(10 * MIB).partSize(5 * MIB).build())) {
      assertEquals(PutStatus.CREATED, st.putIfAbsent(key(41), Payload.ofBytes(bytes), "w").status());
      assertArrayEquals(bytes, read(st, key(41)));
    }
    assertEquals(1, requests.stream().filter(r -> r.startsWith("PUT")).count(), requests.toString());
    assertFalse(requests.stream().anyMatch(r -> r.contains("uploads")), requests.toString());
  }

  @Test
  void putIfAbsent_identicalLargePayload_sendsNoPayloadBytes(@TempDir Path dir) throws IOException {
    byte[] bytes = random(2 * MIB, 1);
    Path file = Files.write(dir.resolve("big.bin"), bytes);
    try (ChaosProxy proxy = new ChaosProxy(s3.endpoint());
        S3ObjectStore st = open(clientVia(proxy.endpoint()).build(),
            S3StoreOptions.builder().headFirstThreshold(MIB).build())) {
      assertEquals(PutStatus.CREATED, st.putIfAbsent(key(60), Payload.ofFile(file), "host-a").status());
      assertTrue(proxy.requestBytes() > bytes.length, "the first publish uploads: " + proxy.requestBytes());
      proxy.countFromNow();
      PutOutcome again = st.putIfAbsent(key(60), Payload.ofFile(file), "host-b");
      assertEquals(PutStatus.IDENTICAL, again.status());
      assertEquals("host-a", again.stored().writer());
      assertTrue(proxy.requestBytes() < HEADERS_ONLY, "an identical publish sent " + proxy.requestBytes() + " bytes");
    }
  }

  @Test
  void putIfAbsent_identicalMultipartPayload_sendsNoPartAndStartsNoUpload() throws IOException {
    byte[] bytes = random(11 * MIB, 2);
    try (ChaosProxy proxy = new ChaosProxy(s3.endpoint());
        S3ObjectStore st = open(clientVia(proxy.endpoint()).build(), multipart().headFirstThreshold(5 * MIB).build())) {
      st.putIfAbsent(key(60), Payload.ofBytes(bytes), "host-a");
      proxy.countFromNow();
      assertEquals(PutStatus.IDENTICAL, st.putIfAbsent(key(60), stream(bytes), "host-b").status());
      assertTrue(proxy.requestBytes() < HEADERS_ONLY, "an identical publish sent " + proxy.requestBytes() + " bytes");
      assertTrue(noUploadsLeft());
    }
  }

  @Test
  void putIfAbsent_divergentLargePayloadWithoutEvidenceBytes_sendsNoPayloadBytes() throws IOException {
    try (ChaosProxy proxy = new ChaosProxy(s3.endpoint());
        S3ObjectStore st = open(clientVia(proxy.endpoint()).build(),
            S3StoreOptions.builder().headFirstThreshold(MIB).keepEvidenceBytes(false).build())) {
      st.putIfAbsent(key(60), Payload.ofBytes(random(2 * MIB, 3)), "host-a");
      proxy.countFromNow();
      PutOutcome out = st.putIfAbsent(key(60), Payload.ofBytes(random(2 * MIB, 4)), "host-b");
      assertEquals(PutStatus.DIVERGENT, out.status());
      assertEquals("host-a", out.stored().writer());
      assertNull(out.evidenceKey(), "only the evidence marker is written");
      assertTrue(proxy.requestBytes() < HEADERS_ONLY, "a divergent publish sent " + proxy.requestBytes() + " bytes");
    }
  }

  @Test
  void putIfAbsent_belowHeadFirstThreshold_conditionalWriteDecides() throws IOException {
    byte[] bytes = random(MIB, 5);
    try (ChaosProxy proxy = new ChaosProxy(s3.endpoint());
        S3ObjectStore st = open(clientVia(proxy.endpoint()).build(),
            S3StoreOptions.builder().headFirstThreshold(MIB + 1).build())) {
      st.putIfAbsent(key(60), Payload.ofBytes(bytes), "host-a");
      proxy.countFromNow();
      assertEquals(PutStatus.IDENTICAL, st.putIfAbsent(key(60), Payload.ofBytes(bytes), "host-b").status());
      assertTrue(proxy.requestBytes() > HEADERS_ONLY, "no HEAD first: the PUT carries the body");
    }
  }

  @Test
  void putIfAbsent_headFirstManyThreadsOneKey_exactlyOneCreated() throws Exception {
    S3StoreOptions options = S3StoreOptions.builder().headFirstThreshold(0).build();
    int n = 12;
    List<PutOutcome> outs = Collections.synchronizedList(new ArrayList<>());
    List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    try (S3ObjectStore st = open(options)) {
      for (int i = 0; i < n; i++) {
        byte[] bytes = ("payload-" + (i % 2)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        String writer = "writer-" + i;
        Thread t = new Thread(() -> {
          try {
            go.await();
            outs.add(st.putIfAbsent(key(600), Payload.ofBytes(bytes), writer));
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
    }
    assertEquals(List.of(), errors);
    assertEquals(1, outs.stream().filter(o -> o.status() == PutStatus.CREATED).count(), outs.toString());
    String winner = outs.stream().filter(o -> o.status() == PutStatus.CREATED).findFirst().orElseThrow()
        .attemptSha256();
    for (PutOutcome o : outs) {
      assertEquals(winner, o.stored().sha256());
      if (o.attemptSha256().equals(winner)) {
        assertTrue(o.status() == PutStatus.CREATED || o.status() == PutStatus.IDENTICAL, o.toString());
      } else {
        assertEquals(PutStatus.DIVERGENT, o.status(), o.toString());
      }
    }
  }

  // --- parallel parts

  @Test
  void putIfAbsent_partsInParallel_sameObjectAsOneAtATime(@TempDir Path dir) throws IOException {
    byte[] bytes = random(23 * MIB + 5, 6);
    Path file = Files.write(dir.resolve("parts.bin"), bytes);
    try (S3ObjectStore serial = open(multipart().uploadParallelism(1).build());
        S3ObjectStore parallel = open(multipart().uploadParallelism(4).build())) {
      assertEquals(PutStatus.CREATED, serial.putIfAbsent(key(60), Payload.ofFile(file), "h").status());
      assertEquals(PutStatus.CREATED, parallel.putIfAbsent(key(120), Payload.ofFile(file), "h").status());
      assertEquals(PutStatus.CREATED, parallel.putIfAbsent(key(180), stream(bytes), "h").status());
      assertTrue(etag(key(60)).endsWith("-5\""), etag(key(60)));
      assertEquals(etag(key(60)), etag(key(120)), "a file's ranges read in parallel make the same parts");
      assertEquals(etag(key(60)), etag(key(180)), "a stream read in order makes the same parts");
      assertArrayEquals(bytes, read(parallel, key(120)));
      assertArrayEquals(bytes, read(parallel, key(180)));
      assertTrue(noUploadsLeft());
    }
  }

  @Test
  void putIfAbsent_parallelism_partsOverlapButNeverMoreThanTheBound() throws IOException {
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    CountDownLatch twoAtOnce = new CountDownLatch(2);
    AtomicInteger overlapped = new AtomicInteger();
    InterceptingHttpClient http = new InterceptingHttpClient(request -> {
      if (InterceptingHttpClient.isPart(request)) {
        most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        twoAtOnce.countDown();
        // The first two parts each wait for the other: only parts sent at once get past this.
        if (twoAtOnce.await(60, TimeUnit.SECONDS)) {
          overlapped.incrementAndGet();
        }
      }
    }, request -> {
      if (InterceptingHttpClient.isPart(request)) {
        inFlight.decrementAndGet();
      }
    });
    byte[] bytes = random(21 * MIB, 7);
    try (S3ObjectStore st = open(clientVia(s3.endpoint()).httpClient(http).build(),
        multipart().uploadParallelism(2).build())) {
      assertEquals(PutStatus.CREATED, st.putIfAbsent(key(60), Payload.ofBytes(bytes), "h").status());
      assertArrayEquals(bytes, read(st, key(60)));
    }
    assertEquals(5, overlapped.get(), "every part passed the latch, the first two by overlapping");
    assertEquals(2, most.get(), "parallelism 2 bounds the parts in flight");
  }

  @Test
  void putIfAbsent_onePartFails_uploadAbortedKeyEmptyErrorNamesThePart() throws IOException {
    InterceptingHttpClient http = new InterceptingHttpClient(request -> {
      if (InterceptingHttpClient.isPart(request, 2)) {
        throw new IOException("connection reset (injected)");
      }
    });
    byte[] bytes = random(13 * MIB, 8);
    try (S3ObjectStore st = open(clientVia(s3.endpoint()).httpClient(http)
        .retry(new RetryPolicy(2, Duration.ZERO, Duration.ZERO)).build(), multipart().build())) {
      IOException e = assertThrows(IOException.class, () -> st.putIfAbsent(key(60), Payload.ofBytes(bytes), "h"));
      assertTrue(e.getMessage().startsWith("part 2 of 3 (bytes 5242880-10485759) of s3://" + bucket + "/p/"
          + key(60) + ": "), e.getMessage());
      assertTrue(e.getMessage().contains("connection reset (injected)"), e.getMessage());
      assertFalse(st.exists(key(60)), "nothing published");
    }
    assertTrue(noUploadsLeft(), "the upload was aborted");
  }

  /**
   * An {@link Error} in a part's thread (a part buffer the heap cannot hold, say) ends the upload like any
   * other failure: the wait for the parts in flight ends, the upload is aborted and the caller learns
   * which part failed. Bounded: a publish still waiting after a minute fails the test.
   */
  @Test
  void putIfAbsent_partThreadThrowsError_failsNamingThePartAndAborts() throws IOException {
    InterceptingHttpClient http = new InterceptingHttpClient(request -> {
      if (InterceptingHttpClient.isPart(request, 2)) {
        throw new OutOfMemoryError("part buffer (injected)");
      }
    });
    byte[] bytes = random(13 * MIB, 11);
    try (S3ObjectStore st = open(clientVia(s3.endpoint()).httpClient(http).build(), multipart().build())) {
      IOException e = assertTimeoutPreemptively(Duration.ofMinutes(1),
          () -> assertThrows(IOException.class, () -> st.putIfAbsent(key(60), Payload.ofBytes(bytes), "h")),
          "the publish still waits for a part whose thread died");
      assertTrue(e.getMessage().startsWith("part 2 of 3 (bytes 5242880-10485759) of s3://" + bucket + "/p/"
          + key(60) + ": "), e.getMessage());
      assertInstanceOf(OutOfMemoryError.class, e.getCause());
      assertFalse(st.exists(key(60)), "nothing published");
    }
    assertTrue(noUploadsLeft(), "the upload was aborted");
  }

  @Test
  void putIfAbsent_fileChangesDuringParallelParts_refusedAndAborted(@TempDir Path dir) throws IOException {
    byte[] bytes = random(11 * MIB, 9);
    Path file = Files.write(dir.resolve("moving.bin"), bytes);
    Payload payload = Payload.ofFile(file);
    String declared = payload.sha256();
    InterceptingHttpClient http = new InterceptingHttpClient(request -> {
      if (InterceptingHttpClient.isPart(request, 1)) {
        byte[] changed = bytes.clone();
        changed[changed.length - 1] ^= 1;
        Files.write(file, changed);
      }
    });
    try (S3ObjectStore st = open(clientVia(s3.endpoint()).httpClient(http).build(),
        multipart().uploadParallelism(1).build())) {
      Payload.ChangedWhileReadingException e = assertThrows(Payload.ChangedWhileReadingException.class,
          () -> st.putIfAbsent(key(60), payload, "h"));
      assertTrue(e.getMessage().contains(declared), e.getMessage());
      assertFalse(st.exists(key(60)));
    }
    assertTrue(noUploadsLeft(), "the upload was aborted");
  }

  @Test
  void putIfAbsent_streamShorterThanDeclared_refusedAndAborted() throws IOException {
    byte[] bytes = random(11 * MIB, 10);
    Payload inner = Payload.ofBytes(bytes);
    Payload shrinking = new Payload() {
      @Override
      public long size() {
        return bytes.length;
      }

      @Override
      public String sha256() throws IOException {
        return inner.sha256();
      }

      @Override
      public InputStream open() {
        return new ByteArrayInputStream(bytes, 0, 7 * MIB);
      }
    };
    try (S3ObjectStore st = open(multipart().build())) {
      assertThrows(Payload.ChangedWhileReadingException.class, () -> st.putIfAbsent(key(60), shrinking, "h"));
      assertFalse(st.exists(key(60)));
    }
    assertTrue(noUploadsLeft(), "the upload was aborted");
  }
}
