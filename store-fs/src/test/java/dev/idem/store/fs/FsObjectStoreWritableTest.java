package dev.idem.store.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FsObjectStore#checkWritable}: what {@code idem run} asks before it starts CMD. Tests run as
 * root, for whom permission bits do not stop a write, so an unwritable store is made two ways that
 * hold for root too: a root below a regular file, and an injected failure of the file creation (what
 * a read-only mount answers).
 */
class FsObjectStoreWritableTest {
  @TempDir Path dir;

  private static List<Path> files(Path root) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(Files::isRegularFile).toList();
    }
  }

  @Test
  void checkWritable_freshRoot_createsTheStoreDirectoriesAndLeavesNoFile() throws IOException {
    Path root = dir.resolve("new-store");
    try (FsObjectStore store = FsObjectStore.open(root)) {
      store.checkWritable();
    }
    assertTrue(Files.isDirectory(root.resolve("_idem")));
    assertEquals(List.of(), files(root), "the probe file is gone");
  }

  @Test
  void usableSpace_theFilesystemsFreeSpace_evenBeforeTheRootExists() throws IOException {
    long free = Files.getFileStore(dir).getUsableSpace();
    try (FsObjectStore store = FsObjectStore.open(dir.resolve("not/yet"))) {
      long reported = store.usableSpace().orElseThrow();
      // Other writers share the filesystem: the two reads agree within what they wrote in between.
      assertTrue(Math.abs(reported - free) < 64L * 1024 * 1024, reported + " vs " + free);
    }
    assertFalse(Files.exists(dir.resolve("not")), "reading the free space creates nothing");
  }

  @Test
  void usableSpace_notReadable_emptySoNothingIsCheckedAgainstIt() throws IOException {
    // A chroot (a container image) sees the host's /proc/mounts, where no mount names its paths.
    FsOps real = FsOps.real();
    FsOps noMountEntry = (FsOps) java.lang.reflect.Proxy.newProxyInstance(FsOps.class.getClassLoader(),
        new Class<?>[] {FsOps.class}, (proxy, m, args) -> {
          if (m.getName().equals("usableSpace")) {
            throw new IOException("Mount point not found");
          }
          try {
            return m.invoke(real, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
    try (FsObjectStore store = FsObjectStore.open(dir, FsObjectStore.Options.defaults().withOps(noMountEntry))) {
      assertEquals(java.util.OptionalLong.empty(), store.usableSpace());
    }
  }

  @Test
  void checkWritable_rootBelowARegularFile_failsAndCreatesNothing() throws IOException {
    Path file = Files.writeString(dir.resolve("not-a-dir"), "x");
    try (FsObjectStore store = FsObjectStore.open(file.resolve("store"))) {
      IOException e = assertThrows(IOException.class, store::checkWritable);
      assertFalse(e.getMessage().contains("\n"), e.getMessage());
      assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    }
    assertEquals("x", Files.readString(file));
  }

  @Test
  void checkWritable_fileCreationRefused_failsAndLeavesNoFile() throws IOException {
    Path root = dir.resolve("store");
    try (FsObjectStore store = FsObjectStore.open(root)) {
      store.checkWritable();
    }
    FaultyOps recording = FaultyOps.recording();
    try (FsObjectStore store = FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(recording))) {
      store.checkWritable();
    }
    int create = -1;
    List<FaultyOps.Call> calls = recording.calls();
    for (int i = 0; i < calls.size() && create < 0; i++) {
      if (calls.get(i).op() == FaultyOps.Op.CREATE_NEW) {
        create = i;
      }
    }
    assertTrue(create >= 0, "the check creates a file: " + calls);
    try (FsObjectStore store = FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(FaultyOps.failingAt(create)))) {
      IOException e = assertThrows(IOException.class, store::checkWritable);
      assertTrue(e.getMessage().contains("injected failure of CREATE_NEW"), e.getMessage());
    }
    assertEquals(List.of(), files(root));
  }
}
