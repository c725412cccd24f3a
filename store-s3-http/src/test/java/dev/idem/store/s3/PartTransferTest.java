package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import dev.idem.store.s3.internal.client.RequestBody;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * How multipart parts travel ({@link PartUploads#body}, as the {@link UploadPlan} says): over TLS the
 * transport authenticates the body and a part goes {@code UNSIGNED-PAYLOAD} with its CRC32C; over plain
 * http a CRC32C could be forged by whoever rewrites the part, so the part's SHA-256 is signed too: the one
 * the hash pass took when the payload reads ranges, else one taken of the bytes in the buffer.
 */
class PartTransferTest {
  private static final byte[] PART = "part bytes".getBytes(StandardCharsets.US_ASCII);
  private static final int CRC = crc32c(PART);
  private static final UploadPlan TLS = parts("https://s3.eu-west-1.amazonaws.com", true);
  private static final UploadPlan HTTP_RANGES = parts("http://minio.storage.svc:9000", true);
  private static final UploadPlan HTTP_STREAM = parts("http://minio.storage.svc:9000", false);

  private static UploadPlan parts(String endpoint, boolean readsRanges) {
    return UploadPlan.choose(2 * S3StoreOptions.DEFAULT_MULTIPART_THRESHOLD, readsRanges, URI.create(endpoint),
        ProbeAnswers.NONE, S3StoreOptions.defaults());
  }

  private static int crc32c(byte[] b) {
    CRC32C crc = new CRC32C();
    crc.update(b);
    return (int) crc.getValue();
  }

  @Test
  void body_allCarryTheCrc32cHeader_onlyPlainHttpSignsTheSha256() {
    for (UploadPlan plan : List.of(TLS, HTTP_RANGES, HTTP_STREAM)) {
      RequestBody body = PartUploads.body(plan, PART, PART.length, CRC, Sha256.of(PART));
      assertEquals(Map.of("x-amz-checksum-crc32c", "7bqbnA=="), body.headers(), plan.toString());
      assertEquals(PART.length, body.length(), plan.toString());
    }
    assertEquals("UNSIGNED-PAYLOAD", PartUploads.body(TLS, PART, PART.length, CRC, null).payloadHash());
    assertEquals(Sha256.of(PART), PartUploads.body(HTTP_STREAM, PART, PART.length, CRC, null).payloadHash());
  }

  @Test
  void body_streamPartHashedHere_onlyTheFirstNBytesOfTheBuffer() {
    byte[] buffer = "part bytes and the rest of a reused buffer".getBytes(StandardCharsets.US_ASCII);
    assertEquals(Sha256.of(PART), PartUploads.body(HTTP_STREAM, buffer, PART.length, CRC, null).payloadHash());
  }

  /** A SHA-256 from the hash pass is signed as given: the server, not this step, checks it against the bytes. */
  @Test
  void body_sha256FromTheHashPass_signedAsGiven_notRecomputed() {
    String given = Sha256.of("other bytes".getBytes(StandardCharsets.US_ASCII));
    assertEquals(given, PartUploads.body(HTTP_RANGES, PART, PART.length, CRC, given).payloadHash());
    assertEquals("UNSIGNED-PAYLOAD", PartUploads.body(TLS, PART, PART.length, CRC, given).payloadHash());
  }

  /** Records the largest read asked of it. */
  private static final class WidestRead extends InputStream {
    private final ByteArrayInputStream in;
    int widest;

    WidestRead(byte[] bytes) {
      this.in = new ByteArrayInputStream(bytes);
    }

    @Override
    public int read() {
      return in.read();
    }

    @Override
    public int read(byte[] b, int off, int len) {
      widest = Math.max(widest, len);
      return in.read(b, off, len);
    }
  }

  /**
   * A part is read in chunks, never in one read of the part's size: a read into a heap array goes
   * through a native buffer of its size that the JDK keeps per thread, which for 8 MiB parts on four
   * threads was a fifth of the process's resident set.
   */
  @Test
  void readPart_asksAtMostAChunkPerRead_andFillsThePart() throws IOException {
    byte[] content = new byte[3 * PartUploads.READ_CHUNK + 17];
    for (int i = 0; i < content.length; i++) {
      content[i] = (byte) (i * 31 + 7);
    }
    WidestRead in = new WidestRead(content);
    byte[] part = new byte[content.length];
    assertEquals(content.length, PartUploads.readPart(in, part, content.length));
    assertArrayEquals(content, part);
    assertEquals(PartUploads.READ_CHUNK, in.widest);
  }

  @Test
  void readPart_sourceEndsEarly_returnsWhatItHad() throws IOException {
    byte[] content = new byte[PartUploads.READ_CHUNK + 5];
    Arrays.fill(content, (byte) 9);
    byte[] part = new byte[2 * PartUploads.READ_CHUNK];
    assertEquals(content.length, PartUploads.readPart(new WidestRead(content), part, part.length));
    assertTrue(part[content.length] == 0 && part[content.length - 1] == 9);
  }
}
