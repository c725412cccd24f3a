package dev.idem.core.mutation;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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

  @Test
  void withSchema_sameBytesAndNameCarryingTheSchema() throws IOException {
    Payload plain = Payload.ofBytes(new byte[] {1, 2, 3});
    Payload p = plain.withSchema(7);
    assertEquals(null, plain.schema(), "a payload says no schema until given one");
    assertEquals(Integer.valueOf(7), p.schema());
    assertEquals(3, p.size());
    assertEquals(plain.sha256(), p.sha256());
    assertArrayEquals(new byte[] {1, 2, 3}, readAll(p));
    assertEquals("bytes(3)", p.toString(), "errors keep naming the source");
    assertEquals(Integer.valueOf(0), plain.withSchema(0).schema());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> plain.withSchema(-1));
    assertEquals("schema version must be >= 0, was -1", e.getMessage());
  }
}
