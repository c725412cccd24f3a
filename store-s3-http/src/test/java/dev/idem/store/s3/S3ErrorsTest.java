package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.Payload;
import dev.idem.store.s3.internal.client.RetryPolicy;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.internal.client.S3Exception;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What users see when credentials, buckets or the server itself are wrong: one clean line, no secret. */
class S3ErrorsTest {
  private static final String WRONG_SECRET = "wrongSecretKeyThatMustNeverBePrinted0000";
  private static final String KEY = "orders/60/state-" + "0".repeat(64);
  private static S3ProxyServer s3;
  private static String bucket;

  @BeforeAll
  static void server() throws IOException {
    s3 = S3ProxyServer.shared();
    bucket = s3.createBucket(false);
  }

  private static S3ObjectStore store(String bucketName, CredentialsProvider credentials) {
    return S3ObjectStore.open(
        S3ObjectStore.clientFor(s3.location(bucketName, ""), credentials).retry(RetryPolicy.NONE).build(),
        s3.location(bucketName, ""), S3StoreOptions.defaults());
  }

  private static Payload text(String s) {
    return Payload.ofBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void putIfAbsent_wrongSecret_credentialsRejectedWithoutSecret() {
    CredentialsProvider wrong = CredentialsProvider.of(AwsCredentials.of(S3ProxyServer.ACCESS_KEY, WRONG_SECRET));
    try (S3ObjectStore store = store(bucket, wrong)) {
      S3Exception e = assertThrows(S3Exception.class, () -> store.putIfAbsent(KEY, text("x"), "host-a"));
      assertTrue(e.isCredentialsRejected());
      assertEquals("SignatureDoesNotMatch", e.code());
      assertTrue(e.getMessage().startsWith("credentials rejected by " + s3.endpoint()), e.getMessage());
      assertTrue(e.getMessage().contains("AWS_SECRET_ACCESS_KEY"), e.getMessage());
      assertFalse(e.getMessage().contains(WRONG_SECRET));
      assertFalse(e.getMessage().contains("\n"));
    }
  }

  @Test
  void exists_wrongSecret_headRejectedWithoutSecret() {
    CredentialsProvider wrong = CredentialsProvider.of(AwsCredentials.of(S3ProxyServer.ACCESS_KEY, WRONG_SECRET));
    try (S3ObjectStore store = store(bucket, wrong)) {
      S3Exception e = assertThrows(S3Exception.class, () -> store.exists(KEY));
      assertEquals(403, e.status());
      assertTrue(e.isCredentialsRejected());
      assertTrue(e.getMessage().contains("AWS_SECRET_ACCESS_KEY"), e.getMessage());
      assertFalse(e.getMessage().contains(WRONG_SECRET));
    }
  }

  @Test
  void list_unknownAccessKey_saysSo() {
    CredentialsProvider unknown = CredentialsProvider.of(AwsCredentials.of("AKIAUNKNOWN000000000", WRONG_SECRET));
    try (S3ObjectStore store = store(bucket, unknown)) {
      S3Exception e = assertThrows(S3Exception.class, () -> store.list("", o -> true));
      assertEquals("InvalidAccessKeyId", e.code());
      assertTrue(e.getMessage().contains("access key id is unknown"), e.getMessage());
      assertFalse(e.getMessage().contains(WRONG_SECRET));
    }
  }

  @Test
  void putIfAbsent_missingBucket_saysBucketDoesNotExist() {
    try (S3ObjectStore store = store("idem-no-such-bucket", s3.credentials())) {
      S3Exception e = assertThrows(S3Exception.class, () -> store.putIfAbsent(KEY, text("x"), "host-a"));
      assertTrue(e.isNoSuchBucket());
      assertTrue(e.getMessage().startsWith("bucket idem-no-such-bucket does not exist at " + s3.endpoint()),
          e.getMessage());
    }
  }

  @Test
  void checkWritable_missingBucket_saysBucketDoesNotExist() throws IOException {
    try (S3ObjectStore store = store("idem-no-such-bucket", s3.credentials())) {
      S3Exception e = assertThrows(S3Exception.class, store::checkWritable);
      assertTrue(e.isNoSuchBucket());
      assertTrue(e.getMessage().startsWith("bucket idem-no-such-bucket does not exist at " + s3.endpoint()), e.getMessage());
    }
    try (S3ObjectStore store = store(bucket, s3.credentials())) {
      store.checkWritable();
    }
  }

  @Test
  void existsAndReadPointer_missingBucket_notMistakenForMissingKey() {
    try (S3ObjectStore store = store("idem-no-such-bucket", s3.credentials())) {
      assertTrue(assertThrows(S3Exception.class, () -> store.exists(KEY)).isNoSuchBucket(),
          "a HEAD 404 carries no code; the store checks the bucket");
      assertTrue(assertThrows(S3Exception.class, () -> store.readPointer("orders")).isNoSuchBucket());
      assertTrue(assertThrows(S3Exception.class, () -> store.history("", h -> true)).isNoSuchBucket());
    }
  }

  @Test
  void putIfAbsent_serverKilledMidUpload_cleanIoError() throws Exception {
    try (S3ProxyServer doomed = S3ProxyServer.start()) {
      String b = doomed.createBucket(false);
      CountDownLatch halfSent = new CountDownLatch(1);
      CountDownLatch killed = new CountDownLatch(1);
      int size = 4 * 1024 * 1024;
      Payload stalling = new Payload() {
        @Override
        public long size() {
          return size;
        }

        @Override
        public String sha256() {
          return dev.idem.core.Sha256.of(new byte[size]);
        }

        @Override
        public InputStream open() {
          return new InputStream() {
            private long pos;

            @Override
            public int read() throws IOException {
              byte[] one = new byte[1];
              return read(one, 0, 1) == -1 ? -1 : 0;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
              if (pos >= size) {
                return -1;
              }
              if (pos >= size / 2) {
                halfSent.countDown();
                try {
                  // Wait for the kill however long it takes: going on after a timeout let the upload
                  // finish on a loaded machine (killing the child JVM took over 30 s) and the put
                  // returned CREATED. A kill that never comes fails the test by the message below.
                  if (!killed.await(10, TimeUnit.MINUTES)) {
                    throw new IOException("test payload: the server was never killed");
                  }
                } catch (InterruptedException e) {
                  throw new java.io.InterruptedIOException();
                }
              }
              int n = (int) Math.min(len, size - pos);
              java.util.Arrays.fill(b, off, off + n, (byte) 0);
              pos += n;
              return n;
            }
          };
        }
      };
      S3Client client = doomed.clientBuilder().retry(new RetryPolicy(2, Duration.ZERO, Duration.ZERO)).build();
      try (S3ObjectStore store = S3ObjectStore.open(client, doomed.location(b, ""), S3StoreOptions.defaults())) {
        Thread killer = new Thread(() -> {
          try {
            halfSent.await(10, TimeUnit.MINUTES);
            doomed.kill();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } finally {
            killed.countDown();
          }
        });
        killer.start();
        IOException e = assertThrows(IOException.class, () -> store.putIfAbsent(KEY, stalling, "host-a"));
        killer.join();
        assertTrue(e.getMessage().startsWith("PUT " + b + "/" + KEY + " at " + doomed.endpoint() + " failed"),
            e.getMessage());
        assertTrue(e.getMessage().contains("after 2 attempts"), e.getMessage());
        assertFalse(e.getMessage().contains(S3ProxyServer.SECRET_KEY));
      }
    }
  }
}
