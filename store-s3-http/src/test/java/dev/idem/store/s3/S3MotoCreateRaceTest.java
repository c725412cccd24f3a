package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.PutStatus;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.testing.InterceptingHttpClient;
import dev.idem.store.s3.testing.S3Implementation;
import dev.idem.store.s3.testing.S3TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two publishes of different bytes racing on real moto (5.2.1), whose {@code If-None-Match: *} is a
 * look-up followed by a write, so that racing creates can both succeed and each is kept as a version: one
 * CREATED, the other DIVERGENT, the key left with the creator's bytes as its one version. Each store
 * writes as idem writes on moto in a versioned bucket, configured by moto's own probe answers ({@link
 * ProbedServers}). Both creates (multipart completions, or single PUTs of a few MiB) are held until both
 * are ready, so moto usually applies both; the outcome must be the same when it refuses one. Runs on the
 * tests' shared moto ({@link S3Implementation#MOTO}), and not at all when moto is not among the chosen
 * servers.
 */
class S3MotoCreateRaceTest {
  private static final int PAYLOAD = 5 * 1024 * 1024 + 61;
  private static S3TestServer moto;
  private static String bucket;

  @BeforeAll
  static void start() throws IOException {
    Assumptions.assumeTrue(S3Implementation.selected().contains(S3Implementation.MOTO),
        "moto is not among -D" + S3Implementation.PROPERTY);
    moto = S3Implementation.MOTO.shared();
    bucket = moto.createBucket(true);
  }

  private static S3Client client(HttpClient http) {
    S3Client.Builder b = moto.clientBuilder();
    if (http != null) {
      b.httpClient(http);
    }
    return b.build();
  }

  private static byte[] random(long seed) {
    byte[] b = new byte[PAYLOAD];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static boolean isCompletion(HttpRequest r) {
    String q = r.uri().getRawQuery();
    return r.method().equals("POST") && q != null && q.startsWith("uploadId=");
  }

  private static boolean isSinglePut(HttpRequest r) {
    return r.method().equals("PUT") && r.uri().getRawQuery() == null && r.headers().firstValue("If-None-Match")
        .isPresent();
  }

  @Test
  void putIfAbsent_twoCompletionsAtOnce_oneCreatedFirstBytesKeptOneVersion() throws Exception {
    race("completions", S3StoreOptions.builder().multipartThreshold(S3StoreOptions.MIN_PART_SIZE)
        .partSize(S3StoreOptions.MIN_PART_SIZE).build(), S3MotoCreateRaceTest::isCompletion, 10);
  }

  /**
   * A payload below the multipart threshold is one create-only PUT, which moto applies twice about as
   * often as a completion when its body is a few MiB. Before single PUTs were checked for a version
   * under their own, both publishes were CREATED whenever moto applied both, the second's bytes current.
   */
  @Test
  void putIfAbsent_twoSinglePutsAtOnce_oneCreatedFirstBytesKeptOneVersion() throws Exception {
    race("PUTs", S3StoreOptions.defaults(), S3MotoCreateRaceTest::isSinglePut, 20);
  }

  private static void race(String writes, S3StoreOptions options, Predicate<HttpRequest> create, int minute)
      throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(2);
    List<String> raced = Collections.synchronizedList(new ArrayList<>());
    try {
      for (int round = 1; round <= 3; round++) {
        String key = RunSpec.of("orders", new Window(60L * (minute + round), 60), 1).outputKey().toString();
        String objectKey = "p/" + key;
        CyclicBarrier bothReady = new CyclicBarrier(2);
        AtomicInteger held = new AtomicInteger();
        AtomicInteger listings = new AtomicInteger();
        InterceptingHttpClient http = new InterceptingHttpClient(r -> {
          String q = r.uri().getRawQuery();
          if (r.method().equals("GET") && q != null && q.contains("versions")) {
            listings.incrementAndGet();
          }
          if (create.test(r) && r.uri().getPath().endsWith("/" + objectKey) && held.incrementAndGet() <= 2) {
            try {
              bothReady.await(60, TimeUnit.SECONDS);
            } catch (TimeoutException | BrokenBarrierException e) {
              throw new IOException("the other create never came", e);
            }
          }
        });
        S3Location location = moto.location(bucket, "p/");
        byte[][] payloads = {random(2L * round), random(2L * round + 1)};
        List<Future<PutOutcome>> outs = new ArrayList<>();
        try (S3ObjectStore a = S3ObjectStore.open(client(http), location, options);
            S3ObjectStore b = S3ObjectStore.open(client(http), location, options)) {
          ObjectStore asIdemA = ProbedServers.asProven(a, S3Implementation.MOTO, true);
          ObjectStore asIdemB = ProbedServers.asProven(b, S3Implementation.MOTO, true);
          outs.add(threads.submit(() -> asIdemA.putIfAbsent(key, Payload.ofBytes(payloads[0]), "host-a")));
          outs.add(threads.submit(() -> asIdemB.putIfAbsent(key, Payload.ofBytes(payloads[1]), "host-b")));
          List<PutOutcome> done = new ArrayList<>();
          for (Future<PutOutcome> f : outs) {
            done.add(f.get(120, TimeUnit.SECONDS));
          }
          int creator = done.get(0).status() == PutStatus.CREATED ? 0 : 1;
          assertEquals(PutStatus.CREATED, done.get(creator).status(), done.toString());
          assertEquals(PutStatus.DIVERGENT, done.get(1 - creator).status(), done.toString());
          try (InputStream in = a.open(key).orElseThrow()) {
            assertArrayEquals(payloads[creator], in.readAllBytes(), "the creator's bytes are current");
          }
          assertEquals(1, client(null).listVersions(bucket, objectKey, null, null, 100).versions().stream()
              .filter(v -> v.key().equals(objectKey)).count(), "the loser removed its version");
        }
        raced.add("round " + round + ": " + (listings.get() > 1 ? "moto applied both " + writes
            : "moto refused one of the " + writes));
      }
    } finally {
      threads.shutdownNow();
    }
    System.out.println("[moto] " + raced);
  }
}
