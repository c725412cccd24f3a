package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutStatus;
import dev.idem.store.s3.testing.QuirkProxy;
import dev.idem.store.s3.testing.QuirkProxy.Quirk;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store against S3Proxy answering with the reply roots other servers use: moto's {@code
 * <CompleteMultipartUploadResponse>} and {@code <GetBucketVersioningResponse>}, Adobe S3Mock's {@code
 * <ListBucketResult>} for ListObjectVersions. A publish over the multipart threshold, doctor's view of
 * versioning and the scan's history work as on S3.
 */
class S3ReplySpellingsTest {
  private static final long MIB = 1024 * 1024;
  private static final String KEY = RunSpec.of("orders", new Window(1_726_000_000L, 60), 1).outputKey().toString();
  private static S3ProxyServer s3;

  @BeforeAll
  static void server() throws IOException {
    s3 = S3ProxyServer.shared();
  }

  private static S3ObjectStore store(URI endpoint, String bucket, S3StoreOptions options) {
    return S3ObjectStore.open(s3.location(bucket, "p").withEndpoint(endpoint, true), s3.credentials(), options);
  }

  @Test
  void putIfAbsent_multipartCompletionAnsweredAsMotoDoes_created() throws Exception {
    String bucket = s3.createBucket(false);
    try (QuirkProxy moto = new QuirkProxy(s3,
        Quirk.renamesRoot("CompleteMultipartUploadResult", "CompleteMultipartUploadResponse"));
        S3ObjectStore store = store(moto.endpoint(), bucket,
            S3StoreOptions.builder().multipartThreshold(5 * MIB).partSize(5 * MIB).build())) {

      byte[] payload = new byte[(int) (6 * MIB)];
      payload[1] = 1;
      assertEquals(PutStatus.CREATED, store.putIfAbsent(KEY, Payload.ofBytes(payload), "w").status());
      assertEquals(PutStatus.IDENTICAL, store.putIfAbsent(KEY, Payload.ofBytes(payload), "w").status());
    }
  }

  @Test
  void environment_versioningAnsweredAsMotoDoes_read() throws Exception {
    String versioned = s3.createBucket(true);
    String plain = s3.createBucket(false);
    try (QuirkProxy moto = new QuirkProxy(s3, Quirk.renamesRoot("VersioningConfiguration",
        "GetBucketVersioningResponse"))) {
      assertEquals("Enabled", S3StoreProver.of(store(moto.endpoint(), versioned, S3StoreOptions.defaults()))
          .environment().get("versioning"));
      assertTrue(S3StoreProver.of(store(moto.endpoint(), plain, S3StoreOptions.defaults())).environment()
          .get("versioning").startsWith("never enabled"));
    }
  }

  @Test
  void history_versionsListedAsS3MockDoes_read() throws Exception {
    String bucket = s3.createBucket(true);
    try (QuirkProxy s3mock = new QuirkProxy(s3, Quirk.renamesRoot("ListVersionsResult", "ListBucketResult"));
        S3ObjectStore store = store(s3mock.endpoint(), bucket, S3StoreOptions.defaults())) {
      store.putIfAbsent(KEY, Payload.ofBytes(new byte[] {1}), "a");
      store.putIfAbsent(KEY, Payload.ofBytes(new byte[] {2}), "b");

      List<KeyHistory> seen = new ArrayList<>();
      assertTrue(store.history("", h -> seen.add(h)));

      assertEquals(List.of(KEY), seen.stream().map(KeyHistory::key).toList());
      assertEquals(2, seen.get(0).entries().size(), seen.toString());
    }
  }
}
