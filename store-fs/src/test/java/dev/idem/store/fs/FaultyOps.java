package dev.idem.store.fs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The real {@link FsOps}, recording every call and throwing a synthetic {@link IOException} from the
 * one whose index is {@link #failAt} (like Okio's {@code FaultyFileSystem}). Thread-safe.
 */
final class FaultyOps implements FsOps {
  enum Op { CREATE_NEW, OPEN_LOCK_FILE, WRITE, FORCE, CREATE_LINK, ATOMIC_MOVE, FSYNC_DIRECTORY,
    CREATE_DIRECTORY, TRY_LOCK, DELETE, READ_ATTRIBUTES, OPEN_READ, LIST, OPEN_FOR_SYNC;

    /** Whether the call changes the filesystem (the rest only read it). */
    boolean mutating() {
      return this != READ_ATTRIBUTES && this != OPEN_READ && this != LIST && this != OPEN_FOR_SYNC;
    }
  }

  /**
   * One call: {@code path} is the name it acts on (for a call on a channel, the file the channel was
   * opened on, {@code null} if it was not opened here); {@code from} the existing name a link or a
   * rename starts from, else {@code null}.
   */
  record Call(Op op, Path path, Path from) {
    Call(Op op, Path path) {
      this(op, path, null);
    }

    @Override
    public String toString() {
      return op + " " + (path == null ? "?" : path.getFileName());
    }
  }

  private final FsOps real = FsOps.real();
  private final int failAt;
  private final AtomicInteger next = new AtomicInteger();
  private final List<Call> calls = new ArrayList<>();
  private final Map<FileChannel, Path> channels = new ConcurrentHashMap<>();

  private FaultyOps(int failAt) {
    this.failAt = failAt;
  }

  /** Records, never fails. */
  static FaultyOps recording() {
    return new FaultyOps(-1);
  }

  /** Fails the call with this (zero-based) index. */
  static FaultyOps failingAt(int index) {
    return new FaultyOps(index);
  }

  synchronized List<Call> calls() {
    return List.copyOf(calls);
  }

  /** The files of channels opened through this seam and still open: none once a call has returned. */
  List<Path> openChannels() {
    return channels.entrySet().stream().filter(e -> e.getKey().isOpen()).map(Map.Entry::getValue).toList();
  }

  private void step(Op op, Path path) throws IOException {
    step(op, path, null);
  }

  private void step(Op op, Path path, Path from) throws IOException {
    int i = next.getAndIncrement();
    synchronized (this) {
      calls.add(new Call(op, path, from));
    }
    if (i == failAt) {
      // Like the real thing: errors of calls on a path name it, errors on a channel (write, force, lock) do not.
      throw new IOException(channelOp(op) ? "injected failure of " + op : "injected failure of " + op + " on " + path);
    }
  }

  private static boolean channelOp(Op op) {
    return op == Op.WRITE || op == Op.FORCE || op == Op.TRY_LOCK;
  }

  private FileChannel track(Path p, FileChannel ch) {
    channels.put(ch, p);
    return ch;
  }

  @Override
  public FileChannel createNew(Path file) throws IOException {
    step(Op.CREATE_NEW, file);
    return track(file, real.createNew(file));
  }

  @Override
  public FileChannel openLockFile(Path file) throws IOException {
    step(Op.OPEN_LOCK_FILE, file);
    return track(file, real.openLockFile(file));
  }

  @Override
  public BasicFileAttributes readAttributes(Path path) throws IOException {
    step(Op.READ_ATTRIBUTES, path);
    return real.readAttributes(path);
  }

  @Override
  public InputStream newInputStream(Path file) throws IOException {
    step(Op.OPEN_READ, file);
    return real.newInputStream(file);
  }

  @Override
  public DirectoryStream<Path> newDirectoryStream(Path dir) throws IOException {
    step(Op.LIST, dir);
    return real.newDirectoryStream(dir);
  }

  @Override
  public FileChannel openForSync(Path file) throws IOException {
    step(Op.OPEN_FOR_SYNC, file);
    return track(file, real.openForSync(file));
  }

  @Override
  public void write(FileChannel channel, ByteBuffer src) throws IOException {
    step(Op.WRITE, channels.get(channel));
    real.write(channel, src);
  }

  @Override
  public void force(FileChannel channel) throws IOException {
    step(Op.FORCE, channels.get(channel));
    real.force(channel);
  }

  @Override
  public void createLink(Path link, Path existing) throws IOException {
    step(Op.CREATE_LINK, link, existing);
    real.createLink(link, existing);
  }

  @Override
  public void atomicMove(Path source, Path target) throws IOException {
    step(Op.ATOMIC_MOVE, target, source);
    real.atomicMove(source, target);
  }

  @Override
  public void fsyncDirectory(Path dir) throws IOException {
    step(Op.FSYNC_DIRECTORY, dir);
    real.fsyncDirectory(dir);
  }

  @Override
  public void createDirectory(Path dir) throws IOException {
    step(Op.CREATE_DIRECTORY, dir);
    real.createDirectory(dir);
  }

  @Override
  public FileLock tryLock(FileChannel channel) throws IOException {
    step(Op.TRY_LOCK, channels.get(channel));
    return real.tryLock(channel);
  }

  @Override
  public FileLock tryLock(FileChannel channel, long position) throws IOException {
    step(Op.TRY_LOCK, channels.get(channel));
    return real.tryLock(channel, position);
  }

  @Override
  public boolean deleteIfExists(Path file) throws IOException {
    step(Op.DELETE, file);
    return real.deleteIfExists(file);
  }
}
