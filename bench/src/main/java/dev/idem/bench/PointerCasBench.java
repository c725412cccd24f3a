package dev.idem.bench;

import dev.idem.core.publish.AdvanceReport;
import dev.idem.core.publish.AdvanceStatus;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.store.fs.FsObjectStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.ConfigConstants;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.openjdk.jmh.annotations.AuxCounters;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * A durable pointer compare-and-swap, idem's filesystem pointer against git's ref update (JGit
 * {@link RefUpdate} on a file repository with {@code core.fsyncRefFiles=true}, its durable
 * setting). Target: {@code idemCas} throughput at least {@code jgitRefUpdateFsync}'s.
 *
 * <ul>
 *   <li>{@code idemCas}: {@code readPointer} (the token), then {@code compareAndSetPointer}: kernel
 *       lock, re-read and compare under the lock, {@code fsync} of the named object and its
 *       directory, temp file, {@code fsync}, atomic rename, directory {@code fsync}.
 *   <li>{@code idemAdvance}: {@link PointerAdvancer#advance}, the call a publisher makes: also checks
 *       the named object exists with the pointer's hash and that the move goes forward (G1, G2).
 *   <li>{@code jgitRefUpdateFsync}: {@code repo.updateRef} (reads the ref), expected old id, new id,
 *       forced update: {@code .lock} file by {@code O_EXCL}, write, {@code fsync}, rename. JGit never
 *       {@code fsync}s the directory, so its rename can be lost by a power loss that idem's survives.
 *   <li>{@code jgitRefUpdateFsyncDirFsync}: the same plus an {@code fsync} of {@code refs/heads}
 *       afterwards, what JGit would cost at idem's durability: the like-for-like peer.
 *   <li>{@code jgitRefUpdateDefault}: the same with JGit's default (no {@code fsync}), for scale.
 * </ul>
 *
 * {@code paired} runs all five back to back in every call, rotating which goes first, and sums each
 * one's time in {@link Paired} counters, so their ratios hold while the disk's speed drifts; {@code
 * bench/run} reports those.
 *
 * <p>Both sides swap between values on one thread; the repository is bare, so JGit writes no reflog
 * (idem keeps no pointer log on the filesystem either).
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar PointerCasBench}, or {@code bench/run}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class PointerCasBench {
  private static final String REF = "refs/heads/latest";

  private Path dir;
  private FsObjectStore store;
  private PointerAdvancer advancer;
  private ObjectInfo target;
  private int schema;
  private Repository fsyncRepo;
  private Path fsyncRefDir;
  private Repository defaultRepo;
  private ObjectId[] ids;
  private final int[] fsyncFlip = new int[1];
  private final int[] defaultFlip = new int[1];

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = BenchDirs.fresh("pointer-cas");
    store = FsObjectStore.open(dir.resolve("idem"));
    byte[] bytes = new byte[1024];
    new SplittableRandom(42).nextBytes(bytes);
    target = store.putIfAbsent(Keys.numbered(0, 0), Payload.ofBytes(bytes), "bench").stored();
    advancer = new PointerAdvancer(store);
    advancer.advance(pointer(++schema));

    fsyncRepo = bareRepository(dir.resolve("fsync.git"), true);
    fsyncRefDir = dir.resolve("fsync.git").resolve("refs").resolve("heads");
    defaultRepo = bareRepository(dir.resolve("default.git"), false);
    ids = new ObjectId[2];
    for (Repository repo : new Repository[] {fsyncRepo, defaultRepo}) {
      try (ObjectInserter ins = repo.newObjectInserter()) {
        for (int i = 0; i < 2; i++) {
          ids[i] = ins.insert(Constants.OBJ_BLOB, ("generation " + i).getBytes(StandardCharsets.UTF_8));
        }
        ins.flush();
      }
      RefUpdate u = repo.updateRef(REF);
      u.setNewObjectId(ids[0]);
      u.setExpectedOldObjectId(ObjectId.zeroId());
      expect(u.update(), RefUpdate.Result.NEW);
    }
  }

  private static Repository bareRepository(Path gitDir, boolean fsync) throws IOException {
    Repository repo = new FileRepository(gitDir.toFile());
    repo.create(true);
    StoredConfig config = repo.getConfig();
    config.setBoolean(ConfigConstants.CONFIG_CORE_SECTION, null, "fsyncRefFiles", fsync);
    config.setBoolean(ConfigConstants.CONFIG_CORE_SECTION, null, ConfigConstants.CONFIG_KEY_LOGALLREFUPDATES, false);
    config.save();
    return repo;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    store.close();
    fsyncRepo.close();
    defaultRepo.close();
    BenchDirs.deleteTree(dir);
  }

  private Pointer pointer(int schemaVersion) {
    return new Pointer(Keys.PIPELINE, target.key(), Keys.WINDOW_START, 60, schemaVersion, target.sha256(),
        target.size(), "bench", Instant.EPOCH);
  }

  @Benchmark
  public CasResult idemCas() throws IOException {
    PointerState current = store.readPointer(Keys.PIPELINE).orElseThrow();
    CasResult r = store.compareAndSetPointer(Keys.PIPELINE, current.token(), pointer(++schema));
    if (r != CasResult.SWAPPED) {
      throw new IllegalStateException("uncontended CAS returned " + r);
    }
    return r;
  }

  @Benchmark
  public AdvanceReport idemAdvance() throws IOException {
    AdvanceReport r = advancer.advance(pointer(++schema));
    if (r.status() != AdvanceStatus.ADVANCED) {
      throw new IllegalStateException("uncontended advance returned " + r.status());
    }
    return r;
  }

  @Benchmark
  public RefUpdate.Result jgitRefUpdateFsync() throws IOException {
    return swap(fsyncRepo, fsyncFlip);
  }

  @Benchmark
  public RefUpdate.Result jgitRefUpdateFsyncDirFsync() throws IOException {
    RefUpdate.Result r = swap(fsyncRepo, fsyncFlip);
    try (FileChannel d = FileChannel.open(fsyncRefDir, StandardOpenOption.READ)) {
      d.force(true);
    }
    return r;
  }

  @Benchmark
  public RefUpdate.Result jgitRefUpdateDefault() throws IOException {
    return swap(defaultRepo, defaultFlip);
  }

  /** Swaps the ref between the two ids; {@code flip} counts this repository's swaps. */
  private RefUpdate.Result swap(Repository repo, int[] flip) throws IOException {
    ObjectId from = ids[flip[0] & 1];
    ObjectId to = ids[++flip[0] & 1];
    RefUpdate u = repo.updateRef(REF);
    u.setExpectedOldObjectId(from);
    u.setNewObjectId(to);
    u.setForceUpdate(true);
    return expect(u.update(), RefUpdate.Result.FORCED);
  }

  private static RefUpdate.Result expect(RefUpdate.Result actual, RefUpdate.Result wanted) {
    if (actual != wanted) {
      throw new IllegalStateException("ref update returned " + actual + ", expected " + wanted);
    }
    return actual;
  }

  /** Time spent in each side of {@link #paired}, summed over one iteration. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Paired {
    public long rounds;
    public long idemCasNanos;
    public long idemAdvanceNanos;
    public long jgitFsyncNanos;
    public long jgitFsyncDirFsyncNanos;
    public long jgitDefaultNanos;

    @Setup(Level.Iteration)
    public void reset() {
      rounds = 0;
      idemCasNanos = 0;
      idemAdvanceNanos = 0;
      jgitFsyncNanos = 0;
      jgitFsyncDirFsyncNanos = 0;
      jgitDefaultNanos = 0;
    }
  }

  @Benchmark
  public void paired(Paired p, Blackhole bh) throws IOException {
    int first = (int) (p.rounds++ % 5);
    for (int i = 0; i < 5; i++) {
      int which = (first + i) % 5;
      long t0 = System.nanoTime();
      switch (which) {
        case 0 -> bh.consume(idemCas());
        case 1 -> bh.consume(idemAdvance());
        case 2 -> bh.consume(jgitRefUpdateFsync());
        case 3 -> bh.consume(jgitRefUpdateFsyncDirFsync());
        default -> bh.consume(jgitRefUpdateDefault());
      }
      long dt = System.nanoTime() - t0;
      switch (which) {
        case 0 -> p.idemCasNanos += dt;
        case 1 -> p.idemAdvanceNanos += dt;
        case 2 -> p.jgitFsyncNanos += dt;
        case 3 -> p.jgitFsyncDirFsyncNanos += dt;
        default -> p.jgitDefaultNanos += dt;
      }
    }
  }
}
