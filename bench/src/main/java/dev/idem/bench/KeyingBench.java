package dev.idem.bench;

import dev.idem.core.OutputKey;
import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

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
 *       the encoding alone) and {@code partKeyRecord} (constructing the {@link OutputKey} record from
 *       a finished digest, which validates the pipeline name and the hex again).
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
    return new OutputKey(spec.pipeline(), spec.window().startEpochSecond(), digestHex);
  }
}
