package dev.idem.bench;

import dev.idem.core.store.Payload;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.PutStatus;
import dev.idem.store.fs.FsObjectStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
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

/**
 * Filesystem publish of one payload to a fresh key, idem against the shortest sequence that gives its
 * guarantees and against what people write by hand. Target: {@code idemPutIfAbsent} within 1.15× of
 * {@code inlineSameGuarantees}.
 *
 * <ul>
 *   <li>{@code idemPutIfAbsent}: {@link FsObjectStore#putIfAbsent} (the key's publish lock, temp file,
 *       hash while copying, {@code fsync}, {@code link}, directory {@code fsync}, a CREATED record).
 *   <li>{@code inlineSameGuarantees}, the limit for idem's guarantees, written inline here: the bytes
 *       hashed while written to a temporary file beside the key, forced, linked to the key create-only
 *       ({@code link(2)} fails where the key exists: no clobber), the temporary unlinked, the directory
 *       fsynced once for both, and a record naming the SHA-256 created in a records directory. The
 *       record is not forced, as idem's CREATED record is not: a record lost to a power cut costs a
 *       re-hash of the object, never a wrong answer, while the object is durable before it is written.
 *   <li>{@code inlineDurableAtomic}, the limit (a): the minimal crash-safe sequence written inline
 *       here, temp file, {@code FileChannel.force(true)}, {@code Files.move(ATOMIC_MOVE)}, directory
 *       {@code fsync}. It is crash-safe but not no-clobber: rename replaces whatever was there.
 *   <li>{@code inlineDurableAtomicHashed}: (a) plus a SHA-256 of the bytes while writing, the limit for
 *       a publish that must also know what it wrote (idem needs the hash to answer IDENTICAL or
 *       DIVERGENT later); shows how much of idem's gap is hashing.
 *   <li>{@code unsafeFilesWrite}, (b): {@code Files.write} over one fixed path, what most jobs do
 *       today; no fsync, not atomic, last writer wins.
 * </ul>
 *
 * <p>{@code paired} runs all five back to back in every call, rotating which goes first, and sums
 * each one's time in {@link Paired} counters ({@code paired:idemNanos}, ...): the five see the same
 * disk at the same moments, so their ratios hold even while other work on the machine makes the disk
 * slower or faster from one second to the next. {@code bench/run} reports these paired ratios.
 *
 * <p>Every method writes a new key per call (a counter), into a fresh directory per iteration under
 * {@link BenchDirs#base()} (pass {@code -Didem.bench.dir=DIR} to choose the disk; do not use a tmpfs,
 * where {@code fsync} costs nothing).
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar FsPublishBench -p payloadBytes=1024}, or
 * {@code bench/run} for every benchmark with a results table.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class FsPublishBench {

  @Param({"1024", "65536", "8388608"})
  int payloadBytes;

  private byte[] bytes;
  private Payload payload;
  private Path dir;
  private FsObjectStore store;
  private Path objectDir;
  private Path recordDir;
  private Path fixedPath;
  private long n;

  @Setup(Level.Trial)
  public void setUpTrial() {
    bytes = new byte[payloadBytes];
    new SplittableRandom(42).nextBytes(bytes);
    // Hashed once here, as the inline baselines get their bytes for free; the store still re-hashes
    // while it copies (it must, to refuse a payload that changed under it).
    payload = Payload.ofBytes(bytes);
  }

  @Setup(Level.Iteration)
  public void setUpIteration() throws IOException {
    dir = BenchDirs.fresh("fs-publish");
    store = FsObjectStore.open(dir.resolve("idem"));
    // One publish and one mkdir up front, so no measured call pays for creating directories.
    store.putIfAbsent(Keys.numbered(0, 0), payload, "bench");
    objectDir = Files.createDirectories(dir.resolve("inline").resolve(Keys.PIPELINE).resolve(Long.toString(Keys.WINDOW_START)));
    recordDir = Files.createDirectories(dir.resolve("inline-records").resolve(Keys.PIPELINE)
        .resolve(Long.toString(Keys.WINDOW_START)));
    fixedPath = dir.resolve("fixed-output.bin");
    n = 1;
  }

  @TearDown(Level.Iteration)
  public void tearDownIteration() throws IOException {
    store.close();
    BenchDirs.deleteTree(dir);
  }

  @Benchmark
  public PutOutcome idemPutIfAbsent() throws IOException {
    PutOutcome outcome = store.putIfAbsent(Keys.numbered(1, n++), payload, "bench");
    if (outcome.status() != PutStatus.CREATED) {
      throw new IllegalStateException("fresh key not created: " + outcome);
    }
    return outcome;
  }

  @Benchmark
  public Path inlineSameGuarantees() throws IOException, NoSuchAlgorithmException {
    return sameGuaranteesWrite(objectDir, recordDir, fileName(n++), bytes, MessageDigest.getInstance("SHA-256"));
  }

  @Benchmark
  public Path inlineDurableAtomic() throws IOException {
    return durableAtomicWrite(objectDir, fileName(n++), bytes, null);
  }

  @Benchmark
  public Path inlineDurableAtomicHashed() throws IOException, NoSuchAlgorithmException {
    return durableAtomicWrite(objectDir, fileName(n++), bytes, MessageDigest.getInstance("SHA-256"));
  }

  @Benchmark
  public Path unsafeFilesWrite() throws IOException {
    return Files.write(fixedPath, bytes);
  }

  private static String fileName(long n) {
    String key = Keys.numbered(1, n);
    return key.substring(key.lastIndexOf('/') + 1);
  }

  /**
   * The minimal durable atomic publish: write a temp file beside the target, force it, rename it over
   * the target atomically, force the directory so the rename survives a power loss.
   */
  static Path durableAtomicWrite(Path dir, String name, byte[] content, MessageDigest hashWhileWriting)
      throws IOException {
    Path temp = dir.resolve(".tmp-" + name);
    Path target = dir.resolve(name);
    try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      if (hashWhileWriting == null) {
        ByteBuffer b = ByteBuffer.wrap(content);
        while (b.hasRemaining()) {
          ch.write(b);
        }
      } else {
        for (int off = 0; off < content.length; off += 64 * 1024) {
          int len = Math.min(64 * 1024, content.length - off);
          hashWhileWriting.update(content, off, len);
          ByteBuffer b = ByteBuffer.wrap(content, off, len);
          while (b.hasRemaining()) {
            ch.write(b);
          }
        }
        hashWhileWriting.digest();
      }
      ch.force(true);
    }
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
    return target;
  }

  /**
   * The shortest publish with idem's guarantees (see the class comment): create-only by {@code link},
   * the object durable before its record exists, each directory synced once.
   */
  static Path sameGuaranteesWrite(Path dir, Path records, String name, byte[] content, MessageDigest md)
      throws IOException {
    Path temp = dir.resolve(".tmp-" + name);
    Path target = dir.resolve(name);
    try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      for (int off = 0; off < content.length; off += 64 * 1024) {
        int len = Math.min(64 * 1024, content.length - off);
        md.update(content, off, len);
        ByteBuffer b = ByteBuffer.wrap(content, off, len);
        while (b.hasRemaining()) {
          ch.write(b);
        }
      }
      ch.force(true);
    }
    String sha = HexFormat.of().formatHex(md.digest());
    Files.createLink(target, temp);
    Files.delete(temp);
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
    Files.write(records.resolve(name + "!CREATED." + sha), (sha + " " + content.length + " bench\n")
        .getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    return target;
  }

  /** Time spent in each side of {@link #paired}, summed over one iteration. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Paired {
    public long rounds;
    public long idemNanos;
    public long sameGuaranteesNanos;
    public long inlineNanos;
    public long inlineHashedNanos;
    public long unsafeNanos;

    @Setup(Level.Iteration)
    public void reset() {
      rounds = 0;
      idemNanos = 0;
      sameGuaranteesNanos = 0;
      inlineNanos = 0;
      inlineHashedNanos = 0;
      unsafeNanos = 0;
    }
  }

  @Benchmark
  public void paired(Paired p, Blackhole bh) throws IOException, NoSuchAlgorithmException {
    int first = (int) (p.rounds++ % 5);
    for (int i = 0; i < 5; i++) {
      int which = (first + i) % 5;
      long t0 = System.nanoTime();
      switch (which) {
        case 0 -> bh.consume(idemPutIfAbsent());
        case 1 -> bh.consume(inlineDurableAtomic());
        case 2 -> bh.consume(inlineDurableAtomicHashed());
        case 3 -> bh.consume(inlineSameGuarantees());
        default -> bh.consume(unsafeFilesWrite());
      }
      long dt = System.nanoTime() - t0;
      switch (which) {
        case 0 -> p.idemNanos += dt;
        case 1 -> p.inlineNanos += dt;
        case 2 -> p.inlineHashedNanos += dt;
        case 3 -> p.sameGuaranteesNanos += dt;
        default -> p.unsafeNanos += dt;
      }
    }
  }
}
