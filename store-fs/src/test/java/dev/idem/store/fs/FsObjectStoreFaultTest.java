package dev.idem.store.fs;

import static dev.idem.store.fs.Fixtures.key;
import static dev.idem.store.fs.Fixtures.tempFiles;
import static dev.idem.store.fs.Fixtures.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.idem.core.Sha256;
import dev.idem.core.scan.KeyVerdict;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.DivergenceRecord;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.PutStatus;
import dev.idem.store.fs.FaultyOps.Call;
import dev.idem.store.fs.FaultyOps.Op;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fault injection through {@link FsOps}: record the mutating calls one operation makes, then, for each
 * call in turn, run the operation on a fresh store with that call failing. Every time the failure must
 * surface as a one-line {@link IOException} naming a path (or, in a divergent publish once its outcome
 * is known, as the DIVERGENT outcome's one-line record failure), the store must be correct (no object or a
 * whole one; the old or the new pointer; no lock left; temporaries swept), and a retry must succeed.
 */
class FsObjectStoreFaultTest {
  private static final String KEY = key("orders", 60);
  private static final byte[] CONTENT = randomBytes(100_000); // two 64 KiB copy buffers, two writes
  private static final byte[] OTHER = randomBytes(70_000);

  @TempDir Path dir;

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    new Random(n).nextBytes(b);
    return b;
  }

  private static FsObjectStore open(Path root, FsOps ops) throws IOException {
    return FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(ops).withLockTimeout(Duration.ZERO));
  }

  private static void assertClearFailure(IOException e, Path root) {
    assertNotNull(e.getMessage());
    assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
    assertTrue(e.getMessage().contains(root.toString()), "names a path in the store: " + e.getMessage());
  }

  /** Nothing at the key, or exactly {@code expected}. */
  private static void assertAbsentOrWhole(Path root, String key, byte[] expected) throws IOException {
    Path p = root.resolve(key);
    if (Files.exists(p)) {
      assertArrayEquals(expected, Files.readAllBytes(p), "P1: a visible object is whole");
    }
  }

  private static void assertTemporariesSwept(Path root) throws IOException {
    FsObjectStore.open(root).sweep(Duration.ZERO, false);
    assertEquals(List.of(), tempFiles(root));
  }

  private static IOException failure(IoAction action) {
    try {
      action.run();
      return null;
    } catch (IOException e) {
      return e;
    }
  }

  @FunctionalInterface
  private interface IoAction {
    void run() throws IOException;
  }

  private static String label(int i, Call c) {
    return "fail call " + i + " (" + c + ")";
  }

  // --- putIfAbsent on a new key ---

  private List<Call> recordFreshPut() throws IOException {
    FaultyOps rec = FaultyOps.recording();
    open(dir.resolve("recording-put"), rec).putIfAbsent(KEY, Payload.ofBytes(CONTENT), "writer-a");
    return rec.calls();
  }

  @TestFactory
  Stream<DynamicTest> putIfAbsent_eachCallFailing_nothingOrWholeObjectThenRetrySucceeds() throws IOException {
    List<Call> calls = recordFreshPut();
    return IntStream.range(0, calls.size()).mapToObj(i -> dynamicTest(label(i, calls.get(i)), () -> {
      Path root = dir.resolve("put-" + i);
      FaultyOps faulty = FaultyOps.failingAt(i);
      IOException e = failure(() -> open(root, faulty).putIfAbsent(KEY, Payload.ofBytes(CONTENT), "writer-a"));
      assertEquals(List.of(), faulty.openChannels(), "no file left open");

      if (calls.get(i).op() == Op.DELETE) {
        assertNull(e, "failing to delete the used temporary does not fail the publish");
        assertEquals(1, tempFiles(root).size(), "it is left for sweep");
      } else if (isPublishLock(calls.get(i))) {
        assertNull(e, "a publish lock that cannot be had only means copying without it");
      } else {
        assertNotNull(e, "the failure surfaces");
        assertClearFailure(e, root);
      }
      assertAbsentOrWhole(root, KEY, CONTENT);
      boolean existed = Files.exists(root.resolve(KEY));
      assertTemporariesSwept(root);

      FsObjectStore clean = FsObjectStore.open(root);
      PutOutcome retry = clean.putIfAbsent(KEY, Payload.ofBytes(CONTENT), "writer-a");
      assertEquals(existed ? PutStatus.IDENTICAL : PutStatus.CREATED, retry.status());
      assertArrayEquals(CONTENT, Files.readAllBytes(root.resolve(KEY)));
      assertEquals(Sha256.of(CONTENT), clean.stat(KEY).orElseThrow().sha256());
      List<KeyHistory> h = Fixtures.history(clean, "");
      assertEquals(1, h.size());
      assertFalse(KeyVerdict.of(h.get(0)).divergent(), h.toString());
      assertTrue(h.get(0).entries().stream().anyMatch(x -> x.kind() == HistoryEntry.Kind.VERSION), h.toString());
    }));
  }

  /** A call that takes a key's publish lock, which a publish does without when it fails (KeyPublishLocks). */
  private static boolean isPublishLock(Call c) {
    return (c.op() == Op.OPEN_LOCK_FILE || c.op() == Op.TRY_LOCK) && c.path() != null
        && c.path().getFileName().toString().equals(KeyPublishLocks.FILE_NAME);
  }

  // --- putIfAbsent meeting different bytes ---

  private static void seed(Path root) throws IOException {
    FsObjectStore.open(root).putIfAbsent(KEY, Payload.ofBytes(CONTENT), "writer-a");
  }

  /**
   * Every call of a divergent publish failing in turn. Before the outcome is known (the copy, the link,
   * reading the stored object) the failure is thrown; after it, it is not (P8): the publish is DIVERGENT
   * and says what was recorded. A failure while writing the DIVERGENT record is NOT_RECORDED; once that
   * record is durable, a failure while keeping the bytes is BYTES_NOT_KEPT and the scan already sees the
   * key divergent. A retry then records the evidence.
   */
  @TestFactory
  Stream<DynamicTest> putIfAbsent_divergentEachCallFailing_thrownBeforeTheOutcomeDivergentAfterIt() throws IOException {
    Path recRoot = dir.resolve("recording-divergent");
    seed(recRoot);
    FaultyOps rec = FaultyOps.recording();
    open(recRoot, rec).putIfAbsent(KEY, Payload.ofBytes(OTHER), "writer-b");
    List<Call> calls = rec.calls();
    int recordCreated = IntStream.range(0, calls.size())
        .filter(i -> calls.get(i).op() == Op.CREATE_NEW && calls.get(i).path().toString().contains("!DIVERGENT.")).findFirst()
        .orElseThrow();
    int recordSynced = IntStream.range(recordCreated, calls.size())
        .filter(i -> calls.get(i).op() == Op.FSYNC_DIRECTORY).findFirst().orElseThrow();
    return IntStream.range(0, calls.size()).mapToObj(i -> dynamicTest(label(i, calls.get(i)), () -> {
      Path root = dir.resolve("divergent-" + i);
      seed(root);
      FaultyOps faulty = FaultyOps.failingAt(i);
      PutOutcome[] out = new PutOutcome[1];
      IOException e = failure(() -> out[0] = open(root, faulty).putIfAbsent(KEY, Payload.ofBytes(OTHER), "writer-b"));
      assertEquals(List.of(), faulty.openChannels(), "no file left open");

      Call failed = calls.get(i);
      if (failed.op() == Op.DELETE || isPublishLock(failed)) {
        assertNull(e);
        assertEquals(DivergenceRecord.RECORDED, out[0].record());
      } else if (i < recordCreated) {
        assertNotNull(e, "the outcome is not known yet: the failure surfaces");
        assertClearFailure(e, root);
      } else {
        assertNull(e, () -> "the outcome is known: DIVERGENT, not " + e);
        assertEquals(PutStatus.DIVERGENT, out[0].status());
        assertNull(out[0].evidenceKey());
        assertEquals(i <= recordSynced ? DivergenceRecord.NOT_RECORDED : DivergenceRecord.BYTES_NOT_KEPT, out[0].record(),
            out[0].toString());
        assertClearFailure(new IOException(out[0].recordFailure()), root);
        if (out[0].record() == DivergenceRecord.BYTES_NOT_KEPT) {
          KeyVerdict v = KeyVerdict.of(Fixtures.history(FsObjectStore.open(root), "").get(0));
          assertTrue(v.divergent(), "the record without its bytes is a divergence: " + v);
          assertEquals("DIVERGENT " + KEY + " writes=2 payloads=2", v.referenceLine());
        }
      }
      assertArrayEquals(CONTENT, Files.readAllBytes(root.resolve(KEY)), "P2: never replaced");
      assertTemporariesSwept(root);

      FsObjectStore clean = FsObjectStore.open(root);
      PutOutcome retry = clean.putIfAbsent(KEY, Payload.ofBytes(OTHER), "writer-b");
      assertEquals(PutStatus.DIVERGENT, retry.status());
      assertEquals(DivergenceRecord.RECORDED, retry.record());
      assertArrayEquals(OTHER, Files.readAllBytes(root.resolve(retry.evidenceKey())));
      assertTrue(KeyVerdict.of(Fixtures.history(clean, "").get(0)).divergent());
    }));
  }

  /**
   * Killed between the DIVERGENT record and the evidence link (a rolling deploy's SIGTERM while a large
   * payload is kept): the record is there, durable, and the scan sees the divergence.
   */
  @Test
  void putIfAbsent_killedBeforeTheEvidenceLink_scanStillSeesTheDivergence() throws IOException {
    Path root = dir.resolve("killed");
    seed(root);
    FsOps dying = new ForwardingOps() {
      @Override
      public void createLink(Path link, Path existing) throws IOException {
        if (link.toString().contains("/_idem/evidence/")) {
          throw new KilledHere();
        }
        super.createLink(link, existing);
      }
    };
    assertThrows(KilledHere.class, () -> open(root, dying).putIfAbsent(KEY, Payload.ofBytes(OTHER), "writer-b"));
    List<KeyHistory> h = Fixtures.history(FsObjectStore.open(root), "");
    KeyVerdict v = KeyVerdict.of(h.get(0));
    assertTrue(v.divergent(), h.toString());
    assertEquals("DIVERGENT " + KEY + " writes=2 payloads=2", v.referenceLine());
    HistoryEntry attempt = h.get(0).entries().stream().filter(x -> x.kind() == HistoryEntry.Kind.DIVERGENT_ATTEMPT)
        .findFirst().orElseThrow();
    assertEquals(Sha256.of(OTHER), attempt.sha256());
    assertEquals(Sha256.of(CONTENT), attempt.metSha256(), "the record names the object it met");
    assertEquals("writer-b", attempt.writer());
    try (Stream<Path> kept = Files.walk(root.resolve("_idem/evidence"))) {
      assertEquals(List.of(), kept.filter(Files::isRegularFile).toList(), "no bytes were kept");
    }
  }

  /**
   * A legacy key whose name leaves room for its CREATED record (name + 90 bytes) but not for a DIVERGENT
   * one (name + 92) within a 255-byte name: the divergence cannot be recorded, and the publish says so
   * instead of failing as if the store were unavailable.
   */
  @Test
  void putIfAbsent_nameTooLongForTheDivergentRecord_divergentNotRecordedNamingWhy() throws IOException {
    Path root = dir.resolve("long");
    String k = "legacy/" + "n".repeat(165);
    FsObjectStore store = FsObjectStore.open(root);
    assertEquals(PutStatus.CREATED, store.putIfAbsent(k, Payload.ofBytes(CONTENT), "writer-a").status());
    PutOutcome out = store.putIfAbsent(k, Payload.ofBytes(OTHER), "writer-b");
    assertEquals(PutStatus.DIVERGENT, out.status());
    assertEquals(DivergenceRecord.NOT_RECORDED, out.record(), out.toString());
    assertTrue(out.recordFailure().startsWith("could not write the DIVERGENT record of " + root.toRealPath().resolve(k)),
        out.recordFailure());
    assertClearFailure(new IOException(out.recordFailure()), root.toRealPath());
    assertArrayEquals(CONTENT, Files.readAllBytes(root.resolve(k)), "P2");
  }

  /** What a process killed at a call looks like from inside: no I/O error, nothing after it runs. */
  private static final class KilledHere extends Error {
    private static final long serialVersionUID = 1L;
  }

  // --- compareAndSetPointer ---

  /**
   * Pointer a in place, object b published by another instance. With {@code recorded} false, b's
   * records are deleted, so no CREATED record vouches for it and a swap to it forces it first.
   */
  private static Pointer[] seedPointer(Path root, boolean recorded) throws IOException {
    FsObjectStore s = FsObjectStore.open(root);
    Pointer a = Fixtures.generation(s, "orders", 60, 1);
    Pointer b = Fixtures.generation(s, "orders", 120, 1);
    assertEquals(CasResult.SWAPPED, s.compareAndSetPointer("orders", null, a));
    if (!recorded) {
      s.deleteRecords(b.key());
    }
    return new Pointer[] {a, b};
  }

  /** Every call of a swap failing in turn, to an object a CREATED record vouches for and to one none does. */
  @TestFactory
  Stream<DynamicTest> compareAndSetPointer_eachCallFailing_oldOrNewPointerNoStaleLock() throws IOException {
    return Stream.of(true, false).flatMap(recorded -> {
      try {
        return casEachCallFailing(recorded);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
  }

  private Stream<DynamicTest> casEachCallFailing(boolean recorded) throws IOException {
    String variant = recorded ? "recorded" : "unrecorded";
    Path recRoot = dir.resolve("recording-cas-" + variant);
    Pointer[] ab = seedPointer(recRoot, recorded);
    FaultyOps rec = FaultyOps.recording();
    FsObjectStore recStore = open(recRoot, rec);
    recStore.compareAndSetPointer("orders", Sha256.of(ab[0].toBytes()), ab[1]);
    List<Call> calls = rec.calls();
    return IntStream.range(0, calls.size()).mapToObj(i -> dynamicTest(variant + ": " + label(i, calls.get(i)), () -> {
      Path root = dir.resolve("cas-" + variant + "-" + i);
      Pointer[] p = seedPointer(root, recorded);
      String tokenA = Sha256.of(p[0].toBytes());
      FaultyOps faulty = FaultyOps.failingAt(i);
      IOException e = failure(() -> open(root, faulty).compareAndSetPointer("orders", tokenA, p[1]));
      assertEquals(List.of(), faulty.openChannels(), "no file left open, the lock file's included");

      if (calls.get(i).op() != Op.DELETE && !isPublishLock(calls.get(i))) {
        assertNotNull(e);
        assertClearFailure(e, root);
      }
      FsObjectStore clean = open(root, FsOps.real()); // lock timeout zero: a stale lock would show as BUSY
      PointerState now = clean.readPointer("orders").orElseThrow();
      assertTrue(now.pointer().equals(p[0]) || now.pointer().equals(p[1]), "old or new, whole: " + now);
      assertTemporariesSwept(root);
      assertEquals(CasResult.SWAPPED, clean.compareAndSetPointer("orders", now.token(), p[1]), "no stale lock (G4)");
      assertEquals(p[1], clean.readPointer("orders").orElseThrow().pointer());
    }));
  }

  // --- delete ---

  @TestFactory
  Stream<DynamicTest> delete_eachCallFailing_objectWholeOrGone() throws IOException {
    Path recRoot = dir.resolve("recording-delete");
    seed(recRoot);
    FaultyOps rec = FaultyOps.recording();
    open(recRoot, rec).delete(KEY);
    List<Call> calls = rec.calls();
    return IntStream.range(0, calls.size()).mapToObj(i -> dynamicTest(label(i, calls.get(i)), () -> {
      Path root = dir.resolve("delete-" + i);
      seed(root);
      IOException e = failure(() -> open(root, FaultyOps.failingAt(i)).delete(KEY));
      assertNotNull(e);
      assertClearFailure(e, root);
      assertAbsentOrWhole(root, KEY, CONTENT);
      FsObjectStore clean = FsObjectStore.open(root);
      clean.delete(KEY);
      assertFalse(clean.exists(KEY));
    }));
  }

  /** Guards the seam itself: if an operation stopped going through FsOps, the factories above would shrink. */
  @Test
  void fsOps_everyStepOfPublishAndPointerGoesThroughTheSeam() throws IOException {
    Set<Op> put = recordFreshPut().stream().map(Call::op).collect(Collectors.toCollection(() -> EnumSet.noneOf(Op.class)));
    assertEquals(EnumSet.of(Op.CREATE_DIRECTORY, Op.FSYNC_DIRECTORY, Op.CREATE_NEW, Op.WRITE, Op.FORCE,
        Op.CREATE_LINK, Op.DELETE, Op.READ_ATTRIBUTES, Op.OPEN_LOCK_FILE, Op.TRY_LOCK), put);

    Path root = dir.resolve("seam-cas");
    Pointer[] p = seedPointer(root, false);
    FaultyOps rec = FaultyOps.recording();
    open(root, rec).compareAndSetPointer("orders", Sha256.of(p[0].toBytes()), p[1]);
    List<Op> cas = rec.calls().stream().map(Call::op).filter(Op::mutating).toList();
    assertEquals(List.of(Op.OPEN_LOCK_FILE, Op.TRY_LOCK, Op.FORCE, Op.FSYNC_DIRECTORY, Op.CREATE_NEW, Op.WRITE,
        Op.FORCE, Op.ATOMIC_MOVE, Op.DELETE, Op.FSYNC_DIRECTORY), cas);
    assertTrue(rec.calls().stream().anyMatch(c -> c.op() == Op.OPEN_READ), "the pointer is read through the seam");

    Path vouched = dir.resolve("seam-cas-recorded");
    Pointer[] q = seedPointer(vouched, true);
    FaultyOps recVouched = FaultyOps.recording();
    open(vouched, recVouched).compareAndSetPointer("orders", Sha256.of(q[0].toBytes()), q[1]);
    assertEquals(List.of(Op.OPEN_LOCK_FILE, Op.TRY_LOCK, Op.CREATE_NEW, Op.WRITE, Op.FORCE, Op.ATOMIC_MOVE, Op.DELETE,
        Op.FSYNC_DIRECTORY), recVouched.calls().stream().map(Call::op).filter(Op::mutating).toList(),
        "a CREATED record vouches for the object: only the pointer is flushed");

    FaultyOps reads = FaultyOps.recording();
    Fixtures.history(open(root, reads), "");
    Set<Op> history = reads.calls().stream().map(Call::op).collect(Collectors.toCollection(() -> EnumSet.noneOf(Op.class)));
    assertEquals(EnumSet.of(Op.READ_ATTRIBUTES, Op.LIST, Op.OPEN_READ), history, "a scan reads only, through the seam");
  }

  @Test
  void putIfAbsent_writeFails_errorNamesTheTemporaryAndNothingRemains() throws IOException {
    Path root = dir.resolve("write-fails");
    List<Call> calls = recordFreshPut();
    int firstWrite = calls.indexOf(calls.stream().filter(c -> c.op() == Op.WRITE).findFirst().orElseThrow());
    IOException e = failure(() -> open(root, FaultyOps.failingAt(firstWrite)).putIfAbsent(KEY, Payload.ofBytes(utf8("x")), "writer-a"));
    assertNotNull(e);
    assertTrue(e.getMessage().contains(".tmp-state-"), e.getMessage());
    assertFalse(Files.exists(root.resolve(KEY)));
    assertEquals(List.of(), tempFiles(root));
  }
}
