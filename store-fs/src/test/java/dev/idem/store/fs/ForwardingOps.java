package dev.idem.store.fs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * {@link FsOps#real()} call for call; a test overrides the one call it changes. Public, and shipped in
 * this module's test jar, so that tests of other modules (the command's, the fuzz scenarios) can inject
 * faults too, while the seam itself stays out of the store's API: {@link #openStore} is their way in.
 */
public class ForwardingOps implements FsOps {
  private final FsOps real = FsOps.real();

  /** A store at {@code root} with {@code options} whose every filesystem call goes through this seam. */
  public final FsObjectStore openStore(Path root, FsObjectStore.Options options) throws IOException {
    return FsObjectStore.open(root, options.withOps(this));
  }

  @Override
  public FileChannel createNew(Path file) throws IOException {
    return real.createNew(file);
  }

  @Override
  public FileChannel openLockFile(Path file) throws IOException {
    return real.openLockFile(file);
  }

  @Override
  public BasicFileAttributes readAttributes(Path path) throws IOException {
    return real.readAttributes(path);
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
  public FileChannel openForSync(Path file) throws IOException {
    return real.openForSync(file);
  }

  @Override
  public void write(FileChannel channel, ByteBuffer src) throws IOException {
    real.write(channel, src);
  }

  @Override
  public void force(FileChannel channel) throws IOException {
    real.force(channel);
  }

  @Override
  public void createLink(Path link, Path existing) throws IOException {
    real.createLink(link, existing);
  }

  @Override
  public void atomicMove(Path source, Path target) throws IOException {
    real.atomicMove(source, target);
  }

  @Override
  public void fsyncDirectory(Path dir) throws IOException {
    real.fsyncDirectory(dir);
  }

  @Override
  public void createDirectory(Path dir) throws IOException {
    real.createDirectory(dir);
  }

  @Override
  public FileLock tryLock(FileChannel channel) throws IOException {
    return real.tryLock(channel);
  }

  @Override
  public FileLock tryLock(FileChannel channel, long position) throws IOException {
    return real.tryLock(channel, position);
  }

  @Override
  public boolean deleteIfExists(Path file) throws IOException {
    return real.deleteIfExists(file);
  }

  @Override
  public long usableSpace(Path path) throws IOException {
    return real.usableSpace(path);
  }
}
