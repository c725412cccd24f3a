package dev.idem.store.s3.internal.client;

import static dev.idem.store.s3.testing.FakeS3Server.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.testing.FakeS3Server;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Servers spell the root element of a reply differently (moto answers CompleteMultipartUpload with
 * {@code <CompleteMultipartUploadResponse>} and GetBucketVersioning with {@code
 * <GetBucketVersioningResponse>}; Adobe S3Mock answers ListObjectVersions with {@code
 * <ListBucketResult>}): replies are read by the elements that carry their meaning, whatever the root is
 * named, as the SDKs read them. What is not such a reply (an {@code <Error>}, a listing page that does
 * not say whether it continues or holds more entries than it was asked for) is still refused.
 */
class S3ReplyRootsTest {
  private static final String NS = " xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"";
  private static final String VERSION = "<Version><Key>a/k</Key><VersionId>null</VersionId><IsLatest>true</IsLatest>"
      + "<LastModified>2026-12-06T04:45:00.255Z</LastModified><ETag>\"5d41\"</ETag><Size>5</Size></Version>";

  private FakeS3Server server;
  private S3Client client;

  @BeforeEach
  void start() throws IOException {
    server = new FakeS3Server();
    client = server.clientBuilder().retry(new RetryPolicy(1, Duration.ofMillis(1), Duration.ofMillis(1))).build();
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  @Test
  void completeMultipartUpload_rootSpelledAsMotoDoes_readsTheEtag() throws IOException {
    server.then(ok("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<CompleteMultipartUploadResponse" + NS
        + "><Location>http://bkt.s3.amazonaws.com/y</Location><Bucket>bkt</Bucket><Key>y</Key>"
        + "<ETag>\"62109206880d38a4010a98e11243924a-1\"</ETag></CompleteMultipartUploadResponse>"));

    WriteResult w = client.completeMultipartUpload("bkt", "y", "u", List.of("\"e\""), S3Client.Condition.ifNoneMatch());

    assertEquals(WriteResult.Status.WRITTEN, w.status());
    assertEquals("\"62109206880d38a4010a98e11243924a-1\"", w.etag());
  }

  @Test
  void bucketVersioning_rootSpelledAsMotoDoes_readsTheStatus() throws IOException {
    server.then(ok("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<GetBucketVersioningResponse" + NS + "/>"),
        ok("<GetBucketVersioningResponse" + NS + "><Status>Enabled</Status></GetBucketVersioningResponse>"));

    assertEquals(Optional.empty(), client.bucketVersioning("bkt"));
    assertEquals(Optional.of("Enabled"), client.bucketVersioning("bkt"));
  }

  @Test
  void listVersions_rootSpelledAsS3MockDoes_readsTheVersions() throws IOException {
    server.then(ok("<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult" + NS + "><EncodingType>url"
        + "</EncodingType><IsTruncated>false</IsTruncated><MaxKeys>1000</MaxKeys><Name>bkt</Name>" + VERSION
        + "</ListBucketResult>"));

    VersionsPage page = client.listVersions("bkt", null, null, null, 1000);

    assertEquals(List.of(new ObjectVersion("a/k", "null", true, false, Instant.parse("2026-12-06T04:45:00.255Z"),
        "5d41", 5)), page.versions());
  }

  /**
   * Adobe S3Mock 5.2 pages ListObjectVersions wrongly: a page holds one entry more than max-keys, and it
   * says IsTruncated false while versions remain (8 of 17 versions under a prefix, max-keys 7), so the rest
   * of the listing is never listed. A page holding more entries than asked is refused, naming both numbers:
   * a scan must not pass on part of a store.
   */
  @Test
  void listVersions_moreEntriesThanMaxKeys_refused() {
    server.then(ok("<ListBucketResult" + NS + "><IsTruncated>false</IsTruncated><MaxKeys>1</MaxKeys>" + VERSION
        + VERSION.replace("a/k", "a/l") + "</ListBucketResult>"));

    MalformedReplyException e = assertThrows(MalformedReplyException.class,
        () -> client.listVersions("bkt", "a/", null, null, 1));

    assertTrue(e.getMessage().contains("2 versions and delete markers in a page asked for at most 1 (max-keys)"), e.getMessage());
  }

  @Test
  void listObjectsAndUploads_otherRootNames_read() throws IOException {
    server.then(ok("<ListObjectsV2Response><IsTruncated>false</IsTruncated><Contents><Key>k</Key>"
            + "<LastModified>2024-09-10T20:27:30Z</LastModified><Size>1</Size></Contents></ListObjectsV2Response>"),
        ok("<ListMultipartUploadsResponse><IsTruncated>false</IsTruncated><Upload><Key>k</Key><UploadId>u</UploadId>"
            + "<Initiated>2024-09-10T20:27:30Z</Initiated></Upload></ListMultipartUploadsResponse>"),
        ok("<InitiateMultipartUploadResponse><UploadId>u2</UploadId></InitiateMultipartUploadResponse>"));

    assertEquals("k", client.listObjects("bkt", null, null, null, 10).objects().get(0).key());
    assertEquals("u", client.listMultipartUploads("bkt", null, null, null).uploads().get(0).uploadId());
    assertEquals("u2", client.createMultipartUpload("bkt", "k", java.util.Map.of()));
  }

  /** A 200 whose body is an {@code <Error>} is no reply of any operation, whatever else it holds. */
  @Test
  void replies_anErrorAsTheRoot_refusedNamingIt() {
    String error = "<Error><Code>InternalError</Code><Message>try again</Message><IsTruncated>false</IsTruncated>"
        + "<UploadId>u</UploadId><Status>Enabled</Status></Error>";
    for (int i = 0; i < 4; i++) {
      server.then(ok(error));
    }
    refused(() -> client.listVersions("bkt", null, null, null, 10), "an <Error> (InternalError: try again)");
    refused(() -> client.listObjects("bkt", null, null, null, 10), "an <Error> (InternalError: try again)");
    refused(() -> client.bucketVersioning("bkt"), "an <Error> (InternalError: try again)");
    refused(() -> client.createMultipartUpload("bkt", "k", java.util.Map.of()), "an <Error> (InternalError: try again)");
  }

  /** A listing page that does not say whether it continues could end a listing early: refused. */
  @Test
  void listings_withoutIsTruncated_refused() {
    server.then(ok("<ListVersionsResult>" + VERSION + "</ListVersionsResult>"),
        ok("<ListBucketResult><Contents><Key>k</Key><LastModified>2024-09-10T20:27:30Z</LastModified><Size>1</Size>"
            + "</Contents></ListBucketResult>"),
        ok("<ListMultipartUploadsResult></ListMultipartUploadsResult>"),
        ok("<html><body>Welcome</body></html>"));
    refused(() -> client.listVersions("bkt", null, null, null, 10), "<ListVersionsResult> without <IsTruncated>");
    refused(() -> client.listObjects("bkt", null, null, null, 10), "<ListBucketResult> without <IsTruncated>");
    refused(() -> client.listMultipartUploads("bkt", null, null, null),
        "<ListMultipartUploadsResult> without <IsTruncated>");
    refused(() -> client.listObjects("bkt", null, null, null, 10),
        "not a listing page (no <IsTruncated>): expected <ListBucketResult>, got <html>");
  }

  /**
   * A server that answered another listing than the one asked for (ListObjects to a ListObjectVersions
   * request, say, when it does not know {@code ?versions}) would read as an empty page: refused.
   */
  @Test
  void listings_holdingTheEntriesOfAnotherListing_refused() {
    server.then(ok("<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>k</Key><LastModified>"
            + "2024-09-10T20:27:30Z</LastModified><Size>1</Size></Contents></ListBucketResult>"),
        ok("<ListBucketResult><IsTruncated>false</IsTruncated>" + VERSION + "</ListBucketResult>"));
    refused(() -> client.listVersions("bkt", null, null, null, 10), "a <Contents> entry, which ListObjects pages"
        + " hold: the server answered another request than this one");
    refused(() -> client.listObjects("bkt", null, null, null, 10), "a <Version> entry, which ListObjectVersions"
        + " pages hold: the server answered another request than this one");
  }

  private static void refused(Executable call, String reason) {
    MalformedReplyException e = assertThrows(MalformedReplyException.class, call);
    assertTrue(e.getMessage().endsWith(": " + reason), e.getMessage());
  }
}
