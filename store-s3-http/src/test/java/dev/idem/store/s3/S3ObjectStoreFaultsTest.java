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
import dev.idem.store.s3.client.MalformedReplyException;
import dev.idem.store.s3.client.RetryPolicy;
import dev.idem.store.s3.client.S3Client;
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

  @Test
  void putIfAbsent_foreignObjectGoneEveryTimeItIsRead_ioErrorAfterThreeRounds() throws IOException {
    for (int round = 0; round < 3; round++) {
      // create-only PUT refused; the HEAD finds an object idem did not write; the GET to hash it finds it gone
      server.then(status(412, Map.of()), status(200, Map.of("ETag", "\"x\"")), error(404, "NoSuchKey", "gone"));
    }
    String key = RunSpec.of("orders", new Window(60, 60), 1).outputKey().toString();
    try (S3ObjectStore store = store(PointerMode.CAS)) {
      IOException e = assertThrows(IOException.class,
          () -> store.putIfAbsent(key, dev.idem.core.store.Payload.ofBytes(new byte[] {1}), "host-a"));
      assertTrue(e.getMessage().startsWith("publish of " + key + " to s3://bkt"), e.getMessage());
      assertTrue(e.getMessage().contains("met an object that was gone when read 3 times in a row"), e.getMessage());
    }
    assertEquals(9, server.requests().size(), "three rounds of PUT, HEAD, GET and no fourth");
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
