package dev.idem.cli;

import dev.idem.core.publish.InsufficientSpaceException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The command line's temporary files and directories (a task's output directory, a spooled stdin, a
 * fetched object before its rename). Exists because {@code Files.createTempFile} and {@code
 * createTempDirectory} name them with {@code SecureRandom}, whose first use starts the security
 * providers, a noticeable part of every {@code idem run}'s start, which otherwise never needs them. Same guarantees:
 * the name is created new ({@code O_EXCL}, {@code mkdir}), never an existing file or a link someone
 * planted; owner-only permissions where the filesystem has POSIX permissions; a taken name is retried
 * with another. The names need to be unique, not secret: a guessed name only makes a retry.
 */
final class TempPaths {
  private static final int ATTEMPTS = 16;

  private TempPaths() {}

  /** A new directory {@code PREFIX<16 hex>} in {@code dir} (null: {@code java.io.tmpdir}), mode 0700. */
  static Path createDirectory(Path dir, String prefix) throws IOException {
    return create(dir, prefix, "", true);
  }

  /** A new empty file {@code PREFIX<16 hex>SUFFIX} in {@code dir} (null: {@code java.io.tmpdir}), mode 0600. */
  static Path createFile(Path dir, String prefix, String suffix) throws IOException {
    return create(dir, prefix, suffix, false);
  }

  /**
   * Writes {@code in} into {@code file}, one this class created, replacing what it holds but not the
   * file itself, so it keeps its owner-only mode. ({@code Files.copy} with {@code REPLACE_EXISTING}
   * deletes the file and makes a new one with the default mode: readable by everyone in a shared
   * {@code $TMPDIR}.)
   *
   * @return the bytes written
   */
  static long copyInto(InputStream in, Path file) throws IOException {
    try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING,
        LinkOption.NOFOLLOW_LINKS)) {
      byte[] buf = new byte[64 * 1024];
      long n = 0;
      for (int r; (r = in.read(buf)) >= 0; n += r) {
        try {
          out.write(buf, 0, r);
        } catch (IOException e) {
          // A full or failing local disk, not the store (whose reads fill buf): name the file.
          throw new IOException("cannot write the temporary file " + file + " (java.io.tmpdir; bin/idem sets it from "
              + "TMPDIR): " + ExitCodes.oneLine(e), e);
        }
      }
      return n;
    }
  }

  /**
   * Refuses to spool {@code size} bytes into {@code java.io.tmpdir} when its filesystem has fewer free,
   * before any byte is fetched; {@code why} says why idem spools there and how to avoid it.
   */
  static void requireRoom(long size, String why) throws IOException {
    Path dir = Path.of(System.getProperty("java.io.tmpdir"));
    long free;
    try {
      free = Files.getFileStore(dir).getUsableSpace();
    } catch (IOException e) {
      return; // createFile then names the directory and why it cannot be used
    }
    if (free < size) {
      throw new IOException("the temporary directory " + dir + " (java.io.tmpdir; bin/idem sets it from TMPDIR) has "
          + InsufficientSpaceException.bytes(free) + " free, too little for the object (" + InsufficientSpaceException.bytes(size)
          + "): " + why + "; nothing written");
    }
  }

  private static Path create(Path dir, String prefix, String suffix, boolean directory) throws IOException {
    Path in = dir != null ? dir : Path.of(System.getProperty("java.io.tmpdir"));
    for (int attempt = 1; ; attempt++) {
      Path p = in.resolve(prefix + randomHex() + suffix);
      try {
        return directory ? Files.createDirectory(p, ownerOnly("rwx------")) : Files.createFile(p, ownerOnly("rw-------"));
      } catch (FileAlreadyExistsException e) {
        if (attempt == ATTEMPTS) {
          throw e;
        }
      } catch (IOException e) {
        throw new IOException("cannot create a temporary " + (directory ? "directory" : "file") + " in " + in
            + (dir == null ? " (java.io.tmpdir; bin/idem sets it from TMPDIR)" : "") + ": " + ExitCodes.oneLine(e), e);
      }
    }
  }

  private static FileAttribute<?>[] ownerOnly(String permissions) {
    return FileSystems.getDefault().supportedFileAttributeViews().contains("posix")
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(permissions))}
        : new FileAttribute<?>[0];
  }

  private static String randomHex() {
    return HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
  }
}
