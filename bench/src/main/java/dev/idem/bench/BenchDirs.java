package dev.idem.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Where file benchmarks write. {@code -Didem.bench.dir=DIR} wins; otherwise {@code
 * bench/target/bench-data} when run from the repository root, else {@code bench-data} under the
 * working directory. Never {@code java.io.tmpdir}: on many machines {@code /tmp} is a tmpfs, where
 * {@code fsync} is free and the comparison would say nothing about a real disk.
 */
final class BenchDirs {
  static final String PROPERTY = "idem.bench.dir";

  private BenchDirs() {}

  static Path base() {
    String configured = System.getProperty(PROPERTY);
    Path base;
    if (configured != null && !configured.isBlank()) {
      base = Paths.get(configured);
    } else if (Files.isDirectory(Paths.get("bench", "src"))) {
      base = Paths.get("bench", "target", "bench-data");
    } else {
      base = Paths.get("bench-data");
    }
    try {
      return Files.createDirectories(base.toAbsolutePath().normalize());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create benchmark directory " + base, e);
    }
  }

  /** A new, empty directory under {@link #base()} named after {@code what}. */
  static Path fresh(String what) throws IOException {
    return Files.createTempDirectory(base(), what + "-");
  }

  /** The filesystem type of {@code dir} as the JDK sees it ({@code ext4}, {@code tmpfs}, ...). */
  static String fileSystemType(Path dir) {
    try {
      return Files.getFileStore(dir).type();
    } catch (IOException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  /** Deletes {@code dir} and everything under it; a missing directory is fine. */
  static void deleteTree(Path dir) throws IOException {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    Files.walkFileTree(dir, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.delete(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
        if (e != null) {
          throw e;
        }
        Files.delete(d);
        return FileVisitResult.CONTINUE;
      }
    });
  }
}
