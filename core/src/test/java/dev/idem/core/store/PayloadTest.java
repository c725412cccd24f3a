package dev.idem.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
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

  private static byte[] readRange(Payload p, long offset, long length) throws IOException {
    try (InputStream in = p.openRange(offset, length)) {
      return in.readAllBytes();
    }
  }

  private static byte[] slice(byte[] b, int from, int to) {
    return java.util.Arrays.copyOfRange(b, from, to);
  }

  /** Every payload kind hands out exactly the asked range, shorter at the end, empty past it. */
  private static void assertRanges(Payload p, byte[] content) throws IOException {
    assertArrayEquals(slice(content, 1000, 1500), readRange(p, 1000, 500));
    assertArrayEquals(slice(content, 0, 1), readRange(p, 0, 1));
    assertArrayEquals(slice(content, content.length - 10, content.length), readRange(p, content.length - 10, 500),
        "a range past the end ends with the content");
    assertArrayEquals(new byte[0], readRange(p, content.length + 5, 10), "a range after the end is empty");
    assertArrayEquals(new byte[0], readRange(p, 10, 0));
    try (InputStream in = p.openRange(3, 4)) {
      assertEquals(content[3] & 0xff, in.read(), "single-byte reads stay in the range too");
      assertEquals(3, in.skip(10), "skips stop at the range's end");
      assertEquals(0, in.available());
      assertEquals(-1, in.read());
      assertEquals(-1, in.read(new byte[4], 0, 4));
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.openRange(-1, 4));
    assertEquals("range must have offset and length >= 0, was -1+4", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> p.openRange(0, -4));
  }

  private static byte[] content() {
    byte[] content = new byte[5000];
    for (int i = 0; i < content.length; i++) {
      content[i] = (byte) (i * 7 + 1);
    }
    return content;
  }

  @Test
  void ofFile_openRange_readsTheRangeDirectly(@TempDir Path dir) throws IOException {
    byte[] content = content();
    Payload p = Payload.ofFile(Files.write(dir.resolve("f.bin"), content));
    assertEquals(true, p.readsRanges());
    assertRanges(p, content);
    try (InputStream in = p.openRange(0, 10)) {
      assertEquals(false, in.markSupported(), "a mark would let reset() re-read past the range's count");
    }
    assertThrows(java.nio.file.NoSuchFileException.class, () -> Payload.ofFile(dir.resolve("gone")).openRange(0, 1));
  }

  @Test
  void ofBytes_openRange_readsTheRangeDirectly() throws IOException {
    byte[] content = content();
    Payload p = Payload.ofBytes(content);
    assertEquals(true, p.readsRanges());
    assertRanges(p, content);
  }

  @Test
  void openRange_streamPayload_readsFromTheStartAndSkips() throws IOException {
    byte[] content = content();
    Payload bytes = Payload.ofBytes(content);
    Payload stream = new Payload() {
      @Override
      public long size() {
        return content.length;
      }

      @Override
      public String sha256() throws IOException {
        return bytes.sha256();
      }

      @Override
      public InputStream open() {
        return new java.io.ByteArrayInputStream(content);
      }
    };
    assertEquals(false, stream.readsRanges(), "a stream source says ranges are not direct");
    assertRanges(stream, content);
    assertEquals(false, stream.withSchema(1).readsRanges());
    assertEquals(true, bytes.withSchema(1).readsRanges(), "the schema wrapper forwards ranges");
    assertArrayEquals(slice(content, 7, 9), readRange(bytes.withSchema(1), 7, 2));
  }

  @Test
  void openRange_streamPayloadEndingBeforeTheOffset_emptyAndTheSourceClosed() throws IOException {
    AtomicBoolean closed = new AtomicBoolean();
    Payload stream = new Payload() {
      @Override
      public long size() {
        return 3;
      }

      @Override
      public String sha256() {
        throw new UnsupportedOperationException("not hashed here");
      }

      @Override
      public InputStream open() {
        return new java.io.ByteArrayInputStream(new byte[] {1, 2, 3}) {
          @Override
          public void close() {
            closed.set(true);
          }
        };
      }
    };

    try (InputStream in = stream.openRange(5, 2)) {
      assertEquals(-1, in.read(), "nothing past the end");
    }
    assertTrue(closed.get(), "the source is closed, not left open behind an empty range");
  }

  @Test
  void progress_byDefaultNoneAndKeptWithTheSchema() {
    WriteProgress shown = new WriteProgress() {
      @Override
      public void phase(Phase phase) {}

      @Override
      public void sent(long bytes) {}
    };
    Payload bytes = Payload.ofBytes(new byte[] {1});
    Payload reported = new Payload() {
      @Override
      public long size() throws IOException {
        return bytes.size();
      }

      @Override
      public String sha256() throws IOException {
        return bytes.sha256();
      }

      @Override
      public InputStream open() throws IOException {
        return bytes.open();
      }

      @Override
      public WriteProgress progress() {
        return shown;
      }
    };

    assertSame(WriteProgress.NONE, bytes.progress());
    assertSame(shown, reported.withSchema(2).progress(), "a store writing the payload with its schema still reports");
  }

  /** Collects what {@link Payload#sha256(Payload.Observer)} hands over, counting the calls. */
  private static final class Collected implements Payload.Observer {
    final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();

    @Override
    public void update(byte[] b, int off, int len) {
      bytes.write(b, off, len);
    }
  }

  @Test
  void sha256Observed_fileNotYetHashed_onePassHandsOverExactlyTheHashedBytes(@TempDir Path dir)
      throws IOException {
    byte[] content = content();
    Path f = Files.write(dir.resolve("once.bin"), content);
    Payload file = Payload.ofFile(f);
    Collected seen = new Collected();
    assertEquals(Sha256.of(content), file.withSchema(2).sha256(seen));
    assertArrayEquals(content, seen.bytes.toByteArray());
    assertEquals(Sha256.of(content), file.sha256(), "the hash of the observed pass is remembered");
  }

  @Test
  void sha256Observed_fileChangedSinceFirstHashed_refused(@TempDir Path dir) throws IOException {
    byte[] content = content();
    Path f = Files.write(dir.resolve("moving.bin"), content);
    Payload p = Payload.ofFile(f);
    String first = p.sha256();
    content[5] ^= 1;
    Files.write(f, content);
    Payload.ChangedWhileReadingException e =
        assertThrows(Payload.ChangedWhileReadingException.class, () -> p.sha256(new Collected()));
    assertEquals(f + " changed while it was being published (sha256 " + first + " then " + Sha256.of(content)
        + ")", e.getMessage());
    assertEquals(first, p.sha256(), "the first hash stays what the payload declares");
  }

  @Test
  void sha256Observed_bytes_handedOverWithoutHashingAgain() throws IOException {
    byte[] content = content();
    Collected seen = new Collected();
    assertEquals(Sha256.of(content), Payload.ofBytes(content).sha256(seen));
    assertArrayEquals(content, seen.bytes.toByteArray());
  }

  @Test
  void sha256Observed_streamPayload_hashesWhatItReadsAndRefusesALie() throws IOException {
    byte[] content = content();
    byte[] other = content.clone();
    other[other.length - 1] ^= 1;
    String declared = Sha256.of(content);
    byte[][] source = {content};
    Payload stream = new Payload() {
      @Override
      public long size() {
        return content.length;
      }

      @Override
      public String sha256() {
        return declared;
      }

      @Override
      public InputStream open() {
        return new java.io.ByteArrayInputStream(source[0]);
      }

      @Override
      public String toString() {
        return "pipe";
      }
    };
    Collected seen = new Collected();
    assertEquals(declared, stream.sha256(seen));
    assertArrayEquals(content, seen.bytes.toByteArray());
    source[0] = other;
    Payload.ChangedWhileReadingException e =
        assertThrows(Payload.ChangedWhileReadingException.class, () -> stream.sha256(new Collected()));
    assertEquals("pipe changed while it was being published (sha256 " + declared + " then " + Sha256.of(other)
        + ")", e.getMessage());
  }

  @Test
  void changedWhileReading_notAsHashed_namesTheDeclaredHashAndWhatDiffered() {
    assertEquals("f.bin changed while it was being published (sha256 abc, then part 2 read crc32c 1, hashed 2)",
        Payload.ChangedWhileReadingException.notAsHashed("f.bin", "abc", "part 2 read crc32c 1, hashed 2")
            .getMessage());
  }
}
