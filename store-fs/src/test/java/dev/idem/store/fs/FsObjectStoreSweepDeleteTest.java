package dev.idem.store.fs;

import static dev.idem.store.fs.Fixtures.bytes;
import static dev.idem.store.fs.Fixtures.filesUnder;
import static dev.idem.store.fs.Fixtures.key;
import static dev.idem.store.fs.Fixtures.recordLines;
import static dev.idem.store.fs.Fixtures.tempFiles;
import static dev.idem.store.fs.Fixtures.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.PutStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FsObjectStore#sweep} and {@link FsObjectStore#delete}. */
class FsObjectStoreSweepDeleteTest {
  @TempDir Path dir;
  Path root;
  FsObjectStore store;
  String k;

  @BeforeEach
  void open() throws IOException {
    root = dir.resolve("store");
    store = FsObjectStore.open(root);
    k = key("orders", 60);
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    store.compareAndSetPointer("orders", null, Fixtures.generation(store, "orders", 60, 1));
  }

  private Path temp(Path dirOfIt, String name, Duration age) throws IOException {
    Path p = Files.write(dirOfIt.resolve(name), utf8("leftover"));
    Files.setLastModifiedTime(p, FileTime.from(Instant.now().minus(age)));
    return p;
  }

  @Test
  void sweep_oldTemporariesInObjectAndPointerDirs_removedOthersUntouched() throws IOException {
    List<Path> before = filesUnder(root);
    Path objectTemp = temp(root.resolve(k).getParent(), ".tmp-state.0001", Duration.ofHours(2));
    Path pointerTemp = temp(root.resolve("_idem/pointers/orders"), ".tmp-latest.0002", Duration.ofHours(2));

    List<String> removed = store.sweep(Duration.ofHours(1), false);

    assertEquals(2, removed.size(), removed.toString());
    assertTrue(removed.get(0).startsWith("removed " + root.relativize(pointerTemp) + " (8 bytes, modified "), removed.get(0));
    assertTrue(removed.get(1).startsWith("removed " + root.relativize(objectTemp)), removed.get(1));
    assertEquals(before, filesUnder(root), "only the temporaries went");
  }

  @Test
  void sweep_youngTemporary_keptForItsLiveWriter() throws IOException {
    Path young = temp(root, ".tmp-fresh.0003", Duration.ofSeconds(1));
    assertEquals(List.of(), store.sweep(Duration.ofMinutes(10), false));
    assertTrue(Files.exists(young));
  }

  @Test
  void sweep_dryRun_reportsButKeeps() throws IOException {
    Path old = temp(root, ".tmp-old.0004", Duration.ofHours(2));
    List<String> lines = store.sweep(Duration.ofHours(1), true);
    assertEquals(1, lines.size());
    assertTrue(lines.get(0).startsWith("would remove .tmp-old.0004 (8 bytes"), lines.get(0));
    assertTrue(Files.exists(old));
  }

  @Test
  void sweep_zeroGrace_removesEveryTemporary() throws IOException {
    temp(root, ".tmp-a.1", Duration.ZERO);
    temp(root.resolve("_idem"), ".tmp-b.2", Duration.ZERO);
    assertEquals(2, store.sweep(Duration.ZERO, false).size());
    assertEquals(List.of(), tempFiles(root));
  }

  @Test
  void sweep_missingRoot_nothing() throws IOException {
    assertEquals(List.of(), FsObjectStore.open(dir.resolve("none")).sweep(Duration.ZERO, false));
  }

  @Test
  void sweep_negativeGrace_rejected() {
    assertThrows(IllegalArgumentException.class, () -> store.sweep(Duration.ofSeconds(-1), false));
  }

  @Test
  void delete_existing_objectGoneRecordsKeptRepublishable() throws IOException {
    assertTrue(store.delete(k));

    assertFalse(Files.exists(root.resolve(k)));
    assertFalse(store.exists(k));
    assertEquals(1, recordLines(root, k).size(), "the records are history and stay");
    assertEquals(PutStatus.CREATED, store.putIfAbsent(k, bytes("alpha"), "writer-b").status());
    assertEquals("writer-b", store.stat(k).orElseThrow().writer());
  }

  @Test
  void delete_recreatedWithOtherBytesAfterDelete_statReadsTheNewLine() throws IOException {
    store.delete(k);
    store.putIfAbsent(k, bytes("omega"), "writer-b");
    assertEquals(dev.idem.core.Sha256.of(utf8("omega")), store.stat(k).orElseThrow().sha256());
  }

  @Test
  void delete_missingOrDirectory_false() throws IOException {
    assertFalse(store.delete(key("orders", 120)));
    assertFalse(store.delete("orders"));
    assertTrue(Files.isDirectory(root.resolve("orders")));
  }

  @Test
  void deleteRecords_divergentKeyAfterDelete_recordsAndEvidenceGoneKeyLeavesHistory() throws IOException {
    assertEquals(PutStatus.DIVERGENT, store.putIfAbsent(k, bytes("omega"), "writer-b").status());
    store.delete(k);

    int removed = store.deleteRecords(k);

    assertEquals(3, removed, "CREATED and DIVERGENT records and the divergent bytes");
    assertEquals(List.of(), Fixtures.history(store, ""));
    assertEquals(List.of(Path.of("orders/60", KeyPublishLocks.FILE_NAME)), filesUnder(root.resolve("_idem/records")),
        "only the directory's publish lock file, shared by its keys, stays");
    assertEquals(List.of(), filesUnder(root.resolve("_idem/evidence")));
    assertEquals(0, store.deleteRecords(k), "removing nothing is not an error");
  }

  @Test
  void exists_deleteRunsBetweenItsStatAndItsCaching_keyNotCachedAsPresent() throws IOException {
    FsObjectStore[] holder = new FsObjectStore[1];
    boolean[] deleteNow = {false};
    FsOps deletesDuringTheStat = new ForwardingOps() {
      @Override
      public java.nio.file.attribute.BasicFileAttributes readAttributes(Path path) throws IOException {
        java.nio.file.attribute.BasicFileAttributes a = super.readAttributes(path);
        if (deleteNow[0] && path.equals(root.resolve(k))) {
          deleteNow[0] = false;
          holder[0].delete(k); // retention, on another thread, right after exists saw the file
        }
        return a;
      }
    };
    holder[0] = FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(deletesDuringTheStat));
    deleteNow[0] = true;

    assertTrue(holder[0].exists(k), "the stat saw the object");

    assertFalse(Files.exists(root.resolve(k)));
    assertFalse(holder[0].exists(k), "the answer given before the delete was not cached after it");
  }
}
