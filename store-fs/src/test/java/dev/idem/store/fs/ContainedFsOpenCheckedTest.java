package dev.idem.store.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ContainedFs#openChecked}: the open after a check, without a second walk, still refusing a link. */
class ContainedFsOpenCheckedTest {
  @TempDir Path dir;

  @Test
  void regularFile_read() throws IOException {
    Path root = Files.createDirectories(dir.resolve("root"));
    Path f = Files.writeString(root.resolve("f"), "bytes");
    ContainedFs fs = new ContainedFs(root, FsOps.real());
    try (InputStream in = fs.openChecked(f)) {
      assertArrayEquals("bytes".getBytes(StandardCharsets.UTF_8), in.readAllBytes());
    }
  }

  @Test
  void goneSinceTheCheck_null() throws IOException {
    Path root = Files.createDirectories(dir.resolve("root"));
    assertNull(new ContainedFs(root, FsOps.real()).openChecked(root.resolve("gone")));
  }

  @Test
  void linkPutThereSinceTheCheck_refusedNamingIt() throws IOException {
    Path root = Files.createDirectories(dir.resolve("root"));
    Path outside = Files.writeString(dir.resolve("outside"), "secret");
    Path link = Files.createSymbolicLink(root.resolve("f"), outside);

    LinkRefusedException e = assertThrows(LinkRefusedException.class,
        () -> new ContainedFs(root, FsOps.real()).openChecked(link));

    assertTrue(e.getMessage().contains(link.toString()), e.getMessage());
  }
}
