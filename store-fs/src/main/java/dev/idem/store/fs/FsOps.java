package dev.idem.store.fs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The narrow seam through which {@link FsObjectStore} reaches the filesystem: creating, writing and
 * syncing files, linking, renaming, locking, deleting, and the reads (attributes, opening a file,
 * listing a directory) that {@link ContainedFs} makes for every path it hands out.
 *
 * <p>It exists so tests can make any single call fail (like Okio's {@code ForwardingFileSystem}),
 * reads included, and check that the store is still correct afterwards. Production code uses {@link
 * #real()}. An implementation must behave like the real one or throw an {@link IOException}; the
 * store treats every exception from here as "this step did not happen". No call follows a symbolic
 * link at the name it is given (the directories above it are {@link ContainedFs}'s to check).
 */
interface FsOps {

  /** The operations of the default filesystem, with the semantics documented on each method. */
  static FsOps real() {
    return RealFsOps.INSTANCE;
  }

  /**
   * Creates {@code file} and opens it for writing; fails with {@link FileAlreadyExistsException} if any
   * file is there ({@code O_CREAT|O_EXCL}).
   */
  FileChannel createNew(Path file) throws IOException;

  /**
   * Opens {@code file} for writing, creating it if absent, to hold a lock on; never truncates it, and
   * fails rather than follow a symbolic link at that name.
   */
  FileChannel openLockFile(Path file) throws IOException;

  /**
   * The attributes of {@code path} itself, never of what a symbolic link there points to ({@code
   * lstat}); fails with {@link java.nio.file.NoSuchFileException} when nothing is there.
   */
  BasicFileAttributes readAttributes(Path path) throws IOException;

  /** Opens {@code file} for reading; fails rather than follow a symbolic link at that name ({@code O_NOFOLLOW}). */
  InputStream newInputStream(Path file) throws IOException;

  /** The entries of the directory {@code dir}; the caller closes the stream. */
  DirectoryStream<Path> newDirectoryStream(Path dir) throws IOException;

  /**
   * Opens the existing regular file {@code file} for reading, only to {@link #force} it; fails rather
   * than follow a symbolic link at that name. A default, so seams written before it (which only
   * observe or fail the other calls) keep compiling and behave as before.
   */
  default FileChannel openForSync(Path file) throws IOException {
    return FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
  }

  /** Writes all of {@code src} to {@code channel}. */
  void write(FileChannel channel, ByteBuffer src) throws IOException;

  /** Flushes {@code channel}'s content and metadata to the device ({@code fsync}). */
  void force(FileChannel channel) throws IOException;

  /**
   * Creates {@code link} as a new name for {@code existing} ({@code link(2)}); fails with {@link
   * FileAlreadyExistsException} if {@code link} exists and never replaces it.
   */
  void createLink(Path link, Path existing) throws IOException;

  /**
   * Renames {@code source} to {@code target} atomically, replacing {@code target} ({@code rename(2)});
   * throws {@link AtomicMoveNotSupportedException} where that cannot be done atomically.
   */
  void atomicMove(Path source, Path target) throws IOException;

  /**
   * Makes the entries of {@code dir} durable ({@code fsync} of the directory). On Windows, where a
   * directory cannot be opened, the real implementation does nothing: NTFS journals its metadata and
   * Java offers no way to flush a directory there.
   */
  void fsyncDirectory(Path dir) throws IOException;

  /** Creates one directory; fails with {@link FileAlreadyExistsException} if anything is there. */
  void createDirectory(Path dir) throws IOException;

  /**
   * Tries to take an exclusive kernel lock on the whole of {@code channel}'s file without waiting.
   *
   * @return the lock, or {@code null} when another process holds it
   */
  FileLock tryLock(FileChannel channel) throws IOException;

  /**
   * Tries to take an exclusive kernel lock on the one byte at {@code position} of {@code channel}'s
   * file without waiting; {@code null} when another process holds it. A default, like {@link
   * #openForSync}, so seams written before it keep compiling.
   */
  default FileLock tryLock(FileChannel channel, long position) throws IOException {
    return channel.tryLock(position, 1, false);
  }

  /** Deletes {@code file} if it exists; returns whether it did. */
  boolean deleteIfExists(Path file) throws IOException;

  /**
   * The bytes this process may still write on the filesystem holding {@code path} ({@code statvfs}'s
   * available blocks). A default, like {@link #openForSync}, so seams written before it keep compiling.
   */
  default long usableSpace(Path path) throws IOException {
    try {
      return Files.getFileStore(path).getUsableSpace();
    } catch (IOException e) {
      // No mount entry names the path (a chroot, as a container image runs in, sees the host's
      // /proc/mounts): statvfs it directly, which answers 0 for a failure too.
      long free = path.toFile().getUsableSpace();
      if (free > 0) {
        return free;
      }
      throw e;
    }
  }
}

/** The default filesystem, unadorned. */
final class RealFsOps implements FsOps {
  static final RealFsOps INSTANCE = new RealFsOps();
  private static final boolean WINDOWS =
      System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).startsWith("windows");

  private RealFsOps() {}

  @Override
  public FileChannel createNew(Path file) throws IOException {
    return FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
  }

  @Override
  public FileChannel openLockFile(Path file) throws IOException {
    return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
  }

  @Override
  public BasicFileAttributes readAttributes(Path path) throws IOException {
    return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
  }

  @Override
  public InputStream newInputStream(Path file) throws IOException {
    return Files.newInputStream(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
  }

  @Override
  public DirectoryStream<Path> newDirectoryStream(Path dir) throws IOException {
    return Files.newDirectoryStream(dir);
  }

  @Override
  public void write(FileChannel channel, ByteBuffer src) throws IOException {
    while (src.hasRemaining()) {
      channel.write(src);
    }
  }

  @Override
  public void force(FileChannel channel) throws IOException {
    channel.force(true);
  }

  @Override
  public void createLink(Path link, Path existing) throws IOException {
    Files.createLink(link, existing);
  }

  @Override
  public void atomicMove(Path source, Path target) throws IOException {
    Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
  }

  @Override
  public void fsyncDirectory(Path dir) throws IOException {
    if (WINDOWS) {
      return;
    }
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      ch.force(true);
    }
  }

  @Override
  public void createDirectory(Path dir) throws IOException {
    Files.createDirectory(dir);
  }

  @Override
  public FileLock tryLock(FileChannel channel) throws IOException {
    return channel.tryLock();
  }

  /**
   * One system call where it can: {@link java.io.File#delete} is {@code unlink} (or {@code rmdir} for
   * a directory), which {@link Files#deleteIfExists} runs only after an {@code lstat} of its own. When
   * it fails, {@link Files#deleteIfExists} gives the answer (false: nothing there) or the reason.
   */
  @Override
  public boolean deleteIfExists(Path file) throws IOException {
    if (file.getFileSystem() == FileSystems.getDefault() && file.toFile().delete()) {
      return true;
    }
    return Files.deleteIfExists(file);
  }

  @Override
  public String toString() {
    return "FsOps.real()";
  }
}
