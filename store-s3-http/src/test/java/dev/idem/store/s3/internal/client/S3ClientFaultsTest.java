package dev.idem.store.s3.internal.client;

import static dev.idem.store.s3.testing.FakeS3Server.error;
import static dev.idem.store.s3.testing.FakeS3Server.ok;
import static dev.idem.store.s3.testing.FakeS3Server.status;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import dev.idem.core.store.Payload;
import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsException;
import dev.idem.store.s3.CredentialsProvider;
import dev.idem.store.s3.internal.client.S3Client.Condition;
import dev.idem.store.s3.testing.FakeS3Server;
import dev.idem.store.s3.testing.FakeS3Server.CutReply;
import dev.idem.store.s3.testing.FakeS3Server.Reply;
import dev.idem.store.s3.testing.FakeS3Server.Reset;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client's retry, backoff and error handling against a scripted server that fails on cue: what is
 * retried (503 SlowDown, 500, 409 ConditionalRequestConflict, resets), what is not (4xx, 412, a changed
 * payload), and that malformed or hostile replies become one clean {@link IOException}.
 */
class S3ClientFaultsTest {
  private static final RetryPolicy FOUR = new RetryPolicy(4, Duration.ofMillis(100), Duration.ofMillis(250));
  private static final Map<String, String> ETAG = Map.of("ETag", "\"abc\"");

  private FakeS3Server server;
  private final List<Duration> sleeps = Collections.synchronizedList(new ArrayList<>());
  private S3Client client;

  @BeforeEach
  void start() throws IOException {
    server = new FakeS3Server();
    client = S3Client.builder(server.endpoint(), "us-east-1",
            CredentialsProvider.of(AwsCredentials.of("AKIDEXAMPLE", "secret-never-printed")))
        .pathStyle(true).retry(FOUR).sleeper(sleeps::add).requestTimeout(Duration.ofSeconds(10)).build();
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  private static RequestBody body(String s) {
    return RequestBody.ofBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  // --- retried

  @Test
  void put_slowDownTwice_retriedWithFullJitterBackoff() throws IOException {
    server.then(error(503, "SlowDown", "Please reduce your request rate."),
        error(503, "SlowDown", "Please reduce your request rate."), status(200, ETAG));
    WriteResult w = client.put("bkt", "k", body("x"), Condition.ifNoneMatch(), Map.of());
    assertEquals(WriteResult.Status.WRITTEN, w.status());
    assertEquals(3, w.attempts());
    assertEquals(2, sleeps.size());
    assertTrue(sleeps.get(0).compareTo(Duration.ofMillis(100)) <= 0, sleeps.toString());
    assertTrue(sleeps.get(1).compareTo(Duration.ofMillis(200)) <= 0, sleeps.toString());
  }

  @Test
  void put_signedWithPayloadHashAndCondition() throws IOException {
    server.then(status(200, ETAG));
    client.put("bkt", "a b/ü", body("payload"), Condition.ifNoneMatch(), Map.of("idem-writer", "w1"));
    FakeS3Server.Request r = server.requests().get(0);
    assertEquals("/bkt/a%20b/%C3%BC", r.target());
    assertEquals(Sha256.of("payload".getBytes(StandardCharsets.UTF_8)), r.headers().get("x-amz-content-sha256"));
    assertEquals("*", r.headers().get("if-none-match"));
    assertEquals("w1", r.headers().get("x-amz-meta-idem-writer"));
    assertTrue(r.headers().get("authorization").startsWith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"));
    assertTrue(r.headers().get("authorization").contains("if-none-match"), "the condition is signed");
  }

  @Test
  void head_serverErrorEveryTime_failsAfterMaxAttempts() {
    server.then(error(500, "InternalError", "x"), error(500, "InternalError", "x"), error(500, "InternalError", "x"),
        error(500, "InternalError", "x"));
    S3Exception e = assertThrows(S3Exception.class, () -> client.getBytes("bkt", "k", 1024));
    assertEquals(500, e.status());
    assertEquals("InternalError", e.code());
    assertEquals("REQ123", e.requestId());
    assertEquals(4, server.requests().size());
    assertEquals(3, sleeps.size());
    assertTrue(e.getMessage().startsWith("GET bkt/k failed at " + server.endpoint()), e.getMessage());
  }

  @Test
  void put_conditionalRequestConflict_retried() throws IOException {
    server.then(error(409, "ConditionalRequestConflict", "conflict"), status(200, ETAG));
    assertEquals(WriteResult.Status.WRITTEN,
        client.put("bkt", "k", body("x"), Condition.ifMatch("\"e\""), Map.of()).status());
    assertEquals(2, server.requests().size());
  }

  @Test
  void put_connectionResetThenOk_retriedAndReportsTheRetry() throws IOException {
    server.then(new Reset(), status(200, ETAG));
    WriteResult w = client.put("bkt", "k", body("x"), Condition.ifNoneMatch(), Map.of());
    assertEquals(WriteResult.Status.WRITTEN, w.status());
    assertEquals(2, w.attempts(), "callers learn an earlier attempt may have landed");
    assertEquals(1, sleeps.size());
  }

  @Test
  void getBytes_connectionResetsThenOk_retried() throws IOException {
    server.then(new Reset(), new Reset(), new Reset(), new Reply(200, ETAG, "doc".getBytes(StandardCharsets.UTF_8)));
    assertArrayEquals("doc".getBytes(StandardCharsets.UTF_8), client.getBytes("bkt", "k", 1024).orElseThrow().bytes());
  }

  @Test
  void getBytes_replyCutMidBodyEveryTime_cleanIoError() {
    for (int i = 0; i < 4; i++) {
      server.then(new CutReply(200, ETAG, "partial".getBytes(StandardCharsets.UTF_8)));
    }
    IOException e = assertThrows(IOException.class, () -> client.getBytes("bkt", "k", 1024));
    assertTrue(e.getMessage().startsWith("GET bkt/k at " + server.endpoint() + " failed"), e.getMessage());
    assertTrue(e.getMessage().contains("after 4 attempts"), e.getMessage());
  }

  @Test
  void completeMultipartUpload_errorInside200_retried() throws IOException {
    server.then(ok("<Error><Code>InternalError</Code><Message>late</Message></Error>"),
        ok("<CompleteMultipartUploadResult><ETag>\"abc-2\"</ETag></CompleteMultipartUploadResult>"));
    WriteResult w = client.completeMultipartUpload("bkt", "k", "up1", List.of("\"a\"", "\"b\""), Condition.ifNoneMatch());
    assertEquals("\"abc-2\"", w.etag());
    assertEquals(2, server.requests().size());
  }

  // --- not retried

  @Test
  void put_preconditionFailed_valueNotRetried() throws IOException {
    server.then(error(412, "PreconditionFailed", "no"));
    WriteResult w = client.put("bkt", "k", body("x"), Condition.ifNoneMatch(), Map.of());
    assertEquals(WriteResult.Status.PRECONDITION_FAILED, w.status());
    assertEquals(1, w.attempts());
    assertTrue(sleeps.isEmpty());
  }

  @Test
  void put_clientError_notRetried() {
    server.then(error(400, "InvalidArgument", "bad"));
    S3Exception e = assertThrows(S3Exception.class, () -> client.put("bkt", "k", body("x"), null, Map.of()));
    assertFalse(e.isRetryable());
    assertEquals(1, server.requests().size());
  }

  private static int crc32c(byte[] b) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(b);
    return (int) crc.getValue();
  }

  @Test
  void put_payloadChangedWhileSending_notRetried() {
    server.then(status(200, ETAG), status(200, ETAG));
    byte[] actual = "xxxxx".getBytes(StandardCharsets.UTF_8);
    byte[] hashed = "yyyyy".getBytes(StandardCharsets.UTF_8);
    RequestBody lying = RequestBody.ofStream(() -> new ByteArrayInputStream(actual), 5, Sha256.of(hashed),
        crc32c(hashed), "payload.bin");
    Payload.ChangedWhileReadingException e = assertThrows(Payload.ChangedWhileReadingException.class,
        () -> client.put("bkt", "k", lying, Condition.ifNoneMatch(), Map.of()));
    assertEquals("payload.bin changed while it was being published (sha256 " + Sha256.of(hashed) + ", then the bytes"
        + " sent had crc32c " + String.format("%08x", crc32c(actual)) + ", the bytes hashed "
        + String.format("%08x", crc32c(hashed)) + ")", e.getMessage());
    assertTrue(sleeps.isEmpty());
  }

  /**
   * A server that checks nothing (this fake answers 200 to any body) still never receives a whole body
   * that differs from the bytes hashed: the check fails before the last chunk is handed to the HTTP
   * client, so the request's body is cut short and S3 would create no object.
   */
  @Test
  void put_payloadChangesInItsLastChunk_bodyCutShortOnAServerThatChecksNothing() {
    server.then(status(200, ETAG), status(200, ETAG));
    byte[] hashed = new byte[100_000];
    new java.util.Random(3).nextBytes(hashed);
    byte[] sent = hashed.clone();
    sent[sent.length - 1] ^= 1;
    RequestBody changing = RequestBody.ofStream(() -> new ByteArrayInputStream(sent), hashed.length,
        Sha256.of(hashed), crc32c(hashed), "moving.bin");
    assertThrows(Payload.ChangedWhileReadingException.class,
        () -> client.put("bkt", "k", changing, Condition.ifNoneMatch(), Map.of()));
    assertTrue(server.requests().stream().allMatch(r -> r.received() < hashed.length),
        "no request carried the whole body: " + server.requests());
    assertTrue(sleeps.isEmpty());
  }

  @Test
  void put_payloadShorterOrLongerThanDeclared_refusedNamingTheLength() {
    byte[] hashed = "abcde".getBytes(StandardCharsets.UTF_8);
    RequestBody shorter = RequestBody.ofStream(() -> new ByteArrayInputStream(hashed, 0, 3), 5, Sha256.of(hashed),
        crc32c(hashed), "short.bin");
    Payload.ChangedWhileReadingException e = assertThrows(Payload.ChangedWhileReadingException.class,
        () -> client.put("bkt", "k", shorter, Condition.ifNoneMatch(), Map.of()));
    assertTrue(e.getMessage().endsWith("then it ended after 3 of 5 bytes)"), e.getMessage());
    RequestBody longer = RequestBody.ofStream(() -> new ByteArrayInputStream("abcdef".getBytes(StandardCharsets.UTF_8)),
        5, Sha256.of(hashed), crc32c(hashed), "long.bin");
    e = assertThrows(Payload.ChangedWhileReadingException.class,
        () -> client.put("bkt", "k", longer, Condition.ifNoneMatch(), Map.of()));
    assertTrue(e.getMessage().endsWith("then it had more than 5 bytes)"), e.getMessage());
    assertTrue(sleeps.isEmpty());
  }

  @Test
  void put_credentialsUnavailable_reportedAsIsNotRetried() {
    int[] calls = {0};
    S3Client noCreds = S3Client.builder(server.endpoint(), "us-east-1", () -> {
      calls[0]++;
      throw new CredentialsException("environment: AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not");
    }).pathStyle(true).retry(FOUR).sleeper(sleeps::add).build();
    CredentialsException e = assertThrows(CredentialsException.class,
        () -> noCreds.put("bkt", "k", body("x"), null, Map.of()));
    assertTrue(e.getMessage().startsWith("environment: "), e.getMessage());
    assertEquals(1, calls[0]);
    assertTrue(server.requests().isEmpty());
  }

  @Test
  void put_wrongRegion_messageNamesTheBucketsRegion() {
    server.then(new Reply(301, Map.of("x-amz-bucket-region", "eu-west-1"), new byte[0]));
    S3Exception e = assertThrows(S3Exception.class, () -> client.put("bkt", "k", body("x"), null, Map.of()));
    assertTrue(e.getMessage().contains("set AWS_REGION=eu-west-1"), e.getMessage());
  }

  @Test
  void head_forbiddenWithoutBody_plainMessageNoSecret() {
    server.then(status(403, Map.of()));
    S3Exception e = assertThrows(S3Exception.class, () -> client.head("bkt", "k", null));
    assertTrue(e.getMessage().startsWith("credentials rejected or access denied by " + server.endpoint()), e.getMessage());
    assertFalse(e.getMessage().contains("secret-never-printed"));
  }

  @Test
  void gatewayHtmlPage_retriedThenReportedWithStatus() {
    for (int i = 0; i < 4; i++) {
      server.then(new Reply(502, Map.of("Content-Type", "text/html"),
          "<html><body>Bad Gateway</body></html>".getBytes(StandardCharsets.UTF_8)));
    }
    S3Exception e = assertThrows(S3Exception.class, () -> client.listObjects("bkt", null, null, null, 10));
    assertEquals(502, e.status());
    assertNull(e.code());
    assertTrue(e.getMessage().contains("(HTTP 502)"), e.getMessage());
  }

  // --- malformed replies

  @Test
  void listVersions_notXml_malformedReply() {
    server.then(ok("this is not xml"));
    MalformedReplyException e = assertThrows(MalformedReplyException.class,
        () -> client.listVersions("bkt", null, null, null, 10));
    assertTrue(e.getMessage().startsWith("malformed reply to GET bkt?encoding-type=url&max-keys=10&versions at "),
        e.getMessage());
  }

  @Test
  void listVersions_entryWithoutKey_malformedReplyNotNpe() {
    server.then(ok("<ListVersionsResult><IsTruncated>false</IsTruncated><Version><VersionId>1</VersionId>"
        + "</Version></ListVersionsResult>"));
    MalformedReplyException e = assertThrows(MalformedReplyException.class,
        () -> client.listVersions("bkt", null, null, null, 10));
    assertTrue(e.getMessage().endsWith("<Version> without <Key>"), e.getMessage());
  }

  @Test
  void listVersions_connectionCutMidPage_retriedNotReportedAsMalformed() throws IOException {
    // The page is parsed as it arrives: a read failure halfway through is the connection's, and retried.
    server.then(new CutReply(200, Map.of(), "<ListVersionsResult><Version><Key>k".getBytes(StandardCharsets.UTF_8)),
        ok("<ListVersionsResult><IsTruncated>false</IsTruncated><Version><Key>k</Key><VersionId>1</VersionId>"
            + "<LastModified>2024-01-01T00:00:00Z</LastModified><ETag>\"e\"</ETag><Size>3</Size></Version>"
            + "</ListVersionsResult>"));
    VersionsPage page = client.listVersions("bkt", null, null, null, 10);
    assertEquals(1, page.versions().size());
    assertEquals("e", page.versions().get(0).etag());
  }

  @Test
  void listVersions_pageLargerThanTheBound_malformedReplyNotRetried() {
    byte[] huge = new byte[16 * 1024 * 1024 + 64];
    java.util.Arrays.fill(huge, (byte) ' ');
    byte[] open = "<ListVersionsResult>".getBytes(StandardCharsets.UTF_8);
    System.arraycopy(open, 0, huge, 0, open.length);
    server.then(new Reply(200, Map.of(), huge));
    MalformedReplyException e = assertThrows(MalformedReplyException.class,
        () -> client.listVersions("bkt", null, null, null, 10));
    assertTrue(e.getMessage().endsWith("reply larger than 16777216 bytes"), e.getMessage());
  }

  @Test
  void listVersions_unknownEntity_malformedReplyNamingThePosition() {
    server.then(ok("<ListVersionsResult>\n<Version><Key>&nbsp;</Key></Version></ListVersionsResult>"));
    MalformedReplyException e = assertThrows(MalformedReplyException.class,
        () -> client.listVersions("bkt", null, null, null, 10));
    assertTrue(e.getMessage().endsWith("not well-formed XML at line 2, byte 40: unknown entity &nbsp; "
        + "(only the five predefined ones are supported)"), e.getMessage());
  }

  @Test
  void listObjects_truncatedWithoutToken_malformedReplyNotEndlessLoop() {
    server.then(ok("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>"));
    MalformedReplyException e = assertThrows(MalformedReplyException.class,
        () -> client.listObjects("bkt", null, null, null, 10));
    assertTrue(e.getMessage().contains("truncated but has no NextContinuationToken"), e.getMessage());
  }

  @Test
  void listObjects_externalEntity_refusedNeverResolved() {
    server.then(ok("<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
        + "<ListBucketResult><Contents><Key>&x;</Key></Contents></ListBucketResult>"));
    MalformedReplyException e = assertThrows(MalformedReplyException.class,
        () -> client.listObjects("bkt", null, null, null, 10));
    assertFalse(e.getMessage().contains("root:"), e.getMessage());
  }

  @Test
  void listObjects_wrongRootElement_malformedReply() {
    server.then(ok("<ListVersionsResult/>"));
    MalformedReplyException e = assertThrows(MalformedReplyException.class,
        () -> client.listObjects("bkt", null, null, null, 10));
    assertTrue(e.getMessage().endsWith("expected <ListBucketResult>, got <ListVersionsResult>"), e.getMessage());
  }

  @Test
  void listObjects_badSizeAndTime_malformedReply() {
    server.then(ok("<ListBucketResult><Contents><Key>k</Key><LastModified>yesterday</LastModified>"
        + "<Size>1</Size></Contents></ListBucketResult>"));
    assertTrue(assertThrows(MalformedReplyException.class, () -> client.listObjects("bkt", null, null, null, 10))
        .getMessage().contains("not an ISO-8601 time: yesterday"));
    server.then(ok("<ListBucketResult><Contents><Key>k</Key><LastModified>2024-01-01T00:00:00Z</LastModified>"
        + "<Size>many</Size></Contents></ListBucketResult>"));
    assertTrue(assertThrows(MalformedReplyException.class, () -> client.listObjects("bkt", null, null, null, 10))
        .getMessage().contains("not a number: many"));
  }

  @Test
  void uploadPart_noEtagHeader_malformedReply() {
    server.then(status(200, Map.of()));
    MalformedReplyException e = assertThrows(MalformedReplyException.class,
        () -> client.uploadPart("bkt", "k", "up", 1, body("x")));
    assertTrue(e.getMessage().contains("no ETag header"), e.getMessage());
  }

  @Test
  void getBytes_replyLargerThanLimit_malformedReply() {
    server.then(new Reply(200, ETAG, new byte[5000]));
    assertThrows(MalformedReplyException.class, () -> client.getBytes("bkt", "k", 4096));
  }
}
