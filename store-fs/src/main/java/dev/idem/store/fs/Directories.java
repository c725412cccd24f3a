package dev.idem.store.fs;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Creates and fsyncs directories through {@link FsOps}. A new name in a directory (a subdirectory, a
 * linked object, a renamed pointer) survives a power loss only once that directory is fsynced, so every
 * directory made here has its parent fsynced, and callers sync the directory of each name they make.
 */
final class Directories {
  private final FsOps ops;

  Directories(FsOps ops) {
    this.ops = ops;
  }

  /** Creates {@code dir} and missing parents, fsyncing the parent of each directory made. */
  void ensure(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    Deque<Path> missing = new ArrayDeque<>();
    for (Path p = dir; p != null && !Files.isDirectory(p); p = p.getParent()) {
      missing.push(p);
    }
    while (!missing.isEmpty()) {
      Path d = missing.pop();
      try {
        ops.createDirectory(d);
      } catch (FileAlreadyExistsException e) {
        if (!Files.isDirectory(d)) {
          throw new FileSystemException(d.toString(), null, "exists and is not a directory (a filesystem store"
              + " cannot hold both a key and keys below it); nothing was published");
        }
        // Made concurrently by another writer, which may not have synced it yet: sync it below too.
      }
      sync(d.getParent(), "created " + d + " but could not make it durable");
    }
  }

  /**
   * fsyncs {@code dir}.
   *
   * @throws IOException with {@code context} and the directory in its message when the fsync failed
   */
  void sync(Path dir, String context) throws IOException {
    try {
      ops.fsyncDirectory(dir);
    } catch (IOException e) {
      throw FsObjectStore.failure(context + " (fsync of " + dir + ")", e);
    }
  }
}
