package dev.idem.fuzz;

import dev.idem.store.fs.FsOps;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;

/**
 * The filesystem backend's seam: {@code FsOps.real()} with a {@link StepHook} around every call, the
 * way Okio's {@code ForwardingFileSystem} is used to make one call fail.
 */
final class HookedFsOps implements FsOps {
  /** The operations a step may name, as the story prints them. */
  static final java.util.List<String> OPS = java.util.List.of("createNew", "openAppend", "openLockFile", "write",
      "force", "createLink", "atomicMove", "fsyncDirectory", "createDirectory", "tryLock", "deleteIfExists");
  /** Where a fault after the call is a realistic failure: the bytes or sync may or may not have landed. */
  static final java.util.List<String> OPS_FAULT_AFTER = java.util.List.of("write", "force", "fsyncDirectory");

  private final FsOps d = FsOps.real();
  private final StepHook hook;
  private final DurabilityLog log;

  /** @param log where durability-relevant calls are recorded, or {@code null} (replica processes) */
  HookedFsOps(StepHook hook, DurabilityLog log) {
    this.hook = hook;
    this.log = log;
  }

  @FunctionalInterface
  private interface Call<T> {
    T run() throws IOException;
  }

  private <T> T around(String op, Call<T> call) throws IOException {
    hook.at(op, false);
    T result = call.run();
    hook.at(op, true);
    return result;
  }

  @Override public FileChannel createNew(Path file) throws IOException {
    FileChannel ch = around("createNew", () -> d.createNew(file));
    if (log != null) {
      log.opened(ch, file);
    }
    return ch;
  }
  @Override public FileChannel openAppend(Path file) throws IOException { return around("openAppend", () -> d.openAppend(file)); }
  @Override public FileChannel openLockFile(Path file) throws IOException {
    FileChannel ch = around("openLockFile", () -> d.openLockFile(file));
    if (log != null) {
      log.opened(ch, file);
    }
    return ch;
  }
  @Override public void write(FileChannel channel, ByteBuffer src) throws IOException {
    around("write", () -> {
      d.write(channel, src);
      return null;
    });
  }
  @Override public void force(FileChannel channel) throws IOException {
    around("force", () -> {
      d.force(channel);
      return null;
    });
    if (log != null) {
      log.forced(channel);
    }
  }
  @Override public void createLink(Path link, Path existing) throws IOException {
    around("createLink", () -> {
      d.createLink(link, existing);
      return null;
    });
    if (log != null) {
      log.record("createLink", link, existing);
    }
  }
  @Override public void atomicMove(Path source, Path target) throws IOException {
    if (log != null) {
      log.pointerMoving(source, target);
    }
    around("atomicMove", () -> {
      d.atomicMove(source, target);
      return null;
    });
    if (log != null) {
      log.record("atomicMove", source, target);
    }
  }
  @Override public void fsyncDirectory(Path dir) throws IOException {
    around("fsyncDirectory", () -> {
      d.fsyncDirectory(dir);
      return null;
    });
    if (log != null) {
      log.record("fsyncDirectory", dir, null);
    }
  }
  @Override public void createDirectory(Path dir) throws IOException {
    around("createDirectory", () -> {
      d.createDirectory(dir);
      return null;
    });
  }
  @Override public FileLock tryLock(FileChannel channel) throws IOException {
    FileLock lock = around("tryLock", () -> d.tryLock(channel));
    if (log != null && lock != null) {
      log.record("tryLock", null, null);
    }
    return lock;
  }
  @Override public boolean deleteIfExists(Path file) throws IOException { return around("deleteIfExists", () -> d.deleteIfExists(file)); }
}
