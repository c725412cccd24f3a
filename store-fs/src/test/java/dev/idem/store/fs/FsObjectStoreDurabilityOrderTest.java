package dev.idem.store.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.CasResult;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.store.PutStatus;
import dev.idem.core.store.Retirement;
import dev.idem.store.fs.FaultyOps.Call;
import dev.idem.store.fs.FaultyOps.Op;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The durability order of every write path (publish CREATED, IDENTICAL, DIVERGENT with and without
 * kept bytes, pointer swap, delete, record deletion, root creation), checked by {@link DurabilityOrder}
 * on the calls each store instance makes: the forces, links and directory fsyncs that a crash test
 * cannot see (the page cache survives a kill). Also shows that each force and directory fsync those
 * paths make is needed: removing any one of them from a recorded run breaks a rule.
 */
class FsObjectStoreDurabilityOrderTest {
  @TempDir Path root;

  /** One store instance, its recorded calls, and where each of its operations ended in them. */
  private record Writer(FsObjectStore store, FaultyOps rec, DurabilityOrder order, List<Integer> ends) {
    static Writer on(Path root, boolean keep) throws IOException {
      FaultyOps rec = FaultyOps.recording();
      FsObjectStore.Options o = FsObjectStore.Options.defaults().withOps(rec).withKeepDivergentBytes(keep);
      Path real = Files.exists(root) ? root.toRealPath() : root.toAbsolutePath(); // as the store resolves it
      return new Writer(FsObjectStore.open(root, o), rec, new DurabilityOrder(real),
          new ArrayList<>());
    }

    /** Marks the end of an operation. */
    void done() {
      ends.add(rec.calls().size());
    }

    /** Marks the end of an operation and checks every call so far. */
    void assertOrdered() throws IOException {
      done();
      assertEquals(List.of(), order.violations(rec.calls(), ends), () -> "calls: " + rec.calls());
    }

    long count(Op op, Path path) {
      return rec.calls().stream().filter(c -> c.op() == op && path.equals(c.path())).count();
    }

    boolean any(Op op, String nameContains) {
      return rec.calls().stream().anyMatch(c -> c.op() == op && c.path() != null
          && c.path().getFileName().toString().contains(nameContains));
    }
  }

  private static Pointer pointerTo(FsObjectStore store, String key) throws IOException {
    return Pointer.to(store.stat(key).orElseThrow(), 60, 1, "writer-g", Instant.EPOCH);
  }

  @Test
  void putIfAbsent_created_objectDurableBeforeItsRecordAndEveryNewDirectorySynced() throws IOException {
    Writer w = Writer.on(root, true);
    String k = Fixtures.key("p", 60);
    assertEquals(PutStatus.CREATED, w.store().putIfAbsent(k, Fixtures.bytes("alpha"), "w").status());
    w.assertOrdered();
    assertEquals(1, w.count(Op.CREATE_LINK, root.resolve(k)), "the rules saw the link");
    assertTrue(w.any(Op.CREATE_NEW, "!CREATED."), "the rules saw the record");
    assertTrue(w.any(Op.CREATE_DIRECTORY, "60"), "the rules saw a new window directory");
  }

  /**
   * A replica late to a key another has filled (the common case of a rolling deploy) spends no write
   * and no flush on a copy it would discard: the object there is complete, so the hashes are compared
   * first. With no record to vouch for the object, its one durability call is the directory fsync G1
   * needs, since the creator may not have made it yet.
   */
  @Test
  void putIfAbsent_identicalOnAnUnrecordedObject_noTemporaryCopyAndOnlyTheDirectorySynced() throws IOException {
    String k = Fixtures.key("p", 60);
    Writer w = identicalAttempt(k, false);
    assertEquals(1, w.count(Op.FSYNC_DIRECTORY, root.resolve(k).getParent()), "the object's directory synced once");
  }

  /**
   * A CREATED record is created only after its object's directory fsync returned, so an object one
   * vouches for is durable, whoever linked it: an IDENTICAL attempt that reads such a record flushes
   * nothing at all.
   */
  @Test
  void putIfAbsent_identicalOnARecordedObject_flushesNothing() throws IOException {
    Writer w = identicalAttempt(Fixtures.key("p", 60), true);
    assertFalse(w.any(Op.FSYNC_DIRECTORY, ""), "no directory synced");
  }

  /**
   * Another instance's publish of the bytes {@code k} holds (its records deleted first unless {@code
   * recorded}), checked in order, with its record written and no copy, link or force made.
   */
  private Writer identicalAttempt(String k, boolean recorded) throws IOException {
    FsObjectStore.open(root).putIfAbsent(k, Fixtures.bytes("alpha"), "w");
    if (!recorded) {
      FsObjectStore.open(root).deleteRecords(k);
    }
    Writer w = Writer.on(root, true);
    assertEquals(PutStatus.IDENTICAL, w.store().putIfAbsent(k, Fixtures.bytes("alpha"), "w").status());
    w.assertOrdered();
    assertTrue(w.any(Op.CREATE_NEW, "!IDENTICAL."), "the record was written");
    assertFalse(w.any(Op.CREATE_NEW, ".tmp-"), "no temporary copy of identical bytes");
    assertFalse(w.any(Op.FORCE, ""), "nothing forced: an IDENTICAL record is not, the object it met is durable");
    assertEquals(0, w.count(Op.CREATE_LINK, root.resolve(k)), "no link attempted");
    return w;
  }

  @Test
  void putIfAbsent_divergent_recordDurableBeforeTheEvidence_twiceWithTheSameBytes() throws IOException {
    String k = Fixtures.key("p", 60);
    FsObjectStore.open(root).putIfAbsent(k, Fixtures.bytes("alpha"), "w");
    Writer w = Writer.on(root, true);
    for (int i = 0; i < 2; i++) { // the second evidence link meets the first one's file
      assertEquals(PutStatus.DIVERGENT, w.store().putIfAbsent(k, Fixtures.bytes("beta"), "w").status());
      w.assertOrdered();
    }
    Path kept = root.resolve("_idem/evidence").resolve(k);
    assertEquals(2, w.rec().calls().stream().filter(c -> c.op() == Op.CREATE_LINK && c.path().getParent().equals(kept)).count());
    assertEquals(2, w.count(Op.FSYNC_DIRECTORY, kept), "synced after each attempt, even one that found the bytes kept");
  }

  @Test
  void putIfAbsent_divergentWithoutKeptBytes_recordStillForcedAndSynced() throws IOException {
    String k = Fixtures.key("p", 60);
    FsObjectStore.open(root).putIfAbsent(k, Fixtures.bytes("alpha"), "w");
    Writer w = Writer.on(root, false);
    assertEquals(PutStatus.DIVERGENT, w.store().putIfAbsent(k, Fixtures.bytes("beta"), "w").status());
    w.assertOrdered();
    assertTrue(w.any(Op.FORCE, "!DIVERGENT."));
    assertFalse(Files.exists(root.resolve("_idem/evidence")), "no bytes kept");
  }

  @Test
  void compareAndSetPointer_unrecordedObjectOfAnotherInstance_forcedAndSyncedUnderTheLock() throws IOException {
    String k = Fixtures.key("p", 60);
    FsObjectStore.open(root).putIfAbsent(k, Fixtures.bytes("alpha"), "w");
    FsObjectStore.open(root).deleteRecords(k);
    Writer w = Writer.on(root, true);
    assertEquals(CasResult.SWAPPED, w.store().compareAndSetPointer("p", null, pointerTo(w.store(), k)));
    w.assertOrdered();
    assertEquals(1, w.count(Op.FORCE, root.resolve(k)), "the object itself was forced");
    assertEquals(1, w.count(Op.FSYNC_DIRECTORY, root.resolve(k).getParent()), "and its directory synced");
  }

  /**
   * A late replica advancing the pointer to the key another replica filled: the other's CREATED record,
   * read under the lock, vouches that the object is durable, so only the pointer is flushed.
   */
  @Test
  void compareAndSetPointer_recordedObjectOfAnotherInstance_onlyThePointerFlushed() throws IOException {
    String k = Fixtures.key("p", 60);
    FsObjectStore.open(root).putIfAbsent(k, Fixtures.bytes("alpha"), "w");
    Writer w = Writer.on(root, true);
    assertEquals(CasResult.SWAPPED, w.store().compareAndSetPointer("p", null, pointerTo(w.store(), k)));
    w.assertOrdered();
    assertEquals(0, w.count(Op.FORCE, root.resolve(k)), "the object was not forced");
    assertEquals(0, w.count(Op.FSYNC_DIRECTORY, root.resolve(k).getParent()), "nor its directory synced");
    Path pointerDir = root.resolve("_idem/pointers/p");
    assertEquals(1, w.count(Op.FSYNC_DIRECTORY, pointerDir), "the pointer's directory was");
  }

  /**
   * A CREATED record older than the file it sits beside describes an earlier file (something rewrote
   * the object since): it vouches for nothing, and the object is forced before the pointer names it.
   */
  @Test
  void compareAndSetPointer_recordOlderThanTheObject_forcedAndSynced() throws IOException {
    String k = Fixtures.key("p", 60);
    FsObjectStore.open(root).putIfAbsent(k, Fixtures.bytes("alpha"), "w");
    Files.setLastModifiedTime(root.resolve(k),
        java.nio.file.attribute.FileTime.from(Instant.now().plusSeconds(3600)));
    Writer w = Writer.on(root, true);
    assertEquals(CasResult.SWAPPED, w.store().compareAndSetPointer("p", null, pointerTo(w.store(), k)));
    w.assertOrdered();
    assertEquals(1, w.count(Op.FORCE, root.resolve(k)), "the object itself was forced");
  }

  @Test
  void compareAndSetPointer_afterThisInstanceDeletedAndAnotherRepublished_forcedAgain() throws IOException {
    String k = Fixtures.key("p", 60);
    Writer w = Writer.on(root, true);
    w.store().putIfAbsent(k, Fixtures.bytes("alpha"), "w");
    w.done();
    w.store().delete(k);
    w.done();
    FsObjectStore.open(root).putIfAbsent(k, Fixtures.bytes("alpha"), "w");
    FsObjectStore.open(root).deleteRecords(k); // else the other instance's CREATED record vouches for it
    assertEquals(CasResult.SWAPPED, w.store().compareAndSetPointer("p", null, pointerTo(w.store(), k)));
    w.assertOrdered();
    assertEquals(1, w.count(Op.FORCE, root.resolve(k)), "its own publish no longer vouches for the object");
  }

  @Test
  void deleteAndDeleteRecords_everyRemovalSynced() throws IOException {
    String k = Fixtures.key("p", 60);
    Writer w = Writer.on(root, true);
    w.store().putIfAbsent(k, Fixtures.bytes("alpha"), "w");
    w.done();
    w.store().putIfAbsent(k, Fixtures.bytes("beta"), "w");
    w.done();
    assertTrue(w.store().delete(k));
    w.done();
    assertEquals(3, w.store().deleteRecords(k), "CREATED and DIVERGENT records, the evidence");
    w.assertOrdered();
  }

  @Test
  void checkWritable_missingRootAndParents_eachSyncedInItsParent() throws IOException {
    Path deep = root.resolve("a/b/store");
    Writer w = Writer.on(deep, true);
    w.store().checkWritable();
    w.assertOrdered();
    for (Path d : List.of(root.resolve("a"), root.resolve("a/b"), deep, deep.resolve("_idem"))) {
      assertEquals(1, w.count(Op.CREATE_DIRECTORY, d), d.toString());
      assertTrue(w.count(Op.FSYNC_DIRECTORY, d.getParent()) >= 1, "parent of " + d + " synced");
    }
  }

  @Test
  void raiseRetirement_markWrittenForcedRenamedAndItsDirectorySynced() throws IOException {
    Writer w = Writer.on(root, true);
    w.store().raiseRetirement(new Retirement("p", 60, Instant.EPOCH, "gc"));
    w.assertOrdered();
    Path mark = root.toRealPath().resolve("_idem/pointers/p").resolve(RetirementFiles.FILE);
    assertTrue(w.rec().calls().stream().anyMatch(c -> c.op() == Op.ATOMIC_MOVE && mark.equals(c.path())),
        () -> "the mark is renamed into place: " + w.rec().calls());
  }

  /**
   * Each force and directory fsync of a CREATED, a DIVERGENT and an IDENTICAL publish (on an object no
   * record vouches for), a records deletion, a pointer swap to
   * another instance's object, a raised retirement mark and a delete is needed: the rules break when any one is left out.
   */
  @Test
  void rules_withAnyOneForceOrDirectorySyncLeftOut_reportAViolation() throws IOException {
    String k = Fixtures.key("p", 60);
    FsObjectStore.open(root).putIfAbsent(Fixtures.key("p", 120), Fixtures.bytes("other"), "w");
    FsObjectStore.open(root).deleteRecords(Fixtures.key("p", 120)); // so the pointer swap must force it
    Writer w = Writer.on(root, true);
    w.store().putIfAbsent(k, Fixtures.bytes("alpha"), "w");
    w.done();
    w.store().putIfAbsent(k, Fixtures.bytes("beta"), "w");
    w.done();
    w.store().putIfAbsent(k, Fixtures.bytes("alpha"), "w");
    w.done();
    // An IDENTICAL attempt with no CREATED record to vouch for the object: its fsync is the one needed.
    w.store().deleteRecords(k);
    w.done();
    w.store().putIfAbsent(k, Fixtures.bytes("alpha"), "w");
    w.done();
    w.store().compareAndSetPointer("p", null, pointerTo(w.store(), Fixtures.key("p", 120)));
    w.done();
    w.store().raiseRetirement(new Retirement("p", 60, Instant.EPOCH, "gc"));
    w.done();
    w.store().delete(k);
    w.assertOrdered();
    List<Call> calls = w.rec().calls();
    int checked = 0;
    for (int i = 0; i < calls.size(); i++) {
      Op op = calls.get(i).op();
      if (op == Op.FORCE || op == Op.FSYNC_DIRECTORY) {
        List<Call> without = new ArrayList<>(calls);
        without.remove(i);
        int removed = i;
        List<Integer> ends = w.ends().stream().map(e -> e > removed ? e - 1 : e).toList();
        assertFalse(new DurabilityOrder(root).violations(without, ends).isEmpty(), "left out " + i + " " + calls.get(i));
        checked++;
      }
    }
    assertTrue(checked >= 14, "forces and fsyncs checked: " + checked);
  }

  /**
   * Any sequence of publishes (same or other bytes), pointer swaps, deletes and record deletions by two
   * store instances (one keeping divergent bytes, one not) keeps every rule, instance by instance.
   * Each code picks an action: kind, instance, window, payload.
   */
  @Property(tries = 25, seed = "20261203")
  void anySequenceOfWrites_twoInstances_everyCallInDurableOrder(
      @ForAll @Size(min = 1, max = 14) List<@IntRange(min = 0, max = 59) Integer> codes) throws IOException {
    Path dir = Files.createTempDirectory("idem-order");
    try {
      Writer[] writers = {Writer.on(dir, true), Writer.on(dir, false)};
      for (int code : codes) {
        Writer w = writers[(code / 5) % 2];
        String k = Fixtures.key("p", 60L * (1 + (code / 10) % 3));
        switch (code % 5) {
          case 0, 1 -> w.store().putIfAbsent(k, Fixtures.bytes((code / 30) % 2 == 0 ? "alpha" : "beta"), "w");
          case 2 -> {
            if (w.store().stat(k).isPresent()) {
              Optional<PointerState> now = w.store().readPointer("p");
              assertEquals(CasResult.SWAPPED, w.store().compareAndSetPointer("p",
                  now.map(PointerState::token).orElse(null), pointerTo(w.store(), k)));
            }
          }
          case 3 -> w.store().delete(k);
          default -> w.store().deleteRecords(k);
        }
        for (Writer each : writers) {
          each.assertOrdered();
        }
      }
    } finally {
      try (Stream<Path> s = Files.walk(dir)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }
}
