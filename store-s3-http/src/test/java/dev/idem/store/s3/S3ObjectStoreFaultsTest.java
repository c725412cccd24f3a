package dev.idem.store.s3;

import static dev.idem.store.s3.testing.FakeS3Server.error;
import static dev.idem.store.s3.testing.FakeS3Server.ok;
import static dev.idem.store.s3.testing.FakeS3Server.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Sha256;
import dev.idem.core.Window;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Pointer;
import dev.idem.store.s3.internal.client.MalformedReplyException;
import dev.idem.store.s3.internal.client.RetryPolicy;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.testing.FakeS3Server;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Store outcomes for server behaviour S3Proxy will not produce on demand. */
class S3ObjectStoreFaultsTest {
  private FakeS3Server server;

  @BeforeEach
  void start() throws IOException {
    server = new FakeS3Server();
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  private S3ObjectStore store(PointerMode mode) {
    S3Client client = server.clientBuilder().retry(new RetryPolicy(3, Duration.ZERO, Duration.ZERO)).build();
    return S3ObjectStore.open(client, server.location(""), S3StoreOptions.builder().pointerMode(mode).build());
  }

  private static Pointer pointer() {
    String key = RunSpec.of("orders", new Window(60, 60), 1).outputKey().toString();
    return new Pointer("orders", key, 60, 60, 1, Sha256.EMPTY, 0, "host-a", Instant.EPOCH);
  }

  @Test
  void compareAndSetPointer_casModeConflictOutlivesRetries_busy() throws IOException {
    for (int i = 0; i < 3; i++) {
      server.then(error(409, "ConditionalRequestConflict", "busy"));
    }
    try (S3ObjectStore store = store(PointerMode.CAS)) {
      assertEquals(CasResult.BUSY, store.compareAndSetPointer("orders", "\"etag\"", pointer()));
    }
    assertEquals("\"etag\"", server.requests().get(0).headers().get("if-match"));
  }

  @Test
  void compareAndSetPointer_logModeConflictOutlivesRetries_busy() throws IOException {
    for (int i = 0; i < 3; i++) {
      server.then(error(409, "ConditionalRequestConflict", "busy"));
    }
    try (S3ObjectStore store = store(PointerMode.LOG)) {
      assertEquals(CasResult.BUSY, store.compareAndSetPointer("orders", "41", pointer()));
    }
    assertEquals("/bkt/_idem/pointers/orders/log/00000000000000000042", server.requests().get(0).target());
  }

  @Test
  void compareAndSetPointer_casModeReplyLostThenPreconditionFailed_swappedWhenOwnDocument() throws IOException {
    server.then(new FakeS3Server.Reset(), error(412, "PreconditionFailed", "no"),
        new FakeS3Server.Reply(200, Map.of("ETag", "\"new\""), pointer().toBytes()));
    try (S3ObjectStore store = store(PointerMode.CAS)) {
      assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", "\"old\"", pointer()));
    }
  }

  @Test
  void history_malformedListing_cleanIoError() {
    server.then(ok("<ListVersionsResult><Version><Key>k</Key>"));
    try (S3ObjectStore store = store(PointerMode.CAS)) {
      MalformedReplyException e = assertThrows(MalformedReplyException.class, () -> store.history("", h -> true));
      assertTrue(e.getMessage().contains("not well-formed XML"), e.getMessage());
    }
  }

  @Test
  void putIfAbsent_putAnswers404_cleanIoError() {
    server.then(error(404, "NoSuchKey", "odd"), status(200, Map.of()));
    try (S3ObjectStore store = store(PointerMode.CAS)) {
      IOException e = assertThrows(IOException.class, () -> store.putIfAbsent("legacy/x",
          dev.idem.core.store.Payload.ofBytes(new byte[] {1}), "host-a"));
      assertTrue(e.getMessage().contains("If-None-Match answered 404"), e.getMessage());
    }
  }

  private static final String NO_MARK = "<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>";

  /** The pipeline's retirement mark covering windows up to 60: one listed object, and its document. */
  private void scriptMarkCoveringWindow60() {
    String markKey = "_idem/retired/orders/" + "0".repeat(18) + "60";
    server.then(ok("<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>" + markKey
        + "</Key><LastModified>2024-09-10T20:27:30.000Z</LastModified><Size>90</Size></Contents></ListBucketResult>"),
        new FakeS3Server.Reply(200, Map.of(), new dev.idem.core.store.Retirement("orders", 60, Instant.EPOCH, "idem test")
            .toBytes()));
  }

  @Test
  void putIfAbsent_foreignObjectGoneAfterRefusal_ioErrorNoSecondCreate() throws IOException {
    // create-only PUT refused; the HEAD finds an object idem did not write; the GET to hash it finds it gone;
    // the pipeline has no retirement mark
    server.then(status(412, Map.of()), status(200, Map.of("ETag", "\"x\"")), error(404, "NoSuchKey", "gone"), ok(NO_MARK));
    String key = RunSpec.of("orders", new Window(60, 60), 1).outputKey().toString();
    try (S3ObjectStore store = store(PointerMode.CAS)) {
      IOException e = assertThrows(IOException.class,
          () -> store.putIfAbsent(key, dev.idem.core.store.Payload.ofBytes(new byte[] {1}), "host-a"));
      assertTrue(e.getMessage().startsWith("publish of " + key + " to s3://bkt"), e.getMessage());
      assertTrue(e.getMessage().contains("refused this publish's create-only write"), e.getMessage());
      assertTrue(e.getMessage().contains("no retirement mark covers its window"), e.getMessage());
    }
    assertEquals(4, server.requests().size(), "PUT, HEAD, GET, the mark's listing and no second PUT");
    assertTrue(server.requests().get(3).target().contains("prefix=_idem%2Fretired%2Forders%2F"),
        server.requests().get(3).target());
  }

  @Test
  void putIfAbsent_foreignObjectGoneEveryTimeInRetiredWindow_ioErrorAfterThreeRounds() throws IOException {
    for (int round = 0; round < 3; round++) {
      server.then(status(412, Map.of()), status(200, Map.of("ETag", "\"x\"")), error(404, "NoSuchKey", "gone"));
      scriptMarkCoveringWindow60();
    }
    String key = RunSpec.of("orders", new Window(60, 60), 1).outputKey().toString();
    try (S3ObjectStore store = store(PointerMode.CAS)) {
      IOException e = assertThrows(IOException.class,
          () -> store.putIfAbsent(key, dev.idem.core.store.Payload.ofBytes(new byte[] {1}), "host-a"));
      assertTrue(e.getMessage().startsWith("publish of " + key + " to s3://bkt"), e.getMessage());
      assertTrue(e.getMessage().contains("met an object that was gone when read 3 times in a row"), e.getMessage());
    }
    assertEquals(15, server.requests().size(), "three rounds of PUT, HEAD, GET, the mark's LIST and GET, no fourth");
  }

  /** A completion that created version v2, the steps before it scripted: create, two parts, complete. */
  private void scriptMultipartCreatingV2() {
    server.then(ok("<InitiateMultipartUploadResult><UploadId>u1</UploadId></InitiateMultipartUploadResult>"),
        status(200, Map.of("ETag", "\"p1\"")), status(200, Map.of("ETag", "\"p2\"")),
        new FakeS3Server.Reply(200, Map.of("Content-Type", "application/xml", "x-amz-version-id", "v2"),
            "<CompleteMultipartUploadResult><ETag>\"e-2\"</ETag></CompleteMultipartUploadResult>".getBytes(
                java.nio.charset.StandardCharsets.UTF_8)));
  }

  private static String versions(String key, String entries) {
    return "<ListVersionsResult><IsTruncated>false</IsTruncated>" + entries.replace("KEY", key) + "</ListVersionsResult>";
  }

  private static final String OURS = "<Version><Key>KEY</Key><VersionId>v2</VersionId><IsLatest>true</IsLatest>"
      + "<LastModified>2024-09-10T20:27:30.000Z</LastModified><ETag>\"e-2\"</ETag><Size>6</Size></Version>";
  /** What S3Proxy lists for a write to the key still in flight: no ETag. */
  private static final String IN_FLIGHT = "<Version><Key>KEY</Key><VersionId>null</VersionId><IsLatest>false</IsLatest>"
      + "<LastModified>2024-09-10T20:27:30.000Z</LastModified><Size>6</Size></Version>";

  private S3ObjectStore multipartStore() {
    S3Client client = server.clientBuilder().retry(new RetryPolicy(1, Duration.ZERO, Duration.ZERO)).build();
    return S3ObjectStore.open(client, server.location(""), S3StoreOptions.builder().multipartThreshold(5 << 20)
        .partSize(5 << 20).build());
  }

  @Test
  void putIfAbsent_versionListingCaughtAWriteInFlight_listedAgainCreated() throws IOException {
    String key = RunSpec.of("orders", new Window(60, 60), 1).outputKey().toString();
    scriptMultipartCreatingV2();
    server.then(ok(versions(key, OURS + IN_FLIGHT)), ok(versions(key, OURS)));
    try (S3ObjectStore store = multipartStore()) {
      assertEquals(dev.idem.core.store.PutStatus.CREATED,
          store.putIfAbsent(key, dev.idem.core.store.Payload.ofBytes(new byte[6 << 20]), "host-a").status());
    }
    assertEquals(6, server.requests().size(), "create, two parts, complete, two listings");
  }

  @Test
  void putIfAbsent_versionListingMalformedEveryTime_ioErrorAfterThreeListings() throws IOException {
    String key = RunSpec.of("orders", new Window(60, 60), 1).outputKey().toString();
    scriptMultipartCreatingV2();
    for (int i = 0; i < KeyLife.ATTEMPTS; i++) {
      server.then(ok(versions(key, OURS + IN_FLIGHT)));
    }
    try (S3ObjectStore store = multipartStore()) {
      IOException e = assertThrows(MalformedReplyException.class,
          () -> store.putIfAbsent(key, dev.idem.core.store.Payload.ofBytes(new byte[6 << 20]), "host-a"));
      assertTrue(e.getMessage().contains("without <ETag>"), e.getMessage());
    }
    assertEquals(4 + KeyLife.ATTEMPTS, server.requests().size());
  }

  @Test
  void sweep_incompleteUploadsOfOtherApplications_onlyIdemsAborted() throws IOException {
    String idemKey = RunSpec.of("orders", new Window(60, 60), 1).outputKey().toString();
    String evidence = "_idem/evidence/" + idemKey + "!" + Sha256.EMPTY;
    StringBuilder page = new StringBuilder("<ListMultipartUploadsResult><IsTruncated>false</IsTruncated>");
    for (String key : java.util.List.of("backups/db.tar", idemKey, "orders/60/state-not-a-digest", evidence,
        "_idemx/other")) {
      page.append("<Upload><Key>").append(key).append("</Key><UploadId>up-").append(key.length())
          .append("</UploadId><Initiated>2024-09-10T20:27:30.000Z</Initiated></Upload>");
    }
    server.then(ok(page.append("</ListMultipartUploadsResult>").toString()));
    server.otherwise(r -> r.method().equals("DELETE") ? status(204, Map.of())
        : ok("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>"));

    try (S3ObjectStore store = store(PointerMode.CAS)) {
      java.util.List<String> lines = store.sweep(Duration.ZERO, false);
      assertEquals(2, lines.size(), lines.toString());
    }
    java.util.List<String> aborted = server.requests().stream().filter(r -> r.method().equals("DELETE"))
        .map(FakeS3Server.Request::path).toList();
    assertEquals(java.util.List.of("/bkt/" + idemKey, "/bkt/" + evidence.replace("!", "%21")), aborted,
        "another application's uploads in the same bucket are left alone");
  }

  /** The store is closed (its threads stopped) once the multipart upload has begun, before any part is sent. */
  @Test
  void putIfAbsent_storeClosedDuringAMultipartPublish_ioErrorNotAWaitForever() throws IOException {
    server.then(ok("<InitiateMultipartUploadResult><Bucket>bkt</Bucket><Key>k</Key><UploadId>up1</UploadId>"
        + "</InitiateMultipartUploadResult>"), status(204, Map.of()));
    java.util.concurrent.atomic.AtomicReference<S3ObjectStore> opened = new java.util.concurrent.atomic.AtomicReference<>();
    dev.idem.store.s3.testing.InterceptingHttpClient http = new dev.idem.store.s3.testing.InterceptingHttpClient(r -> {
      if (r.method().equals("POST") && r.uri().getRawQuery().startsWith("uploads")) {
        opened.get().close();
      }
    });
    S3Client client = server.clientBuilder().httpClient(http).retry(new RetryPolicy(1, Duration.ZERO, Duration.ZERO))
        .build();
    long part = S3StoreOptions.MIN_PART_SIZE;
    String key = RunSpec.of("orders", new Window(60, 60), 1).outputKey().toString();
    try (S3ObjectStore store = S3ObjectStore.open(client, server.location(""),
        S3StoreOptions.builder().multipartThreshold(part).partSize(part).build())) {
      opened.set(store);
      IOException e = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(60),
          () -> assertThrows(IOException.class,
              () -> store.putIfAbsent(key, dev.idem.core.store.Payload.ofBytes(new byte[(int) part + 1]), "host-a")));
      assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }
    assertEquals(java.util.List.of("POST", "DELETE"), server.requests().stream().map(FakeS3Server.Request::method)
        .toList(), "no part sent, the upload aborted");
  }
}
