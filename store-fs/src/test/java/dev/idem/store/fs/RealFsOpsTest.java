package dev.idem.store.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real {@link FsOps#deleteIfExists}: one system call when it works, {@link Files#deleteIfExists}'s answers when not. */
class RealFsOpsTest {
  @TempDir Path dir;
  private final FsOps ops = FsOps.real();

  @Test
  void deleteIfExists_file_deletedTrue() throws IOException {
    Path f = Files.write(dir.resolve("f"), new byte[] {1});
    assertTrue(ops.deleteIfExists(f));
    assertFalse(Files.exists(f, LinkOption.NOFOLLOW_LINKS));
  }

  @Test
  void deleteIfExists_nothingThere_false() throws IOException {
    assertFalse(ops.deleteIfExists(dir.resolve("missing")));
  }

  @Test
  void deleteIfExists_link_removesTheLinkNotItsTarget() throws IOException {
    Path target = Files.write(dir.resolve("target"), "kept".getBytes(StandardCharsets.UTF_8));
    Path link = Files.createSymbolicLink(dir.resolve("link"), target);
    assertTrue(ops.deleteIfExists(link));
    assertFalse(Files.exists(link, LinkOption.NOFOLLOW_LINKS));
    assertArrayEquals("kept".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(target));
  }

  @Test
  void deleteIfExists_emptyDirectory_deletedLikeFilesDeleteIfExists() throws IOException {
    Path d = Files.createDirectory(dir.resolve("d"));
    assertTrue(ops.deleteIfExists(d));
    assertFalse(Files.exists(d, LinkOption.NOFOLLOW_LINKS));
  }

  @Test
  void deleteIfExists_nonEmptyDirectory_failsWithTheReasonAndKeepsIt() throws IOException {
    Path d = Files.createDirectory(dir.resolve("d"));
    Files.write(d.resolve("child"), new byte[] {1});
    assertThrows(DirectoryNotEmptyException.class, () -> ops.deleteIfExists(d));
    assertTrue(Files.exists(d.resolve("child")));
  }
}
