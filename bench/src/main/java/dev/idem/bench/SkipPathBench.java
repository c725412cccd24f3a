package dev.idem.bench;

import dev.idem.core.Idem;
import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.PublishStatus;
import dev.idem.core.publish.Publisher;
import dev.idem.core.store.Payload;
import dev.idem.store.fs.FsObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The skip path (P5): a replica asking whether its key is already published, so it can skip the
 * task. Target: {@code idemExistsCached} under 1 µs.
 *
 * <ul>
 *   <li>{@code idemExistsCached}: {@link FsObjectStore#exists} for a key the store has already seen
 *       (answered from its in-memory set of known keys); limit: {@code limitSetContains}, a bare
 *       {@link ConcurrentHashMap} key-set lookup of the same string.
 *   <li>{@code idemExistsNoCache}: the same on a store with its cache disabled, i.e. one {@code stat}
 *       per call; limit: {@code limitStat}, {@link Files#isRegularFile} on the precomputed path.
 *   <li>{@code idemExistsNewStore}: a new store instance per call ({@code FsObjectStore.open} +
 *       {@code exists}), what a freshly started replica pays before its first check.
 *   <li>{@code idemPublisherSkip}: the whole {@link Publisher#publish} of a spec whose key is already
 *       published and whose pointer is current: derive the key, check, read the stored object's
 *       metadata, and confirm the pointer (SKIPPED, no write). What a second replica really pays.
 * </ul>
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar SkipPathBench}, or {@code bench/run}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class SkipPathBench {

  private Path dir;
  private Path root;
  private FsObjectStore cached;
  private FsObjectStore uncached;
  private Publisher publisher;
  private RunSpec spec;
  private String key;
  private Path keyPath;
  private Set<String> knownKeys;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    dir = BenchDirs.fresh("skip");
    root = dir.resolve("store");
    byte[] bytes = new byte[1024];
    new SplittableRandom(42).nextBytes(bytes);
    cached = FsObjectStore.open(root);
    spec = RunSpec.of(Keys.PIPELINE, new Window(Keys.WINDOW_START, 60), 1);
    publisher = Idem.publisher(cached).writer("bench").build();
    PublishReport first = publisher.publish(spec, Payload.ofBytes(bytes));
    key = first.key().toString();
    cached = FsObjectStore.open(root);
    publisher = Idem.publisher(cached).writer("bench").build();
    uncached = FsObjectStore.open(root, FsObjectStore.Options.defaults().withExistsCacheSize(0));
    keyPath = cached.root().resolve(key);
    knownKeys = ConcurrentHashMap.newKeySet();
    knownKeys.add(key);
    if (!cached.exists(key) || !uncached.exists(key) || !Files.isRegularFile(keyPath)) {
      throw new IllegalStateException("published key " + key + " not found");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    cached.close();
    uncached.close();
    BenchDirs.deleteTree(dir);
  }

  @Benchmark
  public boolean idemExistsCached() throws IOException {
    return cached.exists(key);
  }

  @Benchmark
  public boolean limitSetContains() {
    return knownKeys.contains(key);
  }

  @Benchmark
  public boolean idemExistsNoCache() throws IOException {
    return uncached.exists(key);
  }

  @Benchmark
  public boolean limitStat() {
    return Files.isRegularFile(keyPath, LinkOption.NOFOLLOW_LINKS);
  }

  @Benchmark
  public boolean idemExistsNewStore() throws IOException {
    try (FsObjectStore fresh = FsObjectStore.open(root)) {
      return fresh.exists(key);
    }
  }

  @Benchmark
  public PublishReport idemPublisherSkip() throws Exception {
    PublishReport r = publisher.publish(spec, (s, k) -> {
      throw new IllegalStateException("the task ran although " + k + " was published");
    });
    if (r.status() != PublishStatus.SKIPPED) {
      throw new IllegalStateException("expected SKIPPED, got " + r.status());
    }
    return r;
  }
}
