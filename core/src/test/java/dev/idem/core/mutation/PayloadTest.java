package dev.idem.core.mutation;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.idem.core.Sha256;
import dev.idem.core.store.Payload;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Both payload kinds report the size, hash and bytes of their content, and are readable twice. */
class PayloadTest {

  private static byte[] readAll(Payload p) throws IOException {
    try (InputStream in = p.open()) {
      return in.readAllBytes();
    }
  }

  @Test
  void ofBytes_copiesItsInputAndDescribesItself() throws IOException {
    byte[] b = {1, 2, 3};
    Payload p = Payload.ofBytes(b);
    b[0] = 9;
    assertEquals(3, p.size());
    assertArrayEquals(new byte[] {1, 2, 3}, readAll(p));
    assertArrayEquals(new byte[] {1, 2, 3}, readAll(p));
    assertEquals(Sha256.of(new byte[] {1, 2, 3}), p.sha256());
    assertEquals("bytes(3)", p.toString());
  }

  @Test
  void ofFile_sizeHashAndContentOfTheFile(@TempDir Path dir) throws IOException {
    byte[] content = new byte[200_000];
    for (int i = 0; i < content.length; i++) {
      content[i] = (byte) (i * 31);
    }
    Path f = Files.write(dir.resolve("out.bin"), content);
    Payload p = Payload.ofFile(f);
    assertEquals(content.length, p.size());
    assertEquals(Sha256.of(content), p.sha256());
    assertEquals(Sha256.of(content), p.sha256(), "hashed once, then remembered");
    assertArrayEquals(content, readAll(p));
    assertEquals(f.toString(), p.toString());
  }
}
