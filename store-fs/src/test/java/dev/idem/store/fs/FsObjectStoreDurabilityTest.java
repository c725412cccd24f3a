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
  void compareAndSetPointer_objectCreatedByAnotherInstance_objectAndDirectorySyncedFirst() throws Exception {
    Pointer p = Fixtures.generation(FsObjectStore.open(root), "p", 60, 1);
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
}
