package dev.idem.store.fs;

import static dev.idem.store.fs.Fixtures.tempFiles;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.idem.store.fs.FaultyOps.Call;
import dev.idem.store.fs.FaultyOps.Op;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.FutureTask;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LockedReplace} on its own: every call of a lock-and-replace failing in turn, and a filesystem
 * that cannot rename atomically. The pointer and the retirement mark are replaced through it; their own
 * suites check what they decide under the lock.
 */
class LockedReplaceTest {
  private static final String OLD = "old document\n";
  private static final String NEW = "new document, longer than the old one\n";

  @TempDir Path dir;

  /** A store root holding {@code d/mark} with the old document, and the lock file's directory. */
  private static Path seed(Path root) throws IOException {
    Path target = root.resolve("d/mark");
    Files.createDirectories(target.getParent());
    Files.writeString(target, OLD);
    return target;
  }

  private static void replace(Path root, FsOps ops, Path target) throws IOException {
    try (LockedReplace r = LockedReplace.lock(ops, new ContainedFs(root, ops), target.resolveSibling("mark.lock"),
        Duration.ZERO)) {
      assertNotNull(r, "nobody else holds the lock");
      r.commit(target, NEW.getBytes(StandardCharsets.UTF_8), "mark");
    }
  }

  /** Taken from another thread, so that an in-process lock this thread still held would show. */
  private static void assertLockFree(Path target) throws Exception {
    FutureTask<Boolean> other = new FutureTask<>(() -> {
      InterProcessLock again = InterProcessLock.acquire(FsOps.real(), target.resolveSibling("mark.lock"), Duration.ZERO);
      if (again == null) {
        return false;
      }
      again.close();
      return true;
    });
    new Thread(other).start();
    assertTrue(other.get(), "the lock was released");
  }

  @TestFactory
  Stream<DynamicTest> commit_eachCallFailing_oldDocumentUntilTheRenameLockReleased() throws IOException {
    Path recRoot = dir.resolve("recording");
    FaultyOps rec = FaultyOps.recording();
    replace(recRoot, rec, seed(recRoot));
    List<Call> calls = rec.calls();
    int rename = IntStream.range(0, calls.size()).filter(i -> calls.get(i).op() == Op.ATOMIC_MOVE).findFirst()
        .orElseThrow();
    return IntStream.range(0, calls.size()).mapToObj(i -> dynamicTest("fail call " + i + " (" + calls.get(i) + ")", () -> {
      Path root = dir.resolve("fail-" + i);
      Path target = seed(root);
      FaultyOps faulty = FaultyOps.failingAt(i);
      IOException e = null;
      try {
        replace(root, faulty, target);
      } catch (IOException thrown) {
        e = thrown;
      }
      assertEquals(List.of(), faulty.openChannels(), "no file left open, the lock file's included");
      assertLockFree(target);
      if (calls.get(i).op() == Op.DELETE) {
        assertNull(e, "failing to delete the renamed-away temporary name does not fail the replace");
      } else {
        assertNotNull(e, "the failure surfaces");
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().contains(root.toString()), "names a path in the store: " + e.getMessage());
      }
      assertEquals(i <= rename ? OLD : NEW, Files.readString(target), "whole, old until the rename");
      assertEquals(List.of(), tempFiles(root), "the temporary name is gone");
    }));
  }

  @Test
  void commit_atomicRenameNotSupported_refusedNamingBothNamesOldDocumentKept() throws Exception {
    Path root = dir.resolve("no-atomic-rename");
    Path target = seed(root);
    FsOps noAtomicRename = new ForwardingOps() {
      @Override
      public void atomicMove(Path source, Path to) throws IOException {
        throw new AtomicMoveNotSupportedException(source.toString(), to.toString(), "not here");
      }
    };
    AtomicMoveNotSupportedException e = assertThrows(AtomicMoveNotSupportedException.class,
        () -> replace(root, noAtomicRename, target));
    assertEquals(target.toString(), e.getOtherFile());
    assertTrue(e.getFile().contains(".tmp-mark."), e.getFile());
    assertTrue(e.getReason().contains("refusing to replace the mark non-atomically"), e.getReason());
    assertEquals(OLD, Files.readString(target), "no fallback: the old document stays");
    assertEquals(List.of(), tempFiles(root));
    assertLockFree(target);
  }
}
