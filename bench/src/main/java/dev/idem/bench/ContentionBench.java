package dev.idem.bench;

import dev.idem.core.publish.AdvanceReport;
import dev.idem.core.publish.AdvanceStatus;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PutOutcome;
import dev.idem.store.fs.FsObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Writers contending on one filesystem store: 1, 2, 4 and 8 threads, and 32 for the replicas of one
 * job and the bare durable writers beside them (the number is in the method name, set with {@link
 * Threads}), each doing one operation after another. Reported per operation as
 * a latency distribution ({@link Mode#SampleTime}: mean, p50, p99); aggregate throughput is
 * {@code threads / mean}.
 *
 * <ul>
 *   <li>{@code sameKeyTn}: every thread publishes the same sequence of keys with the same 1 KiB
 *       payload (its k-th call publishes key k), so each key is published n times, racing: one
 *       CREATED, the rest IDENTICAL. This is n replicas running the same job.
 *   <li>{@code distinctKeysTn}: each thread publishes its own keys (no two calls share a key): n jobs
 *       sharing a store.
 *   <li>{@code sameKeyAndPointerTn}: {@code sameKeyTn} followed by moving the pipeline's pointer to
 *       the key just published ({@link PointerAdvancer#advance}, key k at the pointer's k-th
 *       position): n replicas of one job, each publishing its window's output and advancing
 *       {@code latest}, the case BENCHMARKS.md's contention target names. The replica that finds its
 *       position already passed backs off without writing. A replica whose advance gives up (BUSY or
 *       CONFLICT: its deadline or its attempts ran out) fails the benchmark: the target is met only if
 *       none waits past its deadline.
 *   <li>{@code advanceTn}: each call takes the next pointer position from a shared counter and asks
 *       {@link PointerAdvancer#advance} (default settings: 64 attempts, 2 ms jittered backoff) to move
 *       the pipeline's {@code latest} there. All calls serialize on the pipeline's lock; a call that
 *       finds a later position already in place backs off without writing (NEWER_PRESENT), as a late
 *       replica does.
 *   <li>{@code limitDurableWriteTn}: the physical limit beside them: each call writes a fresh 1 KiB
 *       file of its own with the minimal durable sequence ({@link FsPublishBench#durableAtomicWrite}:
 *       temporary file, force, atomic rename, directory fsync) in one shared directory. Its p99 at n
 *       threads over its p99 at one is how much a device and journal shared by n flushing writers
 *       stretch the tail with no lock, no shared key and no idem code at all.
 * </ul>
 *
 * Threads of one JVM share the store's in-process lock before the kernel lock, as two processes
 * would share only the kernel lock; see {@code FsObjectStore}. Each trial writes under a fresh
 * directory of {@link BenchDirs#base()}.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar ContentionBench}, or {@code bench/run}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 4, time = 2)
@Fork(1)
public class ContentionBench {

  /** The store and the objects all threads share. */
  @State(Scope.Benchmark)
  public static class Shared {
    final AtomicInteger lanes = new AtomicInteger();
    final AtomicInteger schema = new AtomicInteger();
    Path dir;
    FsObjectStore store;
    Payload payload;
    PointerAdvancer advancer;
    ObjectInfo target;
    byte[] bytes;
    Path limitDir;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
      dir = BenchDirs.fresh("contention");
      store = FsObjectStore.open(dir.resolve("store"));
      bytes = new byte[1024];
      new SplittableRandom(42).nextBytes(bytes);
      limitDir = Files.createDirectories(dir.resolve("limit"));
      payload = Payload.ofBytes(bytes);
      advancer = new PointerAdvancer(store);
      // Every pointer names this one object; positions differ by schema version (window start is
      // fixed by the key), which is all the ordering rule looks at.
      target = store.putIfAbsent(Keys.numbered(0xfff, 0), payload, "bench").stored();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      store.close();
      BenchDirs.deleteTree(dir);
    }
  }

  /** One writer's own counter and lane (the lane keeps distinct-key writers apart). */
  @State(Scope.Thread)
  public static class Writer {
    int lane;
    long next;
    String writerId;

    @Setup(Level.Trial)
    public void setUp(Shared shared) {
      lane = shared.lanes.incrementAndGet();
      writerId = "bench-" + lane;
    }
  }

  static Path limitDurableWrite(Shared s, Writer w) throws IOException {
    return FsPublishBench.durableAtomicWrite(s.limitDir, "limit-" + w.lane + "-" + w.next++, s.bytes, null);
  }

  static PutOutcome sameKey(Shared s, Writer w) throws IOException {
    return s.store.putIfAbsent(Keys.numbered(0, w.next++), s.payload, w.writerId);
  }

  static PutOutcome distinctKeys(Shared s, Writer w) throws IOException {
    return s.store.putIfAbsent(Keys.numbered(w.lane, w.next++), s.payload, w.writerId);
  }

  static AdvanceReport sameKeyAndPointer(Shared s, Writer w) throws IOException {
    long n = w.next++;
    ObjectInfo t = s.store.putIfAbsent(Keys.numbered(0, n), s.payload, w.writerId).stored();
    // Key n is the pointer's n-th position (schema n + 1 orders them; every key has the same window).
    AdvanceReport report = s.advancer.advance(new Pointer(Keys.PIPELINE, t.key(), Keys.WINDOW_START, 60,
        (int) n + 1, t.sha256(), t.size(), w.writerId, Instant.EPOCH));
    if (report.status() == AdvanceStatus.BUSY || report.status() == AdvanceStatus.CONFLICT) {
      throw new IllegalStateException("a replica gave up its advance: " + report.status() + " after "
          + report.attempts() + " attempts in " + report.elapsed());
    }
    return report;
  }

  static AdvanceReport advance(Shared s, Writer w) throws IOException {
    ObjectInfo t = s.target;
    Pointer next = new Pointer(Keys.PIPELINE, t.key(), Keys.WINDOW_START, 60, s.schema.incrementAndGet(),
        t.sha256(), t.size(), w.writerId, Instant.EPOCH);
    return s.advancer.advance(next);
  }

  @Benchmark @Threads(1)
  public PutOutcome sameKeyT1(Shared s, Writer w) throws IOException {
    return sameKey(s, w);
  }

  @Benchmark @Threads(2)
  public PutOutcome sameKeyT2(Shared s, Writer w) throws IOException {
    return sameKey(s, w);
  }

  @Benchmark @Threads(4)
  public PutOutcome sameKeyT4(Shared s, Writer w) throws IOException {
    return sameKey(s, w);
  }

  @Benchmark @Threads(8)
  public PutOutcome sameKeyT8(Shared s, Writer w) throws IOException {
    return sameKey(s, w);
  }

  @Benchmark @Threads(1)
  public PutOutcome distinctKeysT1(Shared s, Writer w) throws IOException {
    return distinctKeys(s, w);
  }

  @Benchmark @Threads(2)
  public PutOutcome distinctKeysT2(Shared s, Writer w) throws IOException {
    return distinctKeys(s, w);
  }

  @Benchmark @Threads(4)
  public PutOutcome distinctKeysT4(Shared s, Writer w) throws IOException {
    return distinctKeys(s, w);
  }

  @Benchmark @Threads(8)
  public PutOutcome distinctKeysT8(Shared s, Writer w) throws IOException {
    return distinctKeys(s, w);
  }

  @Benchmark @Threads(1)
  public AdvanceReport sameKeyAndPointerT1(Shared s, Writer w) throws IOException {
    return sameKeyAndPointer(s, w);
  }

  @Benchmark @Threads(2)
  public AdvanceReport sameKeyAndPointerT2(Shared s, Writer w) throws IOException {
    return sameKeyAndPointer(s, w);
  }

  @Benchmark @Threads(4)
  public AdvanceReport sameKeyAndPointerT4(Shared s, Writer w) throws IOException {
    return sameKeyAndPointer(s, w);
  }

  @Benchmark @Threads(8)
  public AdvanceReport sameKeyAndPointerT8(Shared s, Writer w) throws IOException {
    return sameKeyAndPointer(s, w);
  }

  @Benchmark @Threads(32)
  public AdvanceReport sameKeyAndPointerT32(Shared s, Writer w) throws IOException {
    return sameKeyAndPointer(s, w);
  }

  @Benchmark @Threads(1)
  public AdvanceReport advanceT1(Shared s, Writer w) throws IOException {
    return advance(s, w);
  }

  @Benchmark @Threads(2)
  public AdvanceReport advanceT2(Shared s, Writer w) throws IOException {
    return advance(s, w);
  }

  @Benchmark @Threads(4)
  public AdvanceReport advanceT4(Shared s, Writer w) throws IOException {
    return advance(s, w);
  }

  @Benchmark @Threads(8)
  public AdvanceReport advanceT8(Shared s, Writer w) throws IOException {
    return advance(s, w);
  }

  @Benchmark @Threads(1)
  public Path limitDurableWriteT1(Shared s, Writer w) throws IOException {
    return limitDurableWrite(s, w);
  }

  @Benchmark @Threads(2)
  public Path limitDurableWriteT2(Shared s, Writer w) throws IOException {
    return limitDurableWrite(s, w);
  }

  @Benchmark @Threads(4)
  public Path limitDurableWriteT4(Shared s, Writer w) throws IOException {
    return limitDurableWrite(s, w);
  }

  @Benchmark @Threads(8)
  public Path limitDurableWriteT8(Shared s, Writer w) throws IOException {
    return limitDurableWrite(s, w);
  }

  @Benchmark @Threads(32)
  public Path limitDurableWriteT32(Shared s, Writer w) throws IOException {
    return limitDurableWrite(s, w);
  }
}
