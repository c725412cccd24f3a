package dev.idem.bench;

import dev.idem.core.OutputKey;
import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Deriving a key from a {@link RunSpec} against the physical limit: one SHA-256 of the same canonical
 * bytes through a {@link MessageDigest} kept from call to call, plus lowercase hex formatting. Target:
 * {@code idemOutputKey} within 1.5× of {@code limitDigestHex}.
 *
 * <ul>
 *   <li>{@code idemOutputKey}: {@code spec.outputKey()}, what {@code Publisher} does first (encode,
 *       hash, hex, validate into an {@link OutputKey}).
 *   <li>{@code idemKeyString}: the same plus {@code toString()}, the string the store receives.
 *   <li>{@code limitDigestHex}: digest of the precomputed canonical bytes with a reused digest, then
 *       hex. Nothing idem does can be cheaper than this.
 *   <li>{@code freshDigestHex}: the limit with {@code MessageDigest.getInstance} per call, to show how
 *       much of the gap is the provider look-up.
 *   <li>Where the rest of the gap goes: {@code partCanonicalBytes} ({@link RunSpec#canonicalBytes()},
 *       the encoding alone) and {@code partKeyRecord} (a validated {@link OutputKey} from a finished
 *       digest: {@code OutputKey.of}, which checks the pipeline name and the hex; the derivation itself
 *       skips that check since the spec validated its name and the hex is made by {@code Sha256.hex}).
 *   <li>{@code paired}: {@value #BATCH} keys of {@code idemOutputKey} and {@value #BATCH} of {@code
 *       limitDigestHex} in every call, alternating which batch goes first, each batch timed and summed
 *       in {@link Paired} counters. Both sides share the CPU's good and bad moments, so their ratio holds
 *       on a machine whose speed drifts; {@code bench/run} reports the target from it. A batch is timed
 *       rather than each key so that {@code System.nanoTime}'s own cost (about 20 ns) stays near 1 %.
 * </ul>
 *
 * {@code inputs} is the number of declared extra inputs (0: the reference four-field spec; 4: a spec
 * with four short declared inputs, e.g. snapshot version ids).
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar KeyingBench} (add {@code -prof gc} for
 * allocation per key), or {@code bench/run} for every benchmark with a results table.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
@State(Scope.Thread)
public class KeyingBench {

  @Param({"0", "4"})
  int inputs;

  private RunSpec spec;
  private byte[] canonical;
  private MessageDigest digest;
  private String digestHex;

  @Setup
  public void setUp() throws NoSuchAlgorithmException {
    SplittableRandom random = new SplittableRandom(42);
    spec = RunSpec.of("border-state", new Window(1_726_000_000L, 60), 3);
    for (int i = 0; i < inputs; i++) {
      spec = spec.withInput("input-" + i, "snapshot-" + Long.toHexString(random.nextLong()));
    }
    canonical = spec.canonicalBytes();
    digest = MessageDigest.getInstance("SHA-256");
    digestHex = spec.outputKey().digestHex();
  }

  @Benchmark
  public OutputKey idemOutputKey() {
    return spec.outputKey();
  }

  @Benchmark
  public String idemKeyString() {
    return spec.outputKey().toString();
  }

  @Benchmark
  public String limitDigestHex() {
    return Hex.lower(digest.digest(canonical));
  }

  @Benchmark
  public String freshDigestHex() throws NoSuchAlgorithmException {
    return Hex.lower(MessageDigest.getInstance("SHA-256").digest(canonical));
  }

  @Benchmark
  public byte[] partCanonicalBytes() {
    return spec.canonicalBytes();
  }

  @Benchmark
  public OutputKey partKeyRecord() {
    return OutputKey.of(spec.pipeline(), spec.window().startEpochSecond(), digestHex);
  }

  /** Keys per timed batch in {@link #paired}. */
  static final int BATCH = 32;

  /** Time spent in each side of {@link #paired}, summed over one iteration. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Paired {
    public long keys;
    public long idemNanos;
    public long limitNanos;

    @Setup(Level.Iteration)
    public void reset() {
      keys = 0;
      idemNanos = 0;
      limitNanos = 0;
    }
  }

  @Benchmark
  public void paired(Paired p, Blackhole bh) {
    boolean idemFirst = (p.keys / BATCH & 1) == 0;
    p.keys += BATCH;
    for (int side = 0; side < 2; side++) {
      boolean idem = idemFirst == (side == 0);
      long t0 = System.nanoTime();
      for (int i = 0; i < BATCH; i++) {
        bh.consume(idem ? spec.outputKey() : limitDigestHex());
      }
      long dt = System.nanoTime() - t0;
      if (idem) {
        p.idemNanos += dt;
      } else {
        p.limitNanos += dt;
      }
    }
  }
}
