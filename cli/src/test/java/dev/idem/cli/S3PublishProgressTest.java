package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutStatus;
import dev.idem.core.store.WriteProgress;
import dev.idem.store.s3.S3ObjectStore;
import dev.idem.store.s3.S3StoreOptions;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code idem publish}'s progress counts as sent against a real S3 server (S3Proxy, plain http, where
 * the parts' SHA-256s are taken in a second read): the bytes of the requests, once each, never the hash
 * passes; nothing for a large payload the store already holds (looked up before a byte is sent).
 */
class S3PublishProgressTest {
  private static final int MIB = 1024 * 1024;
  static S3ProxyServer server;

  @TempDir
  Path dir;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3ProxyServer.shared();
  }

  private Path file(int size) throws Exception {
    byte[] b = new byte[size];
    new Random(size).nextBytes(b);
    return Files.write(dir.resolve("payload-" + size), b);
  }

  private void publishTwice(int size, long resent) throws Exception {
    String key = RunSpec.of("orders", new Window(1726000020, 60), 1).outputKey().toString();
    Path f = file(size);
    S3StoreOptions multipart = S3StoreOptions.builder().multipartThreshold(5 * MIB).partSize(5 * MIB).build();
    try (S3ObjectStore st = S3ObjectStore.open(server.location(server.createBucket(false), "p"), server.credentials(),
        multipart)) {
      CountingPayload first = new CountingPayload(Payload.ofFile(f));
      assertEquals(PutStatus.CREATED, st.putIfAbsent(key, first, "w").status());
      assertEquals(size, first.bytesSent(), "a first publish sends every byte once");

      CountingPayload again = new CountingPayload(Payload.ofFile(f));
      assertEquals(PutStatus.IDENTICAL, st.putIfAbsent(key, again, "w").status());
      assertEquals(resent, again.bytesSent(), "what an identical re-publish really sent");
    }
  }

  @Test
  void putIfAbsent_multipart_sentCountsEachByteOnce_identicalRepublishSendsNothing() throws Exception {
    // At least 8 MiB, the key is looked up before a byte is sent.
    publishTwice(12 * MIB, 0);
  }

  @Test
  void putIfAbsent_onePut_sentCountsEachByteOnce() throws Exception {
    // Below 8 MiB the conditional PUT itself finds the key taken: its bytes were sent, and refused.
    publishTwice(3 * MIB, 3 * MIB);
  }

  @Test
  void status_eachPhaseSaysWhatIsHappening_hashedBytesAreNeverSent() throws Exception {
    CountingPayload p = new CountingPayload(Payload.ofFile(file(3 * MIB)));
    assertEquals("0.0 of 3.0 MiB sent, 0.0 MiB/s (2s)", p.status(3 * MIB, 2000), "a store that reports no phases");
    p.progress().phase(WriteProgress.Phase.HASHING);
    p.sha256((b, off, len) -> { });
    assertEquals("hashing: 3.0 of 3.0 MiB read, nothing sent yet (4s)", p.status(3 * MIB, 4000));
    p.progress().phase(WriteProgress.Phase.SKIPPING);
    assertEquals("skipping: the key already holds an object, comparing; 0.0 of 3.0 MiB sent (5s)",
        p.status(3 * MIB, 5000));
    p.progress().phase(WriteProgress.Phase.UPLOADING);
    p.progress().sent(MIB);
    assertTrue(p.status(3 * MIB, 6000).matches("uploading: 1\\.0 of 3\\.0 MiB sent, [0-9.]+ MiB/s \\(6s\\)"),
        p.status(3 * MIB, 6000));
  }
}
