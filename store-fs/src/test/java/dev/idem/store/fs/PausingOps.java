package dev.idem.store.fs;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The real {@link FsOps}, except that the call with a given index first prints {@code PAUSED} and then
 * blocks forever, so a parent process can kill this one at exactly that point: the filesystem then
 * holds what every call before it did, and nothing of it or after it.
 */
final class PausingOps implements FsOps {
  private final FsOps real = FsOps.real();
  private final int pauseAt;
  private final PrintStream out;
  private int next;

  PausingOps(int pauseAt, PrintStream out) {
    this.pauseAt = pauseAt;
    this.out = out;
  }

  private synchronized void step(String op, Object what) {
    if (next++ == pauseAt) {
      out.println("PAUSED " + pauseAt + " " + op + " " + what);
      out.flush();
      while (true) {
        try {
          wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  @Override
  public FileChannel createNew(Path file) throws IOException {
    step("CREATE_NEW", file);
    return real.createNew(file);
  }

  @Override
  public FileChannel openLockFile(Path file) throws IOException {
    step("OPEN_LOCK_FILE", file);
    return real.openLockFile(file);
  }

  @Override
  public BasicFileAttributes readAttributes(Path path) throws IOException {
    return real.readAttributes(path); // reads change nothing a crash could reveal: never a pause point
  }

  @Override
  public InputStream newInputStream(Path file) throws IOException {
    return real.newInputStream(file);
  }

  @Override
  public DirectoryStream<Path> newDirectoryStream(Path dir) throws IOException {
    return real.newDirectoryStream(dir);
  }

  @Override
  public void write(FileChannel channel, ByteBuffer src) throws IOException {
    step("WRITE", channel);
    real.write(channel, src);
  }

  @Override
  public void force(FileChannel channel) throws IOException {
    step("FORCE", channel);
    real.force(channel);
  }

  @Override
  public void createLink(Path link, Path existing) throws IOException {
    step("CREATE_LINK", link);
    real.createLink(link, existing);
  }

  @Override
  public void atomicMove(Path source, Path target) throws IOException {
    step("ATOMIC_MOVE", target);
    real.atomicMove(source, target);
  }

  @Override
  public void fsyncDirectory(Path dir) throws IOException {
    step("FSYNC_DIRECTORY", dir);
    real.fsyncDirectory(dir);
  }

  @Override
  public void createDirectory(Path dir) throws IOException {
    step("CREATE_DIRECTORY", dir);
    real.createDirectory(dir);
  }

  @Override
  public FileLock tryLock(FileChannel channel) throws IOException {
    step("TRY_LOCK", channel);
    return real.tryLock(channel);
  }

  @Override
  public FileLock tryLock(FileChannel channel, long position) throws IOException {
    step("TRY_LOCK", channel);
    return real.tryLock(channel, position);
  }

  @Override
  public boolean deleteIfExists(Path file) throws IOException {
    step("DELETE", file);
    return real.deleteIfExists(file);
  }
}
