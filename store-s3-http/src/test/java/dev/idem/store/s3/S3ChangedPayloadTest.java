package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutStatus;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.testing.HeaderStrippingProxy;
import dev.idem.store.s3.testing.InterceptingHttpClient;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A payload that changes after idem hashed it is never published, now that the upload hashes it once
 * and checks the bytes it sends with CRC32C instead of a second SHA-256: a single PUT and a multipart
 * upload, the file changed after the hash pass, in the middle of the stream, or in a late part, against
 * S3Proxy directly (which also checks the signed hash and the parts' checksums) and through a gateway
 * that passes none of idem's checks on ({@link HeaderStrippingProxy}: the server then checks nothing of
 * what idem signed), where only idem's own check stands between a changed file and a visible object. A
 * single PUT is tried both ways it can travel: its SHA-256 signed as the payload hash, and in {@code
 * x-amz-checksum-sha256} with the payload unsigned.
 */
class S3ChangedPayloadTest {
  private static final int MIB = 1024 * 1024;
  private static S3ProxyServer s3;

  private String bucket;

  @BeforeAll
  static void server() throws IOException {
    s3 = S3ProxyServer.shared();
  }

  @BeforeEach
  void bucket() throws IOException {
    bucket = s3.createBucket(false);
  }

  private static String key() {
    return RunSpec.of("orders", new Window(60, 60), 1).outputKey().toString();
  }

  private static byte[] random(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** Flips one byte of {@code file} at {@code at}, in place (the file keeps its length). */
  private static void flip(Path file, long at) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      ch.read(one, at);
      one.flip();
      one.put(0, (byte) (one.get(0) ^ 1));
      ch.write(one, at);
    }
  }

  /**
   * A file payload whose hash pass sees the file as it is, and whose upload stream, once it has read
   * {@code after} bytes, flips the byte at {@code at} (further on) in the file itself.
   */
  private static Payload changingMidStream(Path file, long after, long at) {
    Payload inner = Payload.ofFile(file);
    return new Payload() {
      @Override
      public long size() throws IOException {
        return inner.size();
      }

      @Override
      public String sha256() throws IOException {
        return inner.sha256();
      }

      @Override
      public String sha256(Observer observer) throws IOException {
        return inner.sha256(observer);
      }

      @Override
      public InputStream open() throws IOException {
        return new FilterInputStream(inner.open()) {
          private long read;
          private boolean flipped;

          @Override
          public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            read += Math.max(n, 0);
            if (!flipped && read >= after) {
              flipped = true;
              flip(file, at);
            }
            return n;
          }
        };
      }

      @Override
      public String toString() {
        return inner.toString();
      }
    };
  }

  private S3ObjectStore open(S3Client.Builder client, S3StoreOptions options) {
    return S3ObjectStore.open(client.build(), s3.location(bucket, "p"), options);
  }

  private S3Client.Builder clientOf(URI endpoint) {
    return S3Client.builder(endpoint, S3ProxyServer.REGION, s3.credentials()).pathStyle(true);
  }

  /**
   * The key holds nothing and, once the server has let go of the refused request, no object or upload is
   * left anywhere. S3Proxy streams an {@code UNSIGNED-PAYLOAD} body into a temporary object beside the
   * key, listed under its own name ({@code KEY-UUID}) until it notices the request was cut and drops it,
   * which can be just after the client has returned; so the key is checked at once and the listing is
   * polled, for at most 10 s.
   */
  private boolean nothingVisible() throws IOException, InterruptedException {
    if (s3.client().head(bucket, "p/" + key(), null).isPresent()) {
      return false;
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!(s3.client().listObjects(bucket, null, null, null, 10).objects().isEmpty()
        && s3.client().listMultipartUploads(bucket, null, null, null).uploads().isEmpty())) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(10);
    }
    return true;
  }

  private static S3StoreOptions singlePut() {
    return S3StoreOptions.builder().headFirstThreshold(Long.MAX_VALUE).build();
  }

  private static S3StoreOptions multipart() {
    return S3StoreOptions.builder().multipartThreshold(5 * MIB).partSize(5 * MIB).uploadParallelism(1).build();
  }

  /** Runs {@code test} against S3Proxy itself and through a gateway that passes none of idem's checks on. */
  private interface Against {
    void run(URI endpoint) throws Exception;
  }

  private void onBoth(boolean viaGateway, Against test) throws Exception {
    if (!viaGateway) {
      test.run(s3.endpoint());
      return;
    }
    try (HeaderStrippingProxy gateway = new HeaderStrippingProxy(s3, "x-amz-checksum-crc32c")) {
      test.run(gateway.endpoint());
    }
  }

  // --- single PUT

  @ParameterizedTest(name = "via gateway: {0}, SHA-256 in x-amz-checksum-sha256: {1}")
  @CsvSource({"false,false", "true,false", "false,true", "true,true"})
  void singlePut_fileChangedAfterItWasHashed_refusedNothingVisible(boolean viaGateway, boolean checksumHeader,
      @TempDir Path dir) throws Exception {
    byte[] bytes = random(MIB, 1);
    Path file = Files.write(dir.resolve("after-hash.bin"), bytes);
    onBoth(viaGateway, endpoint -> {
      InterceptingHttpClient http = new InterceptingHttpClient(request -> {
        if ("PUT".equals(request.method())) {
          flip(file, 12_345);
        }
      });
      try (S3ObjectStore st = open(clientOf(endpoint).httpClient(http), singlePut())
          .configuredBy(new ProbeAnswers(checksumHeader, false))) {
        Payload.ChangedWhileReadingException e = assertThrows(Payload.ChangedWhileReadingException.class,
            () -> st.putIfAbsent(key(), Payload.ofFile(file), "h"));
        assertTrue(e.getMessage().contains("crc32c"), e.getMessage());
      }
      assertTrue(nothingVisible());
    });
  }

  @ParameterizedTest(name = "via gateway: {0}, SHA-256 in x-amz-checksum-sha256: {1}")
  @CsvSource({"false,false", "true,false", "false,true", "true,true"})
  void singlePut_fileChangesMidStream_refusedNothingVisible(boolean viaGateway, boolean checksumHeader,
      @TempDir Path dir) throws Exception {
    byte[] bytes = random(3 * MIB, 2);
    Path file = Files.write(dir.resolve("mid-stream.bin"), bytes);
    onBoth(viaGateway, endpoint -> {
      try (S3ObjectStore st = open(clientOf(endpoint), singlePut()).configuredBy(new ProbeAnswers(checksumHeader, false))) {
        Payload moving = changingMidStream(file, MIB, 2L * MIB + 7);
        assertThrows(Payload.ChangedWhileReadingException.class, () -> st.putIfAbsent(key(), moving, "h"));
      }
      assertTrue(nothingVisible());
    });
  }

  @Test
  void singlePut_fileUnchanged_publishedThroughTheGatewayToo(@TempDir Path dir) throws Exception {
    byte[] bytes = random(MIB + 3, 3);
    Path file = Files.write(dir.resolve("still.bin"), bytes);
    onBoth(true, endpoint -> {
      try (S3ObjectStore st = open(clientOf(endpoint), singlePut())) {
        assertEquals(PutStatus.CREATED, st.putIfAbsent(key(), Payload.ofFile(file), "h").status());
        try (InputStream in = st.open(key()).orElseThrow()) {
          assertArrayEquals(bytes, in.readAllBytes());
        }
      }
    });
  }

  // --- multipart

  @ParameterizedTest(name = "via gateway: {0}")
  @ValueSource(booleans = {false, true})
  void multipart_latePartChangedWhileEarlierPartsUpload_refusedAbortedNothingVisible(boolean viaGateway,
      @TempDir Path dir) throws Exception {
    byte[] bytes = random(13 * MIB, 4);
    Path file = Files.write(dir.resolve("late-part.bin"), bytes);
    onBoth(viaGateway, endpoint -> {
      AtomicInteger partsSent = new AtomicInteger();
      InterceptingHttpClient http = new InterceptingHttpClient(request -> {
        if (InterceptingHttpClient.isPart(request, 2)) {
          flip(file, 12L * MIB + 5); // in part 3, which is read after part 2 is on its way
        }
        if (InterceptingHttpClient.isPart(request)) {
          partsSent.incrementAndGet();
        }
      });
      try (S3ObjectStore st = open(clientOf(endpoint).httpClient(http), multipart())) {
        Payload.ChangedWhileReadingException e = assertThrows(Payload.ChangedWhileReadingException.class,
            () -> st.putIfAbsent(key(), Payload.ofFile(file), "h"));
        assertTrue(e.getMessage().contains("part 3 (bytes 10485760-13631487) read crc32c "), e.getMessage());
      }
      assertEquals(2, partsSent.get(), "part 3 was never sent");
      assertTrue(nothingVisible(), "the upload was aborted");
    });
  }

  @ParameterizedTest(name = "via gateway: {0}")
  @ValueSource(booleans = {false, true})
  void multipart_streamChangesMidPart_refusedAbortedNothingVisible(boolean viaGateway, @TempDir Path dir)
      throws Exception {
    byte[] bytes = random(11 * MIB, 5);
    Path file = Files.write(dir.resolve("stream.bin"), bytes);
    onBoth(viaGateway, endpoint -> {
      // Flipped while part 2 is read (a read may run to its part's end), in part 3, read afterwards.
      Payload moving = changingMidStream(file, 6L * MIB, 10L * MIB + 7);
      Payload streamOnly = new Payload() {
        @Override
        public long size() throws IOException {
          return moving.size();
        }

        @Override
        public String sha256() throws IOException {
          return moving.sha256();
        }

        @Override
        public String sha256(Observer observer) throws IOException {
          return moving.sha256(observer);
        }

        @Override
        public InputStream open() throws IOException {
          return moving.open();
        }
      };
      try (S3ObjectStore st = open(clientOf(endpoint), multipart())) {
        assertThrows(Payload.ChangedWhileReadingException.class, () -> st.putIfAbsent(key(), streamOnly, "h"));
      }
      assertTrue(nothingVisible(), "the upload was aborted");
    });
  }

  @ParameterizedTest(name = "via gateway: {0}")
  @ValueSource(booleans = {false, true})
  void multipart_fileGrowsAfterItWasHashed_refusedAbortedNothingVisible(boolean viaGateway, @TempDir Path dir)
      throws Exception {
    byte[] bytes = random(10 * MIB, 6);
    Path file = Files.write(dir.resolve("growing.bin"), bytes);
    onBoth(viaGateway, endpoint -> {
      InterceptingHttpClient http = new InterceptingHttpClient(request -> {
        if (InterceptingHttpClient.isPart(request, 1)) {
          Files.write(file, new byte[] {1}, StandardOpenOption.APPEND);
        }
      });
      try (S3ObjectStore st = open(clientOf(endpoint).httpClient(http), multipart())) {
        Payload.ChangedWhileReadingException e = assertThrows(Payload.ChangedWhileReadingException.class,
            () -> st.putIfAbsent(key(), Payload.ofFile(file), "h"));
        assertTrue(e.getMessage().endsWith("then it has more than the 10485760 bytes hashed)"), e.getMessage());
      }
      assertTrue(nothingVisible(), "the upload was aborted");
    });
  }

  /**
   * The file is cut short while part 1 is on its way: part 2, read in chunks from its range, ends early,
   * and the part is refused for its length before any of it is sent.
   */
  @ParameterizedTest(name = "via gateway: {0}")
  @ValueSource(booleans = {false, true})
  void multipart_fileShrinksAfterItWasHashed_refusedAbortedNothingVisible(boolean viaGateway, @TempDir Path dir)
      throws Exception {
    byte[] bytes = random(10 * MIB, 7);
    Path file = Files.write(dir.resolve("shrinking.bin"), bytes);
    onBoth(viaGateway, endpoint -> {
      Files.write(file, bytes);
      InterceptingHttpClient http = new InterceptingHttpClient(request -> {
        if (InterceptingHttpClient.isPart(request, 1)) {
          try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(7 * MIB);
          }
        }
      });
      try (S3ObjectStore st = open(clientOf(endpoint).httpClient(http), multipart())) {
        Payload.ChangedWhileReadingException e = assertThrows(Payload.ChangedWhileReadingException.class,
            () -> st.putIfAbsent(key(), Payload.ofFile(file), "h"));
        assertTrue(e.getMessage().contains("it ended after " + 7 * MIB + " of " + 10 * MIB + " bytes"),
            e.getMessage());
      }
      assertTrue(nothingVisible(), "the upload was aborted");
    });
  }

  /**
   * Part 3 is rewritten, while part 2 is on its way, to other bytes of the same CRC32C (a CRC is linear:
   * four bytes can cancel any change), so idem's own check of the part passes; the SHA-256 signed with the
   * part is the one the hash pass took, so the server refuses the part and nothing is published. A part
   * hashed only as it is sent (before the hash pass took the parts' SHA-256s) was accepted here, and the
   * object held bytes other than its recorded {@code idem-sha256}.
   */
  @Test
  void multipart_partRewrittenToTheSameCrc32c_refusedByTheServerNothingVisible(@TempDir Path dir) throws Exception {
    byte[] bytes = random(13 * MIB, 8);
    Path file = Files.write(dir.resolve("same-crc.bin"), bytes);
    int from = 10 * MIB;
    byte[] part3 = java.util.Arrays.copyOfRange(bytes, from, bytes.length);
    byte[] forged = SameCrc32c.forge(part3, 1_000, 2_000);
    assertEquals(crc32c(part3), crc32c(forged));
    InterceptingHttpClient http = new InterceptingHttpClient(request -> {
      if (InterceptingHttpClient.isPart(request, 2)) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
          ch.write(ByteBuffer.wrap(forged), from);
        }
      }
    });
    try (S3ObjectStore st = open(clientOf(s3.endpoint()).httpClient(http), multipart())) {
      IOException e = assertThrows(IOException.class, () -> st.putIfAbsent(key(), Payload.ofFile(file), "h"));
      assertTrue(e.getMessage().startsWith("part 3 of 3 (bytes 10485760-13631487) of s3://"), e.getMessage());
      assertEquals("XAmzContentSHA256Mismatch", ((dev.idem.store.s3.internal.client.S3Exception) e.getCause()).code());
    }
    assertTrue(nothingVisible(), "the upload was aborted");
  }

  private static int crc32c(byte[] b) {
    java.util.zip.CRC32C c = new java.util.zip.CRC32C();
    c.update(b);
    return (int) c.getValue();
  }

  @Test
  void multipart_unchanged_publishedThroughTheGatewayWithTheRecordedHash(@TempDir Path dir) throws Exception {
    byte[] bytes = random(11 * MIB, 7);
    Path file = Files.write(dir.resolve("still.bin"), bytes);
    onBoth(true, endpoint -> {
      try (S3ObjectStore st = open(clientOf(endpoint), multipart())) {
        assertEquals(PutStatus.CREATED, st.putIfAbsent(key(), Payload.ofFile(file), "h").status());
        assertEquals(dev.idem.core.Sha256.of(bytes), st.stat(key()).orElseThrow().sha256());
        try (InputStream in = st.open(key()).orElseThrow()) {
          assertArrayEquals(bytes, in.readAllBytes());
        }
      }
    });
  }

  @Test
  void putIfAbsent_fileShorterThanItsSizeWhenHashed_refusedBeforeAnyRequest(@TempDir Path dir) throws Exception {
    byte[] bytes = random(MIB, 8);
    Path file = Files.write(dir.resolve("shrunk.bin"), bytes);
    Payload shrinking = new Payload() {
      @Override
      public long size() {
        return bytes.length + 10L;
      }

      @Override
      public String sha256() throws IOException {
        return Payload.ofFile(file).sha256();
      }

      @Override
      public InputStream open() throws IOException {
        return Files.newInputStream(file);
      }

      @Override
      public String toString() {
        return "shrunk.bin";
      }
    };
    AtomicInteger requests = new AtomicInteger();
    InterceptingHttpClient http = new InterceptingHttpClient(request -> requests.incrementAndGet());
    try (S3ObjectStore st = open(clientOf(s3.endpoint()).httpClient(http), singlePut())) {
      Payload.ChangedWhileReadingException e = assertThrows(Payload.ChangedWhileReadingException.class,
          () -> st.putIfAbsent(key(), shrinking, "h"));
      assertTrue(e.getMessage().endsWith("then it was 1048576 bytes long when hashed, 1048586 bytes before)"),
          e.getMessage());
    }
    assertEquals(0, requests.get());
    assertTrue(nothingVisible());
  }
}
