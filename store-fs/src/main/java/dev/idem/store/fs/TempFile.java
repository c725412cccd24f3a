package dev.idem.store.fs;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A uniquely named temporary file beside its destination, {@code .tmp-<name>.<16 hex>}, created with
 * {@code O_EXCL}. The {@code .tmp-} prefix makes it invisible to listings and a target for {@link
 * FsObjectStore#sweep}; the random suffix keeps concurrent writers (threads or processes) apart.
 *
 * <p>{@link #close()} is the one cleanup path: it closes the channel if still open and deletes the
 * name, whether the caller succeeded (the content then lives on under its final name) or failed. A
 * failure to delete is logged, not thrown: the leftover is a {@code .tmp-} file that sweep removes.
 */
final class TempFile implements Closeable {
  static final String PREFIX = KeyWalker.TEMP_PREFIX;
  /** Room for the prefix and suffix within the usual 255-byte name limit, even at 3 bytes a char. */
  private static final int MAX_BASE_CHARS = 60;

  private final FsOps ops;
  private final Path path;
  private FileChannel channel;

  private TempFile(FsOps ops, Path path, FileChannel channel) {
    this.ops = ops;
    this.path = path;
    this.channel = channel;
  }

  /** Creates a new temporary file in {@code dir} named after {@code baseName}. */
  static TempFile create(FsOps ops, Path dir, String baseName) throws IOException {
    String base = baseName.length() <= MAX_BASE_CHARS ? baseName
        : baseName.substring(0, Character.isHighSurrogate(baseName.charAt(MAX_BASE_CHARS - 1))
            ? MAX_BASE_CHARS - 1 : MAX_BASE_CHARS);
    for (int attempt = 1; ; attempt++) {
      Path p = dir.resolve(PREFIX + base + "." + randomHex());
      try {
        return new TempFile(ops, p, ops.createNew(p));
      } catch (FileAlreadyExistsException e) {
        if (attempt == 5) {
          throw e;
        }
      }
    }
  }

  /**
   * 16 random lowercase hex digits, for names that concurrent writers must not share (each is
   * created with {@code O_EXCL}, so a repeat is retried, never shared). Not {@code SecureRandom}: its
   * first use starts the security providers, a noticeable part of a command's start, and uniqueness needs
   * no secrecy here.
   */
  static String randomHex() {
    return HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
  }

  /**
   * Deletes the temporary files under {@code root} (any depth) last modified at least {@code grace}
   * ago, or with {@code dryRun} only lists them; the contract is {@link FsObjectStore#sweep}'s.
   */
  static List<String> sweep(FsOps ops, Path root, Duration grace, boolean dryRun) throws IOException {
    List<String> lines = new ArrayList<>();
    if (!Files.isDirectory(root)) {
      return lines;
    }
    Instant cutoff = Instant.now().minus(grace);
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes a) throws IOException {
        Instant modified = a.lastModifiedTime().toInstant();
        String name = file.getFileName().toString();
        // The publish lock files share the prefix (so they can never be a key) but are not temporary.
        if (a.isRegularFile() && name.startsWith(PREFIX) && !name.equals(KeyPublishLocks.FILE_NAME)
            && !modified.isAfter(cutoff)) {
          if (dryRun || ops.deleteIfExists(file)) {
            lines.add((dryRun ? "would remove " : "removed ") + root.relativize(file) + " (" + a.size()
                + " bytes, modified " + modified + ")");
          }
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
        if (e instanceof NoSuchFileException) {
          return FileVisitResult.CONTINUE; // removed while we walked
        }
        throw e;
      }
    });
    lines.sort(null);
    return lines;
  }

  Path path() {
    return path;
  }

  void write(ByteBuffer bytes) throws IOException {
    try {
      ops.write(channel, bytes);
    } catch (IOException e) {
      throw FsObjectStore.failure("could not write " + path, e);
    }
  }

  /** Forces the content to the device and closes the channel; the file stays until {@link #close()}. */
  void forceAndClose() throws IOException {
    FileChannel ch = channel;
    channel = null;
    try (ch) {
      ops.force(ch);
    } catch (IOException e) {
      throw FsObjectStore.failure("could not sync " + path, e);
    }
  }

  /**
   * Closes the channel without forcing the content: for files whose loss or tearing in a power loss
   * costs nothing but duplicated work (claims), where a reader on any host still sees every byte
   * written once it is linked. The file stays until {@link #close()}.
   */
  void closeUnforced() throws IOException {
    FileChannel ch = channel;
    channel = null;
    try {
      ch.close();
    } catch (IOException e) {
      throw FsObjectStore.failure("could not close " + path, e);
    }
  }

  @Override
  public void close() {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        Log.LOG.log(System.Logger.Level.WARNING, "could not close temporary file " + path + ": " + e.getMessage());
      }
      channel = null;
    }
    try {
      ops.deleteIfExists(path);
    } catch (IOException | RuntimeException e) {
      Log.LOG.log(System.Logger.Level.WARNING,
          "could not delete temporary file " + path + " (sweep will remove it): " + e.getMessage());
    }
  }

  /**
   * The logger, on first use only: {@code System.getLogger} searches the class path for a logger
   * finder, several milliseconds of a command that never logs.
   */
  private static final class Log {
    static final System.Logger LOG = System.getLogger(TempFile.class.getName());
  }
}
