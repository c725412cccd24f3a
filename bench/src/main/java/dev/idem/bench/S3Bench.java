package dev.idem.bench;

import dev.idem.core.proof.ProvenStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.PutStatus;
import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsProvider;
import dev.idem.store.s3.S3Location;
import dev.idem.store.s3.S3ObjectStore;
import dev.idem.store.s3.S3StoreOptions;
import dev.idem.store.s3.S3StoreProver;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Create-only PUT to S3, idem's {@link S3ObjectStore} (proven as the command line proves it, {@link
 * ProvenStore}) against the AWS SDK for Java v2 ({@code
 * PutObject} with {@code ifNoneMatch("*")}, default synchronous HTTP client), on the same local
 * S3Proxy in the same run. Target: idem no slower, fewer bytes allocated per operation ({@code -prof
 * gc}: {@code gc.alloc.rate.norm}), and no whole-payload buffering for large payloads (allocation per
 * operation well below the payload size).
 *
 * <ul>
 *   <li>{@code idemPut}: {@code putIfAbsent} of a file payload ({@link Payload#ofFile}, hashed once,
 *       then streamed with the SHA-256 signed, or in {@code x-amz-checksum-sha256} where the store's
 *       probe found the server verifies it (S3Proxy does); from 8 MiB a HEAD of the key first; above 100 MiB a
 *       multipart upload with 8 MiB parts, 4 in flight, and {@code If-None-Match: *} on Complete) to a
 *       fresh key: CREATED.
 *   <li>{@code sdkPut}: {@code putObject(ifNoneMatch("*"))} with {@code RequestBody.fromFile} to a
 *       fresh key, the SDK's defaults otherwise (one PUT at every size).
 *   <li>{@code idemPut412}: {@code putIfAbsent} of the same bytes to a key that already holds them:
 *       412, HEAD, compare the stored SHA-256: IDENTICAL.
 *   <li>{@code sdkPut412}: the SDK's conditional PUT to that key, catching the 412 {@link
 *       S3Exception}; {@code sdkPut412Head} adds the {@code headObject} a caller needs to learn what is
 *       there, the same work as idem's answer.
 * </ul>
 *
 * {@code paired} alternates {@code idemPut} and {@code sdkPut} in every call (which goes first
 * alternates too) and sums each side's time in {@link Paired} counters, so the time ratio holds while
 * other work on the machine comes and goes; {@code bench/run} takes the time ratio from it and the
 * allocation from the separate methods.
 *
 * <p>Both sides read the same file (a fixed-seed random payload) and talk to the same server; the
 * allocation figure counts every thread of the benchmark JVM (JMH 1.37 reads the JVM's total), so the
 * HTTP client's own threads are included for both. Objects of 1 MiB and more are deleted after each
 * iteration (64 MiB ones after each call) so the in-memory server does not fill up; that cleanup is
 * the same for both sides.
 *
 * <p>The server: {@code -Didem.bench.s3.endpoint=http://127.0.0.1:PORT} (with S3ProxyServer's test
 * credentials), which {@code bench/run} sets after starting S3Proxy; without it each fork starts its
 * own S3Proxy child process (jar from {@code -Ds3proxy.jar} or the local Maven repository).
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar S3Bench -prof gc}, or {@code bench/run}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class S3Bench {
  static final String ENDPOINT_PROPERTY = "idem.bench.s3.endpoint";
  private static final long DELETE_EACH_CALL_FROM = 16L * 1024 * 1024;

  @Param({"1024", "1048576", "67108864", "268435456"})
  long payloadBytes;

  private S3ProxyServer ownServer;
  private Path dir;
  private Path file;
  private String bucket;
  private ProvenStore idem;
  private S3Client sdk;
  private String existingKey;
  private long n;
  private final List<String> written = new ArrayList<>();

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    URI endpoint;
    String configured = System.getProperty(ENDPOINT_PROPERTY);
    if (configured != null && !configured.isBlank()) {
      endpoint = URI.create(configured);
    } else {
      ownServer = S3ProxyServer.start();
      endpoint = ownServer.endpoint();
    }
    dir = BenchDirs.fresh("s3");
    file = dir.resolve("payload.bin");
    byte[] chunk = new byte[(int) Math.min(payloadBytes, 1 << 20)];
    SplittableRandom random = new SplittableRandom(42);
    try (var out = Files.newOutputStream(file)) {
      for (long left = payloadBytes; left > 0; left -= chunk.length) {
        random.nextBytes(chunk);
        out.write(chunk, 0, (int) Math.min(chunk.length, left));
      }
    }

    sdk = sdkClient(endpoint);
    bucket = "idem-bench-" + Long.toHexString(System.nanoTime());
    sdk.createBucket(b -> b.bucket(bucket));

    S3Location location = new S3Location(bucket, "", endpoint, S3ProxyServer.REGION, true);
    CredentialsProvider credentials =
        CredentialsProvider.of(AwsCredentials.of(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY));
    // Proven as the command line proves it: the probe's answers decide how single PUTs are checked.
    S3ObjectStore s3 = S3ObjectStore.open(location, credentials, S3StoreOptions.defaults());
    idem = ProvenStore.wrap(s3, S3StoreProver.of(s3), "idem bench", Clock.systemUTC());

    existingKey = Keys.numbered(0xe, 0);
    PutOutcome first = idem.putIfAbsent(existingKey, Payload.ofFile(file), "bench");
    if (first.status() != PutStatus.CREATED) {
      throw new IllegalStateException("setup publish returned " + first.status());
    }
  }

  /** The SDK peer as every S3 comparison here builds it: path-style, S3Proxy's region and keys, SDK defaults otherwise. */
  public static S3Client sdkClient(URI endpoint) {
    return S3Client.builder()
        .endpointOverride(endpoint)
        .region(Region.of(S3ProxyServer.REGION))
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)))
        .forcePathStyle(true)
        .build();
  }

  @TearDown(Level.Invocation)
  public void deleteLargeObject() {
    if (payloadBytes >= DELETE_EACH_CALL_FROM) {
      deleteWritten();
    }
  }

  @TearDown(Level.Iteration)
  public void deleteObjects() {
    deleteWritten();
  }

  private void deleteWritten() {
    for (String key : written) {
      sdk.deleteObject(b -> b.bucket(bucket).key(key));
    }
    written.clear();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    idem.close();
    sdk.close();
    BenchDirs.deleteTree(dir);
    if (ownServer != null) {
      ownServer.close();
    }
  }

  private String freshKey(int lane) {
    String key = Keys.numbered(lane, ++n);
    written.add(key);
    return key;
  }

  @Benchmark
  public PutOutcome idemPut() throws IOException {
    PutOutcome r = idem.putIfAbsent(freshKey(1), Payload.ofFile(file), "bench");
    if (r.status() != PutStatus.CREATED) {
      throw new IllegalStateException("fresh key not created: " + r.status());
    }
    return r;
  }

  @Benchmark
  public PutObjectResponse sdkPut() {
    return sdk.putObject(b -> b.bucket(bucket).key(freshKey(2)).ifNoneMatch("*"), RequestBody.fromFile(file));
  }

  @Benchmark
  public PutOutcome idemPut412() throws IOException {
    PutOutcome r = idem.putIfAbsent(existingKey, Payload.ofFile(file), "bench");
    if (r.status() != PutStatus.IDENTICAL) {
      throw new IllegalStateException("existing key not IDENTICAL: " + r.status());
    }
    return r;
  }

  @Benchmark
  public int sdkPut412() {
    return conditionalPutExpecting412();
  }

  @Benchmark
  public HeadObjectResponse sdkPut412Head() {
    conditionalPutExpecting412();
    return sdk.headObject(b -> b.bucket(bucket).key(existingKey));
  }

  private int conditionalPutExpecting412() {
    try {
      sdk.putObject(b -> b.bucket(bucket).key(existingKey).ifNoneMatch("*"), RequestBody.fromFile(file));
    } catch (S3Exception e) {
      if (e.statusCode() == 412) {
        return 412;
      }
      throw e;
    }
    throw new IllegalStateException("conditional PUT over an existing key succeeded");
  }

  /** Time spent in each side of {@link #paired}, summed over one iteration. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Paired {
    public long rounds;
    public long idemNanos;
    public long sdkNanos;

    @Setup(Level.Iteration)
    public void reset() {
      rounds = 0;
      idemNanos = 0;
      sdkNanos = 0;
    }
  }

  @Benchmark
  public void paired(Paired p, Blackhole bh) throws IOException {
    boolean idemFirst = (p.rounds++ & 1) == 0;
    for (int i = 0; i < 2; i++) {
      boolean idemTurn = idemFirst == (i == 0);
      long t0 = System.nanoTime();
      if (idemTurn) {
        bh.consume(idemPut());
      } else {
        bh.consume(sdkPut());
      }
      long dt = System.nanoTime() - t0;
      if (idemTurn) {
        p.idemNanos += dt;
      } else {
        p.sdkNanos += dt;
      }
    }
  }
}
