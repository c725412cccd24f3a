package dev.idem.store.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.CasResult;
import dev.idem.core.store.Pointer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * G1 through the fsyncs a pointer swap makes: the object a pointer is about to name is made durable
 * unless this very store instance created it (its publish forced the file and fsynced the directory).
 */
class FsObjectStoreDurabilityTest {
  @TempDir Path root;

  /** The calls of the swap made under the pointer lock (directory creation before it aside). */
  private static List<FaultyOps.Op> pointerSwapOps(FaultyOps rec, int from) {
    List<FaultyOps.Op> ops = rec.calls().subList(from, rec.calls().size()).stream().map(FaultyOps.Call::op).toList();
    return ops.subList(ops.lastIndexOf(FaultyOps.Op.TRY_LOCK) + 1, ops.size());
  }

  private static long forces(List<FaultyOps.Op> ops) {
    return ops.stream().filter(o -> o == FaultyOps.Op.FORCE || o == FaultyOps.Op.FSYNC_DIRECTORY).count();
  }

  @Test
  void compareAndSetPointer_objectCreatedByThisInstance_notSyncedAgain() throws Exception {
    FaultyOps rec = FaultyOps.recording();
    FsObjectStore store = FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(rec));
    Pointer p = Fixtures.generation(store, "p", 60, 1);
    int before = rec.calls().size();
    assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("p", null, p));
    // pointer temp force + pointer directory fsync only
    assertEquals(2, forces(pointerSwapOps(rec, before)), rec.calls().toString());
  }

  @Test
  void compareAndSetPointer_unrecordedObjectOfAnotherInstance_objectAndDirectorySyncedFirst() throws Exception {
    Pointer p = Fixtures.generation(FsObjectStore.open(root), "p", 60, 1);
    FsObjectStore.open(root).deleteRecords(p.key()); // no CREATED record vouches for it
    FaultyOps rec = FaultyOps.recording();
    FsObjectStore other = FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(rec));
    assertTrue(other.exists(p.key()), "a cached existence check must not count as durability");
    int before = rec.calls().size();
    assertEquals(CasResult.SWAPPED, other.compareAndSetPointer("p", null, p));
    List<FaultyOps.Op> ops = pointerSwapOps(rec, before);
    assertEquals(4, forces(ops), rec.calls().toString());
    assertEquals(FaultyOps.Op.FORCE, ops.stream().filter(o -> o == FaultyOps.Op.FORCE || o == FaultyOps.Op.FSYNC_DIRECTORY)
        .findFirst().orElseThrow(), "the object is forced before the pointer temp is written");
  }

  @Test
  void compareAndSetPointer_afterDelete_syncsAgain() throws Exception {
    FaultyOps rec = FaultyOps.recording();
    FsObjectStore store = FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(rec));
    Pointer p = Fixtures.generation(store, "p", 60, 1);
    store.delete(p.key());
    store.putIfAbsent(p.key(), Fixtures.bytes("generation p/60/1"), "writer-g");
    int before = rec.calls().size();
    assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("p", null, p));
    assertEquals(2, forces(pointerSwapOps(rec, before)), "re-created here: durable again: " + rec.calls());
  }

  /** Index of the first call at or after {@code from} of {@code op} whose path satisfies {@code where}. */
  private static int indexOf(List<FaultyOps.Call> calls, int from, FaultyOps.Op op, java.util.function.Predicate<Path> where) {
    for (int i = Math.max(from, 0); i < calls.size(); i++) {
      if (calls.get(i).op() == op && calls.get(i).path() != null && where.test(calls.get(i).path())) {
        return i;
      }
    }
    return -1;
  }

  @Test
  void putIfAbsent_divergent_recordDurableBeforeItsEvidenceAndEvidenceDurableBeforeReturning() throws Exception {
    String k = Fixtures.key("p", 60);
    FsObjectStore.open(root).putIfAbsent(k, Fixtures.bytes("alpha"), "writer-a");
    FaultyOps rec = FaultyOps.recording();
    FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(rec)).putIfAbsent(k, Fixtures.bytes("beta"), "writer-b");
    List<FaultyOps.Call> c = rec.calls();
    Path evidenceDir = root.resolve("_idem/evidence").resolve(k);
    Path recordDir = root.resolve("_idem/records/p/60");

    // P8: the fact (the DIVERGENT record) is durable before the bytes are kept.
    int created = indexOf(c, 0, FaultyOps.Op.CREATE_NEW, p -> p.toString().contains("!DIVERGENT."));
    Path record = created < 0 ? null : c.get(created).path();
    int forced = indexOf(c, created, FaultyOps.Op.FORCE, p -> p.equals(record));
    int synced = indexOf(c, forced, FaultyOps.Op.FSYNC_DIRECTORY, recordDir::equals);
    int link = indexOf(c, synced, FaultyOps.Op.CREATE_LINK, p -> p.getParent().equals(evidenceDir));
    int evidenceSynced = indexOf(c, link, FaultyOps.Op.FSYNC_DIRECTORY, evidenceDir::equals);

    assertTrue(created >= 0 && forced > created && synced > forced && link > synced && evidenceSynced > link,
        "record " + created + " < its force " + forced + " < its dir fsync " + synced + " < link " + link
            + " < evidence dir fsync " + evidenceSynced + ": " + c);
  }

  @Test
  void putIfAbsent_created_recordWrittenAfterTheObjectIsDurableWithoutFsyncs() throws Exception {
    String k = Fixtures.key("p", 60);
    FaultyOps rec = FaultyOps.recording();
    FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(rec)).putIfAbsent(k, Fixtures.bytes("alpha"), "w");
    List<FaultyOps.Call> c = rec.calls();
    Path objectDir = root.resolve(k).getParent();

    int link = indexOf(c, 0, FaultyOps.Op.CREATE_LINK, root.resolve(k)::equals);
    int objectSynced = indexOf(c, link, FaultyOps.Op.FSYNC_DIRECTORY, objectDir::equals);
    int created = indexOf(c, 0, FaultyOps.Op.CREATE_NEW, p -> p.toString().contains("!CREATED."));

    assertTrue(link >= 0 && objectSynced > link && created > objectSynced, c.toString());
    assertEquals(List.of(), c.subList(created, c.size()).stream()
        .filter(x -> x.op() == FaultyOps.Op.FORCE || x.op() == FaultyOps.Op.FSYNC_DIRECTORY).toList(),
        "the object witnesses a CREATED record: no fsync is spent on it");
  }
}
