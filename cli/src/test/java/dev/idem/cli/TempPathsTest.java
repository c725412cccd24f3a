package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Temporary names made without SecureRandom keep Files.createTemp*'s guarantees: new, owner-only, distinct. */
class TempPathsTest {
  @TempDir
  Path dir;

  @Test
  void createFile_newEmptyOwnerOnly_distinctNames() throws IOException {
    Path a = TempPaths.createFile(dir, "idem-get-", ".tmp");
    Path b = TempPaths.createFile(dir, "idem-get-", ".tmp");

    assertNotEquals(a, b);
    assertEquals(dir, a.getParent());
    assertTrue(a.getFileName().toString().matches("idem-get-[0-9a-f]{16}\\.tmp"), a::toString);
    assertEquals(0, Files.size(a));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(a)));
  }

  @Test
  void copyInto_replacesTheContentKeepsTheFileAndItsOwnerOnlyMode() throws IOException {
    Path a = TempPaths.createFile(dir, "idem-publish-", ".stdin");
    Files.writeString(a, "a longer earlier content");
    Object inode = Files.readAttributes(a, java.nio.file.attribute.BasicFileAttributes.class).fileKey();

    long n = TempPaths.copyInto(new java.io.ByteArrayInputStream("rows".getBytes(StandardCharsets.UTF_8)), a);

    assertEquals(4, n);
    assertEquals("rows", Files.readString(a));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(a)));
    assertEquals(inode, Files.readAttributes(a, java.nio.file.attribute.BasicFileAttributes.class).fileKey(),
        "the same file, not one made anew");
  }

  @Test
  void createDirectory_newOwnerOnly() throws IOException {
    Path d = TempPaths.createDirectory(dir, "idem-run-");

    assertTrue(Files.isDirectory(d));
    assertTrue(d.getFileName().toString().matches("idem-run-[0-9a-f]{16}"), d::toString);
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(d)));
  }

  @Test
  void missingDirectory_oneLineNamingIt_nothingCreated() throws IOException {
    Path missing = dir.resolve("gone");

    IOException e = assertThrows(IOException.class, () -> TempPaths.createFile(missing, "idem-publish-", ".stdin"));
    IOException d = assertThrows(IOException.class, () -> TempPaths.createDirectory(missing, "idem-run-"));

    assertTrue(e.getMessage().startsWith("cannot create a temporary file in " + missing + ": "), e.getMessage());
    assertTrue(d.getMessage().startsWith("cannot create a temporary directory in " + missing + ": "), d.getMessage());
    assertTrue(e.getCause() instanceof NoSuchFileException);
    try (Stream<Path> left = Files.list(dir)) {
      assertEquals(0, left.count());
    }
  }

  @Test
  void defaultDirectory_isJavaIoTmpdir() throws IOException {
    Path made = TempPaths.createFile(null, "idem-temppaths-test-", "");
    try {
      assertEquals(Path.of(System.getProperty("java.io.tmpdir")), made.getParent());
    } finally {
      Files.delete(made);
    }
  }
}
