package dev.idem.bench;

import dev.idem.store.s3.testing.S3ProxyServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The quick profile: every benchmark class with short warmups and measurements and one fork, run
 * group by group so that idem and its baseline run back to back, then one markdown table with the
 * ratios, the targets, and the machine it ran on. Sized to finish in well under 15 minutes on 2
 * cores; figures are for side-by-side ratios, not for absolute claims.
 *
 * <p>Starts S3Proxy itself (a child JVM, through {@link S3ProxyServer}) for the S3 group and stops it
 * at the end. Raw JMH results go to {@code <out dir>/jmh/<group>.json}.
 *
 * <p>Run: {@code bench/run} (builds first when needed), or {@code java -cp bench/target/benchmarks.jar
 * dev.idem.bench.QuickProfile [--out FILE] [--only REGEX]}, where {@code REGEX} picks groups by name
 * ({@code keying fs skip contention pointer s3}).
 */
public final class QuickProfile {
  private static final long KIB = 1024;
  private static final long MIB = 1024 * KIB;

  private final Path jmhDir;
  private final List<String> forkArgs = new ArrayList<>();
  private final ResultsReport report;

  private QuickProfile(Path jmhDir, ResultsReport report) {
    this.jmhDir = jmhDir;
    this.report = report;
  }

  public static void main(String[] args) throws Exception {
    Path out = Paths.get("bench", "target", "results.md");
    Pattern only = Pattern.compile(".*");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--out" -> out = Paths.get(args[++i]);
        case "--only" -> only = Pattern.compile(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]
            + " (usage: QuickProfile [--out FILE] [--only REGEX])");
      }
    }
    out = out.toAbsolutePath();
    Path jmhDir = Files.createDirectories(out.getParent().resolve("jmh"));
    Path dataDir = BenchDirs.base();
    Instant start = Instant.now();
    ResultsReport report = new ResultsReport(Machine.describe(dataDir), start);
    QuickProfile profile = new QuickProfile(jmhDir, report);
    profile.forkArgs.add("-D" + BenchDirs.PROPERTY + "=" + dataDir);

    if (only.matcher("keying").find()) {
      profile.keying();
    }
    if (only.matcher("fs").find()) {
      profile.fsPublish();
    }
    if (only.matcher("skip").find()) {
      profile.skipPath();
    }
    if (only.matcher("contention").find()) {
      profile.contention();
    }
    if (only.matcher("pointer").find()) {
      profile.pointerCas();
    }
    if (only.matcher("s3").find()) {
      try (S3ProxyServer server = S3ProxyServer.start()) {
        report.note("S3Proxy " + S3ProxyServer.VERSION + " (transient-nio2, in memory) in a child JVM at "
            + server.endpoint() + ", started and stopped by this run.");
        profile.forkArgs.add("-D" + S3Bench.ENDPOINT_PROPERTY + "=" + server.endpoint());
        profile.s3();
      }
    }
    report.finish(Machine.loadAverage(), Duration.between(start, Instant.now()));
    Files.writeString(out, report.markdown(), StandardCharsets.UTF_8);
    System.out.println();
    System.out.println("Results table: " + out);
  }

  // ------------------------------------------------------------------------------------------ runs

  private ChainedOptionsBuilder options(String group, int warmups, TimeValue warmupTime, int iterations,
      TimeValue iterationTime) {
    return new OptionsBuilder()
        .forks(1)
        .warmupIterations(warmups)
        .warmupTime(warmupTime)
        .measurementIterations(iterations)
        .measurementTime(iterationTime)
        .jvmArgsAppend(forkArgs.toArray(new String[0]))
        .shouldFailOnError(true)
        .resultFormat(ResultFormatType.JSON)
        .result(jmhDir.resolve(group + ".json").toString());
  }

  private static JmhResults run(ChainedOptionsBuilder options) throws RunnerException {
    return new JmhResults(new Runner(options.build()).run());
  }

  private void keying() throws RunnerException {
    // Three 1 s warmups: a key takes about 2.5 s of calls to reach its compiled steady state (the
    // SHA-256 intrinsic is C2's); with 0.3 s warmups every figure here was the interpreter's, ~8x slower.
    JmhResults r = run(options("keying", 3, TimeValue.seconds(1), 5, TimeValue.milliseconds(500))
        .include(KeyingBench.class.getName() + "\\."));
    ResultsReport.Table t = report.table("Keying: RunSpec → key (ns/op, lower is better)",
        "Limit: one SHA-256 of the same canonical bytes with a reused MessageDigest, plus hex. "
            + "`inputs` = declared extra inputs (0 is the reference four-field spec). The columns up to the parts "
            + "are separate runs (median ns/op); `paired` runs " + KeyingBench.BATCH + " idem keys and "
            + KeyingBench.BATCH + " limit keys in every call, alternating which goes first, and the target is "
            + "judged on the ratio of those paired totals.",
        "inputs", "idem outputKey()", "idem key string", "limit: digest + hex", "getInstance + digest + hex",
        "part: canonicalBytes()", "part: OutputKey.of", "idem / limit (separate)", "idem / limit (paired)");
    for (String inputs : List.of("0", "4")) {
      Result<?> idem = r.get("idemOutputKey", "inputs", inputs);
      Result<?> limit = r.get("limitDigestHex", "inputs", inputs);
      double paired = r.secondary("paired", "idemNanos", "inputs", inputs)
          / r.secondary("paired", "limitNanos", "inputs", inputs);
      t.row(inputs, fmt(idem), fmt(r.get("idemKeyString", "inputs", inputs)), fmt(limit),
          fmt(r.get("freshDigestHex", "inputs", inputs)), fmt(r.get("partCanonicalBytes", "inputs", inputs)),
          fmt(r.get("partKeyRecord", "inputs", inputs)), ratioText(ratio(idem, limit)), ratioText(paired));
      report.target("Keying within 1.5× of the limit (inputs=" + inputs + ", paired)", ratioText(paired),
          paired <= 1.5);
    }
  }

  private void fsPublish() throws RunnerException {
    ResultsReport.Table t = report.table("Filesystem publish to a fresh key (µs/op, lower is better)",
        "(limit) = the shortest sequence with idem's guarantees, written inline: temp file hashed while "
            + "written, force, link create-only, unlink the temp, directory fsync, a record created (not forced, "
            + "as idem's is not); (a) = temp file, force, ATOMIC_MOVE, directory fsync (crash-safe, but rename "
            + "replaces: no create-only); (b) = Files.write over one fixed path (no fsync, not atomic). Paired: "
            + "every call of FsPublishBench.paired runs all five back to back, rotating which goes first, so they "
            + "share the disk's good and bad moments; times are each side's total over all measured calls divided "
            + "by the calls, ratios are of those totals.",
        "payload", "calls", "idem putIfAbsent", "(limit) same guarantees", "(a) durable atomic", "(b) Files.write",
        "idem / (limit)", "idem / (a)", "idem / (b)");
    for (long size : List.of(KIB, 64 * KIB, 8 * MIB)) {
      String p = Long.toString(size);
      JmhResults r = run(options("fs-" + size, 1, TimeValue.seconds(1), 5, TimeValue.seconds(1))
          .include(FsPublishBench.class.getName() + "\\.paired$")
          .param("payloadBytes", p));
      double rounds = r.secondary("paired", "rounds", "payloadBytes", p);
      double idem = r.secondary("paired", "idemNanos", "payloadBytes", p);
      double limit = r.secondary("paired", "sameGuaranteesNanos", "payloadBytes", p);
      double a = r.secondary("paired", "inlineNanos", "payloadBytes", p);
      double b = r.secondary("paired", "unsafeNanos", "payloadBytes", p);
      double ratio = idem / limit;
      int iterations = r.findRun("paired", "payloadBytes", p).getParams().getMeasurement().getCount();
      t.row(bytes(size), num(rounds * iterations), micros(idem, rounds), micros(limit, rounds), micros(a, rounds),
          micros(b, rounds), ratioText(ratio), ratioText(idem / a), ratioText(idem / b));
      report.target("FS publish within 1.15× of the same guarantees' limit at " + bytes(size), ratioText(ratio),
          ratio <= 1.15);
    }
  }

  /** Mean microseconds per call from a per-iteration nanosecond sum and call count. */
  private static String micros(double nanos, double calls) {
    return num(nanos / calls / 1000);
  }

  private void skipPath() throws RunnerException {
    JmhResults r = run(options("skip", 2, TimeValue.milliseconds(300), 5, TimeValue.milliseconds(300))
        .include(SkipPathBench.class.getName() + "\\."));
    ResultsReport.Table t = report.table("Skip path: is this key already published? (ns/op, lower is better)",
        "A replica checking a key that holds an object, on the filesystem store.",
        "check", "idem", "limit", "limit is", "idem / limit");
    Result<?> cached = r.get("idemExistsCached");
    Result<?> set = r.get("limitSetContains");
    Result<?> stat = r.get("limitStat");
    t.row("exists(), key seen before (cached)", fmt(cached), fmt(set), "ConcurrentHashMap key-set lookup",
        ratioText(ratio(cached, set)));
    t.row("exists(), cache disabled", fmt(r.get("idemExistsNoCache")), fmt(stat), "Files.isRegularFile (one stat)",
        ratioText(ratio(r.get("idemExistsNoCache"), stat)));
    t.row("new store instance + exists()", fmt(r.get("idemExistsNewStore")), fmt(stat),
        "Files.isRegularFile (one stat)", ratioText(ratio(r.get("idemExistsNewStore"), stat)));
    t.row("whole Publisher.publish → SKIPPED", fmt(r.get("idemPublisherSkip")), fmt(stat),
        "Files.isRegularFile (one stat)", ratioText(ratio(r.get("idemPublisherSkip"), stat)));
    report.target("Cached skip check under 1 µs", num(score(cached)) + " ns", score(cached) < 1000);
  }

  private void contention() throws RunnerException {
    JmhResults r = run(options("contention", 1, TimeValue.seconds(1), 3, TimeValue.seconds(2))
        .include(ContentionBench.class.getName() + "\\."));
    ResultsReport.Table t = report.table("Contention on one filesystem store (SampleTime: µs per operation)",
        "Threads in one JVM, each doing one operation after another; 1 KiB payloads. Throughput = "
            + "threads / mean latency, summed over all threads; 'vs 1 thread' is that throughput over the "
            + "1-thread throughput of the same workload.",
        "workload", "threads", "mean µs", "p50 µs", "p99 µs", "ops/s (all threads)", "vs 1 thread");
    for (String workload : List.of("sameKey", "sameKeyAndPointer", "distinctKeys", "advance", "limitDurableWrite")) {
      double base = Double.NaN;
      for (int threads : List.of(1, 2, 4, 8)) {
        Result<?> res = r.get(workload + "T" + threads);
        double mean = res.getScore();
        double throughput = threads * 1e6 / mean;
        if (threads == 1) {
          base = throughput;
        }
        t.row(workloadName(workload), Integer.toString(threads), num(mean),
            num(res.getStatistics().getPercentile(50)), num(res.getStatistics().getPercentile(99)),
            num(throughput), ratioText(throughput / base));
      }
    }
    ResultsReport.Table beside = report.table("Replicas of one job against bare durable writers (SampleTime: µs)",
        "n threads publishing one key and advancing its pointer, against n threads each writing a file of its "
            + "own durably (temporary file, force, rename, directory fsync) in the same run, on the same disk.",
        "threads", "replicas p50 µs", "replicas p99 µs", "bare writers p50 µs", "bare writers p99 µs",
        "p99 replicas / bare");
    double worst = 0;
    for (int threads : List.of(2, 8, 32)) {
      Result<?> idem = r.get("sameKeyAndPointerT" + threads);
      Result<?> bare = r.get("limitDurableWriteT" + threads);
      double tail = idem.getStatistics().getPercentile(99) / bare.getStatistics().getPercentile(99);
      worst = Math.max(worst, tail);
      beside.row(Integer.toString(threads), num(idem.getStatistics().getPercentile(50)),
          num(idem.getStatistics().getPercentile(99)), num(bare.getStatistics().getPercentile(50)),
          num(bare.getStatistics().getPercentile(99)), ratioText(tail));
    }
    report.target("Contention: p99 of n replicas (one key + pointer) within 1.3× n bare durable writers' (n = 2, 8, 32); "
        + "no replica gives up its advance", "at most " + ratioText(worst), worst <= 1.3);
  }

  private static double p99(JmhResults r, String method) {
    return r.get(method).getStatistics().getPercentile(99);
  }

  private static String workloadName(String method) {
    return switch (method) {
      case "sameKey" -> "publish, same keys (1 CREATED + n-1 IDENTICAL)";
      case "sameKeyAndPointer" -> "publish, same keys, then advance the pointer to it";
      case "distinctKeys" -> "publish, distinct keys";
      case "limitDurableWrite" -> "limit: bare durable write of a file of its own";
      case "advance" -> "pointer advance";
      default -> method;
    };
  }

  private void pointerCas() throws RunnerException {
    JmhResults r = run(options("pointer", 1, TimeValue.seconds(1), 5, TimeValue.seconds(2))
        .include(PointerCasBench.class.getName() + "\\.paired$"));
    ResultsReport.Table t = report.table("Pointer compare-and-swap, one writer (ops/s, higher is better)",
        "JGit RefUpdate on a bare file repository (no reflog), forced update with an expected old id. Paired: "
            + "every call of PointerCasBench.paired runs all five back to back, rotating which goes first; ops/s "
            + "is calls over each side's total time, ratios are of those totals.",
        "operation", "ops/s", "fsyncs per op", "idem CAS / this");
    double rounds = r.secondary("paired", "rounds");
    double idem = r.secondary("paired", "idemCasNanos");
    String[][] rows = {
        {"idem compareAndSetPointer (+ readPointer)", "idemCasNanos", "2 (temp, pointer dir; the named object was published by this store, so already durable)"},
        {"idem PointerAdvancer.advance", "idemAdvanceNanos", "2"},
        {"JGit RefUpdate, core.fsyncRefFiles=true", "jgitFsyncNanos", "1 (lock file)"},
        {"JGit RefUpdate, fsyncRefFiles + dir fsync", "jgitFsyncDirFsyncNanos", "2 (lock file, refs/heads)"},
        {"JGit RefUpdate, default (no fsync)", "jgitDefaultNanos", "0"},
    };
    for (String[] row : rows) {
      double nanos = r.secondary("paired", row[1]);
      t.row(row[0], num(rounds / nanos * 1e9), row[2], ratioText(nanos / idem));
    }
    double ratio = r.secondary("paired", "jgitFsyncNanos") / idem;
    report.target("Pointer CAS throughput ≥ JGit RefUpdate (fsyncRefFiles)", ratioText(ratio), ratio >= 1.0);
    double fair = r.secondary("paired", "jgitFsyncDirFsyncNanos") / idem;
    report.target("(like for like) Pointer CAS throughput ≥ JGit RefUpdate + dir fsync", ratioText(fair), fair >= 1.0);
  }

  private void s3() throws RunnerException {
    // Small payloads get more, shorter iterations; a 64 MiB PUT takes most of a second here.
    JmhResults puts = run(options("s3-put", 2, TimeValue.seconds(1), 5, TimeValue.seconds(1))
        .include(S3Bench.class.getName() + "\\.(idemPut|sdkPut)$")
        .param("payloadBytes", Long.toString(KIB), Long.toString(MIB))
        .addProfiler(GCProfiler.class))
        .and(run(options("s3-put-64m", 1, TimeValue.seconds(3), 3, TimeValue.seconds(3))
            .include(S3Bench.class.getName() + "\\.(idemPut|sdkPut)$")
            .param("payloadBytes", Long.toString(64 * MIB))
            .addProfiler(GCProfiler.class)))
        .and(run(options("s3-put-256m", 1, TimeValue.seconds(1), 3, TimeValue.seconds(1))
            .include(S3Bench.class.getName() + "\\.(idemPut|sdkPut)$")
            .param("payloadBytes", Long.toString(256 * MIB))
            .addProfiler(GCProfiler.class)));
    JmhResults conflicts = run(options("s3-412", 2, TimeValue.seconds(1), 5, TimeValue.seconds(1))
        .include(S3Bench.class.getName() + "\\.(idemPut412|sdkPut412|sdkPut412Head)$")
        .param("payloadBytes", "1024")
        .addProfiler(GCProfiler.class));
    JmhResults paired = run(options("s3-paired", 2, TimeValue.seconds(1), 5, TimeValue.seconds(1))
        .include(S3Bench.class.getName() + "\\.paired$")
        .param("payloadBytes", Long.toString(KIB), Long.toString(MIB)))
        .and(run(options("s3-paired-64m", 1, TimeValue.seconds(3), 3, TimeValue.seconds(4))
            .include(S3Bench.class.getName() + "\\.paired$")
            .param("payloadBytes", Long.toString(64 * MIB))))
        .and(run(options("s3-paired-256m", 1, TimeValue.seconds(1), 3, TimeValue.seconds(6))
            .include(S3Bench.class.getName() + "\\.paired$")
            .param("payloadBytes", Long.toString(256 * MIB))));
    ResultsReport.Table t = report.table("S3 create-only PUT to a fresh key, same local S3Proxy (µs/op and bytes allocated/op)",
        "idem S3ObjectStore.putIfAbsent vs AWS SDK v2 putObject(ifNoneMatch(\"*\")) with its defaults (aws-chunked "
            + "upload, per-chunk signatures, CRC32 trailer), both from the same file. Times are paired (S3Bench.paired "
            + "alternates the two in every call; each side's total over the calls); allocation is JMH -prof gc "
            + "gc.alloc.rate.norm of the separate idemPut / sdkPut runs, over every thread of the JVM (HTTP client "
            + "threads included); the unpaired medians are in brackets for reference.",
        "payload", "calls", "idem µs", "SDK µs", "time idem / SDK", "idem B/op", "SDK B/op", "alloc idem / SDK",
        "idem B/op ÷ payload");
    for (long size : List.of(KIB, MIB, 64 * MIB, 256 * MIB)) {
      String p = Long.toString(size);
      double rounds = paired.secondary("paired", "rounds", "payloadBytes", p);
      double idemNanos = paired.secondary("paired", "idemNanos", "payloadBytes", p);
      double sdkNanos = paired.secondary("paired", "sdkNanos", "payloadBytes", p);
      int iterations = paired.findRun("paired", "payloadBytes", p).getParams().getMeasurement().getCount();
      Result<?> idem = puts.get("idemPut", "payloadBytes", p);
      Result<?> sdk = puts.get("sdkPut", "payloadBytes", p);
      double idemAlloc = puts.alloc("idemPut", "payloadBytes", p);
      double sdkAlloc = puts.alloc("sdkPut", "payloadBytes", p);
      double timeRatio = idemNanos / sdkNanos;
      t.row(bytes(size), num(rounds * iterations), micros(idemNanos, rounds) + " [" + num(score(idem)) + "]",
          micros(sdkNanos, rounds) + " [" + num(score(sdk)) + "]", ratioText(timeRatio), num(idemAlloc),
          num(sdkAlloc), ratioText(idemAlloc / sdkAlloc), String.format(Locale.ROOT, "%.3f", idemAlloc / size));
      report.target("S3 PUT no slower than the SDK at " + bytes(size), ratioText(timeRatio), timeRatio <= 1.0);
      report.target("S3 PUT allocates less than the SDK at " + bytes(size), ratioText(idemAlloc / sdkAlloc),
          idemAlloc < sdkAlloc);
    }
    ResultsReport.Table c = report.table("S3 publish over an existing key: the 412 path, 1 KiB (µs/op, bytes/op)",
        "idem: conditional PUT → 412 → HEAD → compare SHA-256 → IDENTICAL. SDK: the conditional PUT "
            + "throwing S3Exception(412), and the same plus the headObject a caller needs to learn what is there.",
        "operation", "µs/op", "B/op", "idem / this (time)", "idem / this (alloc)");
    Result<?> idem412 = conflicts.get("idemPut412", "payloadBytes", "1024");
    double idem412Alloc = conflicts.alloc("idemPut412", "payloadBytes", "1024");
    for (String m : List.of("idemPut412", "sdkPut412", "sdkPut412Head")) {
      Result<?> res = conflicts.get(m, "payloadBytes", "1024");
      double alloc = conflicts.alloc(m, "payloadBytes", "1024");
      c.row(switch (m) {
        case "idemPut412" -> "idem putIfAbsent → IDENTICAL";
        case "sdkPut412" -> "SDK putObject → S3Exception 412";
        default -> "SDK putObject → 412, then headObject";
      }, fmt(res), num(alloc), ratioText(ratio(idem412, res)), ratioText(idem412Alloc / alloc));
    }
    Result<?> sdkHead = conflicts.get("sdkPut412Head", "payloadBytes", "1024");
    report.target("S3 412 path no slower than SDK PUT+HEAD", ratioText(ratio(idem412, sdkHead)),
        ratio(idem412, sdkHead) <= 1.0);

    // No whole-payload buffering: a 64 MiB publish must work in a heap smaller than the payload.
    ResultsReport.Table h = report.table("64 MiB PUT in a 48 MiB heap (-Xmx48m): does the payload get buffered?",
        "One short measurement per side in a fork whose heap cannot hold the payload; a side that buffers "
            + "the whole payload fails with OutOfMemoryError.",
        "side", "result", "µs/op");
    JmhResults small = new JmhResults(List.of());
    try {
      small = run(options("s3-small-heap", 0, TimeValue.seconds(1), 1, TimeValue.seconds(3))
          .include(S3Bench.class.getName() + "\\.(idemPut|sdkPut)$")
          .param("payloadBytes", Long.toString(64 * MIB))
          .jvmArgsAppend(append(forkArgs, "-Xmx48m"))
          .shouldFailOnError(false));
    } catch (RunnerException e) {
      report.note("The small-heap run failed as a whole: " + e.getMessage());
    }
    for (String m : List.of("idemPut", "sdkPut")) {
      Result<?> res = small.find(m, "payloadBytes", Long.toString(64 * MIB));
      h.row(m.startsWith("idem") ? "idem" : "SDK", res == null ? "FAILED (see the JMH log)" : "completed",
          res == null ? "-" : fmt(res));
      if (m.startsWith("idem")) {
        report.target("S3 64 MiB publish streams (works with -Xmx48m)", res == null ? "failed" : "completed",
            res != null);
      }
    }
  }

  private static String[] append(List<String> args, String more) {
    List<String> all = new ArrayList<>(args);
    all.add(more);
    return all.toArray(new String[0]);
  }

  // ------------------------------------------------------------------------------------ formatting

  private static double ratio(Result<?> idem, Result<?> baseline) {
    return score(idem) / score(baseline);
  }

  static String ratioText(double r) {
    return Double.isFinite(r) ? String.format(Locale.ROOT, "%.2f×", r) : "n/a";
  }

  /**
   * The median of the measurement iterations. On a shared machine a burst of someone else's work
   * spoils one iteration; the median shrugs it off where the mean does not.
   */
  static double score(Result<?> r) {
    return r.getStatistics().getN() > 0 ? r.getStatistics().getPercentile(50) : r.getScore();
  }

  /** The median with the range of iterations: {@code median [min–max]}. */
  static String fmt(Result<?> r) {
    if (r.getStatistics().getN() < 2) {
      return num(score(r));
    }
    return num(score(r)) + " [" + num(r.getStatistics().getMin()) + "–" + num(r.getStatistics().getMax()) + "]";
  }

  /** Three significant digits, without scientific notation. */
  static String num(double v) {
    if (!Double.isFinite(v)) {
      return "n/a";
    }
    double a = Math.abs(v);
    if (a >= 1000) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    if (a >= 100) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    if (a >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }

  static String bytes(long n) {
    if (n >= MIB && n % MIB == 0) {
      return n / MIB + " MiB";
    }
    if (n >= KIB && n % KIB == 0) {
      return n / KIB + " KiB";
    }
    return n + " B";
  }
}
