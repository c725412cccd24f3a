import dev.idem.bench.S3Bench;
import dev.idem.core.proof.ProvenStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutStatus;
import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsProvider;
import dev.idem.store.s3.S3Location;
import dev.idem.store.s3.S3ObjectStore;
import dev.idem.store.s3.S3StoreOptions;
import dev.idem.store.s3.S3StoreProver;
import dev.idem.store.s3.S3TestStores;
import dev.idem.store.s3.internal.http.HttpClients;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * Where a small S3 publish spends its time: the client's CPU or waiting. Publishes BYTES-byte objects
 * to fresh keys on an S3Proxy this JVM starts (a child process, so the server's CPU is not counted)
 * from three sides in turn: idem's store as the command line opens it, idem's store over an HTTP
 * client whose executor runs every task on the thread that hands it over (the JDK client's default
 * is a thread pool), and the AWS SDK v2's {@code putObject(ifNoneMatch("*"))}. Each round publishes
 * REPS times from each side, rotating which goes first; three rounds warm up, then ROUNDS count.
 * Prints, per side, the wall time and this process's CPU time (all threads: the caller, the HTTP
 * clients', the JIT's and the collector's) per publish, and both over the SDK's.
 *
 * <p>BENCHMARKS.md uses it for the 1 KiB row: JMH's paired run shows the wall time, this shows whose
 * CPU it is. Usage, with the benchmark jar built ({@code ./mvnw -B package -pl bench -am -DskipTests}):
 *
 * <pre>java -Ds3proxy.jar=bench/target/s3proxy/s3proxy.jar -Ds3servers.workdir=/var/tmp/s3pw \
 *     -cp bench/target/benchmarks.jar scripts/S3SmallPutCpu.java [REPS=500] [ROUNDS=12] [BYTES=1024]</pre>
 */
public class S3SmallPutCpu {
  interface Side {
    void publish(String key) throws Exception;
  }

  public static void main(String[] args) throws Exception {
    int reps = args.length > 0 ? Integer.parseInt(args[0]) : 500;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 12;
    int bytes = args.length > 2 ? Integer.parseInt(args[2]) : 1024;
    var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    Path file = Files.createTempFile(Path.of(System.getProperty("java.io.tmpdir")), "small-put", ".bin");
    try (S3ProxyServer server = S3ProxyServer.start()) {
      Files.write(file, new byte[bytes]);
      URI endpoint = server.endpoint();
      var sdk = S3Bench.sdkClient(endpoint);
      String bucket = "small-put-" + Long.toHexString(System.nanoTime());
      sdk.createBucket(b -> b.bucket(bucket));
      CredentialsProvider credentials =
          CredentialsProvider.of(AwsCredentials.of(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY));
      S3Location location = new S3Location(bucket, "", endpoint, S3ProxyServer.REGION, true);

      S3ObjectStore asShipped = S3ObjectStore.open(location, credentials, S3StoreOptions.defaults());
      HttpClient inline = HttpClients.forEndpoint(endpoint).version(HttpClient.Version.HTTP_1_1)
          .followRedirects(HttpClient.Redirect.NEVER).executor(Runnable::run).build();
      S3ObjectStore inlineExecutor = S3TestStores.open(
          dev.idem.store.s3.internal.client.S3Client.builder(endpoint, S3ProxyServer.REGION, credentials)
              .pathStyle(true).httpClient(inline).build(),
          location, S3StoreOptions.defaults());
      Side[] sides = {idem(asShipped, file), idem(inlineExecutor, file),
          key -> sdk.putObject(b -> b.bucket(bucket).key(key).ifNoneMatch("*"), RequestBody.fromFile(file))};
      String[] names = {"idem (as shipped)", "idem, inline executor", "AWS SDK v2"};

      long[] wall = new long[3];
      long[] cpu = new long[3];
      long n = 0;
      for (int round = -3; round < rounds; round++) {
        for (int i = 0; i < 3; i++) {
          int s = (i + Math.floorMod(round, 3)) % 3;
          long cpu0 = os.getProcessCpuTime();
          long t0 = System.nanoTime();
          for (int j = 0; j < reps; j++) {
            sides[s].publish(String.format("p/w/%016x/k", ++n));
          }
          if (round >= 0) {
            wall[s] += System.nanoTime() - t0;
            cpu[s] += os.getProcessCpuTime() - cpu0;
          }
        }
      }
      long publishes = (long) reps * rounds;
      System.out.printf("%d-byte publishes, %d per side, %d rounds after 3 warm-up rounds, %d CPUs%n",
          bytes, publishes, rounds, Runtime.getRuntime().availableProcessors());
      System.out.println("| side | wall µs/publish | CPU µs/publish | wall / SDK | CPU / SDK |");
      System.out.println("|---|---:|---:|---:|---:|");
      for (int s = 0; s < 3; s++) {
        System.out.printf("| %s | %,.0f | %,.0f | %.2f× | %.2f× |%n", names[s], wall[s] / 1e3 / publishes,
            cpu[s] / 1e3 / publishes, (double) wall[s] / wall[2], (double) cpu[s] / cpu[2]);
      }
      sdk.close();
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private static Side idem(S3ObjectStore s3, Path file) {
    ProvenStore store = ProvenStore.wrap(s3, S3StoreProver.of(s3), "small-put", Clock.systemUTC());
    return key -> {
      if (store.putIfAbsent(key, Payload.ofFile(file), "small-put").status() != PutStatus.CREATED) {
        throw new IllegalStateException("a fresh key was not created: " + key);
      }
    };
  }
}
