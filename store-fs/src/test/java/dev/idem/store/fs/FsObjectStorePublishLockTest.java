package dev.idem.store.fs;

import static dev.idem.store.fs.Fixtures.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import dev.idem.core.store.Deadline;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.PutStatus;
import dev.idem.store.fs.FaultyOps.Call;
import dev.idem.store.fs.FaultyOps.Op;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The key's publish lock ({@link KeyPublishLocks}): a publisher that finds a key empty while another
 * copies it waits and then copies nothing; the wait is bounded; a holder that fails or dies holds
 * nobody up; and without the lock the publish is as safe as before.
 */
class FsObjectStorePublishLockTest {
  private static final String KEY = key("orders", 60);
  /** With {@link StoreWorker}'s header, so {@link StoreInvariants} can check every object is whole. */
  private static final byte[] CONTENT = StoreWorker.content(KEY, "canonical", 1000);
  private static final Duration LONG = Duration.ofSeconds(60);

  @TempDir Path dir;
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final CountDownLatch forcing = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void stop() {
    release.countDown();
    pool.shutdownNow();
  }

  /** The real calls, except that the first force (the creator's temporary) waits for {@link #release}. */
  private FsOps forceHeldUntilReleased() {
    return new ForwardingOps() {
      @Override
      public void force(FileChannel channel) throws IOException {
        forcing.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted");
        }
        super.force(channel);
      }
    };
  }

  private static FsObjectStore open(Path root, Duration lockTimeout, FsOps ops) throws IOException {
    return FsObjectStore.open(root, FsObjectStore.Options.defaults().withLockTimeout(lockTimeout).withOps(ops));
  }

  /** Waits (bounded by the test's own preemptive timeout) until {@code condition} holds; never sleeps. */
  private static void awaitTrue(BooleanSupplier condition) {
    assertTimeoutPreemptively(LONG, () -> {
      while (!condition.getAsBoolean()) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
      }
    });
  }

  /** Starts {@code creator}'s publish of {@code payload} at {@link #KEY} and returns once it holds the key, stopped at its force. */
  private Future<PutOutcome> holding(FsObjectStore creator, Payload payload) throws InterruptedException {
    Future<PutOutcome> f = pool.submit(() -> creator.putIfAbsent(KEY, payload, "creator"));
    assertTrue(forcing.await(60, TimeUnit.SECONDS));
    return f;
  }

  /** Starts {@code late}'s publish of {@code payload} at {@link #KEY} and returns once its thread waits; {@code thread[0]} is it. */
  private Future<PutOutcome> waiting(FsObjectStore late, Payload payload, Thread[] thread) {
    Future<PutOutcome> f = pool.submit(() -> {
      thread[0] = Thread.currentThread();
      try {
        return late.putIfAbsent(KEY, payload, "late");
      } finally {
        Thread.interrupted(); // a pool thread an interrupting test used carries on clean
      }
    });
    awaitTrue(() -> thread[0] != null && thread[0].getState() == Thread.State.TIMED_WAITING);
    return f;
  }

  private static boolean copiedThePayload(List<Call> calls) {
    return calls.stream().anyMatch(c -> c.op() == Op.CREATE_NEW && c.path().getFileName().toString()
        .startsWith(TempFile.PREFIX + "state"));
  }

  private static long tryLocks(FaultyOps ops) {
    return ops.calls().stream().filter(c -> c.op() == Op.TRY_LOCK).count();
  }

  @Test
  void racingPublisher_waitsForTheCreatorAndCopiesNothing() throws Exception {
    Path root = dir.resolve("store");
    FsObjectStore creator = open(root, LONG, forceHeldUntilReleased());
    FaultyOps lateOps = FaultyOps.recording();
    FsObjectStore late = open(root, LONG, lateOps);

    Future<PutOutcome> first = holding(creator, Payload.ofBytes(CONTENT));
    Future<PutOutcome> second = waiting(late, Payload.ofBytes(CONTENT), new Thread[1]);
    assertFalse(second.isDone(), "the late publisher waits while the creator holds the key");
    release.countDown();

    assertEquals(PutStatus.CREATED, first.get().status());
    PutOutcome late2 = second.get();
    assertEquals(PutStatus.IDENTICAL, late2.status());
    assertEquals(Sha256.of(CONTENT), late2.attemptSha256());
    assertFalse(copiedThePayload(lateOps.calls()), "no temporary copy: " + lateOps.calls());
    assertFalse(lateOps.calls().stream().anyMatch(c -> c.op() == Op.FORCE || c.op() == Op.FSYNC_DIRECTORY),
        "no flush either: the creator's record vouches for its object: " + lateOps.calls());
    StoreInvariants.assertConsistent(root);
  }

  @Test
  void racingPublisherWithOtherBytes_waitsThenKeepsItsBytesAsEvidence() throws Exception {
    Path root = dir.resolve("store");
    FsObjectStore creator = open(root, LONG, forceHeldUntilReleased());
    FsObjectStore late = open(root, LONG, FsOps.real());
    byte[] other = StoreWorker.content(KEY, "drifted", 1000);

    Future<PutOutcome> first = holding(creator, Payload.ofBytes(CONTENT));
    Future<PutOutcome> second = waiting(late, Payload.ofBytes(other), new Thread[1]);
    release.countDown();

    assertEquals(PutStatus.CREATED, first.get().status());
    PutOutcome divergent = second.get();
    assertEquals(PutStatus.DIVERGENT, divergent.status());
    assertArrayEquals(other, Files.readAllBytes(root.resolve(divergent.evidenceKey())));
    assertArrayEquals(CONTENT, Files.readAllBytes(root.resolve(KEY)), "P2: never replaced");
  }

  @Test
  void racingPublisher_creatorStalledPastTheLockTimeout_copiesItselfAndBothSucceed() throws Exception {
    Path root = dir.resolve("store");
    FsObjectStore creator = open(root, LONG, forceHeldUntilReleased());
    FaultyOps lateOps = FaultyOps.recording();
    FsObjectStore late = open(root, Duration.ofMillis(50), lateOps);

    Future<PutOutcome> first = holding(creator, Payload.ofBytes(CONTENT));
    PutOutcome second = assertTimeoutPreemptively(LONG, () -> late.putIfAbsent(KEY, Payload.ofBytes(CONTENT), "late"));

    assertEquals(PutStatus.CREATED, second.status(), "the stalled creator had not linked yet");
    assertTrue(copiedThePayload(lateOps.calls()));
    release.countDown();
    assertEquals(PutStatus.IDENTICAL, first.get().status(), "link(2) still decides: the creator lost");
    assertArrayEquals(CONTENT, Files.readAllBytes(root.resolve(KEY)));
    StoreInvariants.assertConsistent(root);
  }

  @Test
  void racingPublisher_creatorStalledDeadlinePassed_copiesItselfWithoutWaitingItsTimeout() throws Exception {
    Path root = dir.resolve("store");
    FsObjectStore creator = open(root, LONG, forceHeldUntilReleased());
    AtomicLong nanos = new AtomicLong();
    Deadline overall = Deadline.after(Duration.ofSeconds(1), "--max-time", nanos::get);
    nanos.addAndGet(Duration.ofSeconds(2).toNanos());
    FaultyOps lateOps = FaultyOps.recording();
    // The lock timeout is the test's own bound: only the deadline can let the late publisher go on in time.
    FsObjectStore late = FsObjectStore.open(root, FsObjectStore.Options.defaults().withLockTimeout(LONG)
        .withOps(lateOps).withDeadline(overall));

    Future<PutOutcome> first = holding(creator, Payload.ofBytes(CONTENT));
    PutOutcome second = assertTimeoutPreemptively(Duration.ofSeconds(20),
        () -> late.putIfAbsent(KEY, Payload.ofBytes(CONTENT), "late"));

    assertEquals(PutStatus.CREATED, second.status(), "the stalled creator had not linked yet");
    assertTrue(copiedThePayload(lateOps.calls()));
    release.countDown();
    assertEquals(PutStatus.IDENTICAL, first.get().status());
    StoreInvariants.assertConsistent(root);
  }

  @Test
  void racingPublisher_creatorFailsWhileHolding_waiterFindsNothingAndPublishes() throws Exception {
    Path root = dir.resolve("store");
    FsObjectStore creator = open(root, LONG, forceHeldUntilReleased());
    FsObjectStore late = open(root, LONG, FsOps.real());
    Payload changing = new Payload() {
      @Override
      public long size() {
        return CONTENT.length;
      }

      @Override
      public String sha256() {
        return Sha256.of(CONTENT);
      }

      @Override
      public InputStream open() {
        byte[] other = CONTENT.clone();
        other[0] ^= 1;
        return new ByteArrayInputStream(other);
      }
    };

    Future<PutOutcome> first = holding(creator, changing);
    Future<PutOutcome> second = pool.submit(() -> late.putIfAbsent(KEY, Payload.ofBytes(CONTENT), "late"));
    release.countDown();

    ExecutionException e = assertThrows(ExecutionException.class, first::get);
    assertTrue(e.getCause() instanceof Payload.ChangedWhileReadingException, e.toString());
    assertEquals(PutStatus.CREATED, second.get().status());
    assertArrayEquals(CONTENT, Files.readAllBytes(root.resolve(KEY)));
    StoreInvariants.assertConsistent(root);
  }

  @Test
  void holderDyingWithAnError_letsGoOfTheKey() throws Exception {
    Path root = dir.resolve("store");
    FsOps dying = new ForwardingOps() {
      @Override
      public java.nio.channels.FileLock tryLock(FileChannel channel, long position) throws IOException {
        java.nio.channels.FileLock lock = super.tryLock(channel, position);
        throw new StackOverflowError("the holder's thread dies with the kernel lock just taken");
      }
    };
    assertThrows(StackOverflowError.class,
        () -> open(root, LONG, dying).putIfAbsent(KEY, Payload.ofBytes(CONTENT), "dies"));

    PutOutcome next = assertTimeoutPreemptively(Duration.ofSeconds(30),
        () -> open(root, Duration.ofHours(1), FsOps.real()).putIfAbsent(KEY, Payload.ofBytes(CONTENT), "next"));
    assertEquals(PutStatus.CREATED, next.status(), "neither the in-process nor the kernel lock was left held");
  }

  @Test
  void waiterInterrupted_stopsWaitingAndFailsLikeAnyInterruptedIo() throws Exception {
    Path root = dir.resolve("store");
    FsObjectStore creator = open(root, LONG, forceHeldUntilReleased());
    FsObjectStore late = open(root, Duration.ofHours(1), FsOps.real());

    Future<PutOutcome> first = holding(creator, Payload.ofBytes(CONTENT));
    Thread[] lateThread = new Thread[1];
    Future<PutOutcome> second = waiting(late, Payload.ofBytes(CONTENT), lateThread);
    lateThread[0].interrupt();

    // It stops waiting at once; the interrupt it keeps then ends its copy (ClosedByInterruptException).
    ExecutionException e = assertThrows(ExecutionException.class, () -> second.get(60, TimeUnit.SECONDS));
    assertTrue(e.getCause() instanceof IOException, e.toString());
    release.countDown();
    assertEquals(PutStatus.CREATED, first.get().status(), "the interrupted one published nothing");
    assertEquals(List.of(), Fixtures.tempFiles(root));
  }

  @Test
  void otherKey_neverWaitsForAHeldKey() throws Exception {
    Path root = dir.resolve("store");
    FsObjectStore creator = open(root, LONG, forceHeldUntilReleased());
    FsObjectStore other = open(root, Duration.ofHours(1), FsOps.real());

    Future<PutOutcome> first = holding(creator, Payload.ofBytes(CONTENT));
    PutOutcome unrelated = assertTimeoutPreemptively(LONG,
        () -> other.putIfAbsent(key("orders", 60, 2), Payload.ofBytes(CONTENT), "b"));

    assertEquals(PutStatus.CREATED, unrelated.status());
    release.countDown();
    assertEquals(PutStatus.CREATED, first.get().status());
  }

  /** A child process that has taken the publish lock of {@link CrashScenario#FRESH} and stopped before its link. */
  private Child holderInAnotherProcess(Path root) throws Exception {
    CrashScenario.setUp(root);
    int forceIndex = firstMutatingCallOf("put", Op.FORCE);
    Child holder = Child.start(dir.resolve("logs"), "pause", root.toString(), "put", String.valueOf(forceIndex));
    holder.await("PAUSED");
    return holder;
  }

  @Test
  void holderInAnotherProcess_waitBoundedByTheLockTimeout() throws Exception {
    Path root = dir.resolve("store");
    byte[] bytes = CrashScenario.bytesOf(CrashScenario.FRESH);
    try (Child holder = holderInAnotherProcess(root)) {
      FaultyOps bounded = FaultyOps.recording();
      PutOutcome out = assertTimeoutPreemptively(LONG,
          () -> open(root, Duration.ofMillis(100), bounded).putIfAbsent(CrashScenario.FRESH, Payload.ofBytes(bytes), "b"));

      assertEquals(PutStatus.CREATED, out.status(), "after the wait it copied and linked itself");
      assertTrue(tryLocks(bounded) >= 2, "it polled the kernel lock the child holds: " + bounded.calls());
      holder.kill();
    }
    StoreInvariants.assertConsistent(root);
  }

  @Test
  void holderInAnotherProcess_killed_waiterGoesOnAtOnce() throws Exception {
    Path root = dir.resolve("store");
    byte[] bytes = CrashScenario.bytesOf(CrashScenario.FRESH);
    try (Child holder = holderInAnotherProcess(root)) {
      FaultyOps patient = FaultyOps.recording();
      Future<PutOutcome> waiting = pool.submit(
          () -> open(root, Duration.ofHours(1), patient).putIfAbsent(CrashScenario.FRESH, Payload.ofBytes(bytes), "c"));
      awaitTrue(() -> tryLocks(patient) >= 2);
      assertFalse(waiting.isDone(), "it waits while the holder lives");

      holder.kill();

      assertEquals(PutStatus.CREATED, waiting.get(60, TimeUnit.SECONDS).status(),
          "the kernel dropped the killed holder's lock; the holder never linked");
    }
    StoreInvariants.assertConsistent(root);
  }

  /**
   * The holder's parent ends (a test JVM that timed out and was killed): its end of the holder's stdin
   * closes, and the holder must end too rather than keep the lock for whoever runs next.
   */
  @Test
  void holderInAnotherProcess_parentsPipeClosed_holderEndsWaiterGoesOn() throws Exception {
    Path root = dir.resolve("store");
    byte[] bytes = CrashScenario.bytesOf(CrashScenario.FRESH);
    try (Child holder = holderInAnotherProcess(root)) {
      FaultyOps patient = FaultyOps.recording();
      Future<PutOutcome> waiting = pool.submit(
          () -> open(root, Duration.ofHours(1), patient).putIfAbsent(CrashScenario.FRESH, Payload.ofBytes(bytes), "c"));
      awaitTrue(() -> tryLocks(patient) >= 2);

      holder.closeStdin();

      assertEquals(StoreWorker.PARENT_GONE, holder.exit(), "the holder ended on its own: " + holder.stderr());
      assertEquals(PutStatus.CREATED, waiting.get(60, TimeUnit.SECONDS).status(), "and its lock went with it");
    }
    StoreInvariants.assertConsistent(root);
  }

  private int firstMutatingCallOf(String scenario, Op op) throws IOException {
    Path root = dir.resolve("recording-" + scenario);
    CrashScenario.setUp(root);
    FaultyOps rec = FaultyOps.recording();
    CrashScenario.run(FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(rec)), scenario);
    List<Call> mutating = rec.calls().stream().filter(c -> c.op().mutating()).toList();
    for (int i = 0; i < mutating.size(); i++) {
      if (mutating.get(i).op() == op) {
        return i;
      }
    }
    throw new AssertionError(op + " not in " + mutating);
  }

  @Test
  void linkAtTheLockFileName_refusedNamingItNothingPublished() throws Exception {
    Path root = dir.resolve("store");
    Path outside = Files.writeString(dir.resolve("outside.txt"), "keep");
    Path records = root.resolve("_idem/records/orders/60");
    Files.createDirectories(records);
    Files.createSymbolicLink(records.resolve(KeyPublishLocks.FILE_NAME), outside);
    FsObjectStore store = FsObjectStore.open(root);

    LinkRefusedException e = assertThrows(LinkRefusedException.class,
        () -> store.putIfAbsent(KEY, Payload.ofBytes(CONTENT), "a"));

    assertTrue(e.getMessage().contains(KeyPublishLocks.FILE_NAME), e.getMessage());
    assertFalse(store.exists(KEY));
    assertEquals("keep", Files.readString(outside));

    Files.delete(records.resolve(KeyPublishLocks.FILE_NAME));
    PutOutcome after = assertTimeoutPreemptively(LONG, () -> open(root, Duration.ofHours(1), FsOps.real())
        .putIfAbsent(KEY, Payload.ofBytes(CONTENT), "a"));
    assertEquals(PutStatus.CREATED, after.status(), "the refusal left the key free in this JVM");
  }

  @Test
  void publishes_leaveNoFileOpen() throws Exception {
    Path root = dir.resolve("store");
    FaultyOps ops = FaultyOps.recording();
    FsObjectStore store = open(root, LONG, ops);
    store.putIfAbsent(KEY, Payload.ofBytes(CONTENT), "a");
    store.putIfAbsent(key("orders", 60, 2), Payload.ofBytes(CONTENT), "a");

    assertEquals(List.of(), ops.openChannels(), "the lock file's channel is closed by its last holder");
    assertEquals(2, ops.calls().stream().filter(c -> c.op() == Op.OPEN_LOCK_FILE).count());
  }

  @Test
  void lockFile_neverWrittenAndLeftBySweep() throws IOException {
    Path root = dir.resolve("store");
    FsObjectStore store = FsObjectStore.open(root);
    store.putIfAbsent(key("orders", 60), Payload.ofBytes(CONTENT), "a");
    Path lockFile = root.resolve("_idem/records/orders/60").resolve(KeyPublishLocks.FILE_NAME);
    assertEquals(0, Files.size(lockFile));

    List<String> swept = store.sweep(Duration.ZERO, false);

    assertEquals(List.of(), swept);
    assertTrue(Files.exists(lockFile));
  }

  @Test
  void position_fnv1aOfTheKeysUtf8Bytes_62Bits() {
    // FNV-1a 64 test vectors, shifted right by two: stable across JVMs, as the kernel's byte must be.
    assertEquals(0xcbf29ce484222325L >>> 2, KeyPublishLocks.position(""));
    assertEquals(0xaf63dc4c8601ec8cL >>> 2, KeyPublishLocks.position("a"));
    assertEquals(0x85944171f73967e8L >>> 2, KeyPublishLocks.position("foobar"));
    assertNotEquals(KeyPublishLocks.position(key("orders", 60)), KeyPublishLocks.position(key("orders", 60, 2)));
    assertTrue(KeyPublishLocks.position("\u00e9") >= 0);
  }
}
