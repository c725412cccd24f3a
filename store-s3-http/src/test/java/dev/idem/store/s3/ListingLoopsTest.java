package dev.idem.store.s3;

import static dev.idem.store.s3.testing.FakeS3Server.ok;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.HistoryQuery;
import dev.idem.store.s3.internal.client.RetryPolicy;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.testing.FakeS3Server;
import dev.idem.store.s3.testing.FakeS3Server.Request;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Every loop that pages through a listing ends when the server keeps it from moving on: a next position
 * (marker, version-id marker, continuation token) it already handed out, or a start it ignores, so the
 * listing comes back to where the loop restarted it. Each loop meets a server that does this forever
 * (up to {@value #FOREVER} listing requests, after which it ends the listing, so a loop without a guard
 * ends too and its test fails instead of hanging), and must fail with an error naming the listing after
 * a handful of requests.
 */
class ListingLoopsTest {
  /** Listing requests the server repeats itself for before it gives up and ends the listing. */
  private static final int FOREVER = 50;
  /**
   * Requests a guarded loop may make before its error: the first pages, one repeat, and the history's
   * listing requests in flight when the repeat is seen (its parallelism).
   */
  private static final int FEW = 8 + HistoryQuery.DEFAULT_LIST_PARALLELISM;
  private static final String REPEATED = "ListObjectsV2 and ListObjectVersions stop at a repeat";

  private static final String EMPTY_VERSIONS = "<ListVersionsResult><IsTruncated>false</IsTruncated></ListVersionsResult>";
  private static final String EMPTY_OBJECTS = "<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>";

  private FakeS3Server server;
  private final AtomicInteger listings = new AtomicInteger();

  @BeforeEach
  void start() throws IOException {
    server = new FakeS3Server();
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  private S3ObjectStore store(PointerMode mode) {
    S3Client client = server.clientBuilder().retry(new RetryPolicy(1, Duration.ZERO, Duration.ZERO)).build();
    return S3ObjectStore.open(client, server.location(""), S3StoreOptions.builder().pointerMode(mode).build());
  }

  /**
   * Answers listings by {@code answer} ({@code null}: 501 NotImplemented, a server without versions)
   * until {@value #FOREVER} of them, then ends every listing; requests that are no listing get a 404.
   */
  private void serve(Function<Request, String> answer) {
    server.otherwise(r -> {
      boolean listing = r.query("list-type") != null || r.query("versions") != null || r.query("uploads") != null;
      if (!listing) {
        return FakeS3Server.error(404, "NoSuchKey", "none");
      }
      String page = answer.apply(r);
      if (page == null) {
        return FakeS3Server.error(501, "NotImplemented", "no versions");
      }
      if (listings.incrementAndGet() > FOREVER) {
        return ok(r.query("versions") != null ? EMPTY_VERSIONS : EMPTY_OBJECTS);
      }
      return ok(page);
    });
  }

  private static String objects(String keys, String token) {
    StringBuilder b = new StringBuilder("<ListBucketResult><IsTruncated>").append(token != null).append("</IsTruncated>");
    if (token != null) {
      b.append("<NextContinuationToken>").append(token).append("</NextContinuationToken>");
    }
    for (String k : keys.isEmpty() ? new String[0] : keys.split(",")) {
      b.append("<Contents><Key>").append(k).append("</Key><LastModified>2024-09-10T20:27:30.000Z</LastModified>")
          .append("<ETag>&quot;e&quot;</ETag><Size>1</Size></Contents>");
    }
    return b.append("</ListBucketResult>").toString();
  }

  private static String versions(String keys, String nextKey, String nextVersion) {
    StringBuilder b = new StringBuilder("<ListVersionsResult><IsTruncated>").append(nextKey != null)
        .append("</IsTruncated>");
    if (nextKey != null) {
      b.append("<NextKeyMarker>").append(nextKey).append("</NextKeyMarker><NextVersionIdMarker>").append(nextVersion)
          .append("</NextVersionIdMarker>");
    }
    for (String k : keys.split(",")) {
      b.append("<Version><Key>").append(k).append("</Key><VersionId>v1</VersionId><IsLatest>true</IsLatest>")
          .append("<LastModified>2024-09-10T20:27:30.000Z</LastModified><ETag>&quot;e&quot;</ETag><Size>1</Size>")
          .append("</Version>");
    }
    return b.append("</ListVersionsResult>").toString();
  }

  /** A delimiter page of ListObjectVersions naming {@code directories}, truncated at {@code nextKey} when set. */
  private static String delimited(String directories, String nextKey) {
    StringBuilder b = new StringBuilder("<ListVersionsResult><IsTruncated>").append(nextKey != null)
        .append("</IsTruncated>");
    if (nextKey != null) {
      b.append("<NextKeyMarker>").append(nextKey).append("</NextKeyMarker>");
    }
    for (String d : directories.split(",")) {
      b.append("<CommonPrefixes><Prefix>").append(d).append("</Prefix></CommonPrefixes>");
    }
    return b.append("</ListVersionsResult>").toString();
  }

  /** {@code call} fails with an error that names {@code listing} and the repeat, after a few requests. */
  private IOException endsWithRepeat(Executable call, String listing) {
    IOException e = assertThrows(IOException.class, call, REPEATED);
    assertTrue(e.getMessage().startsWith(listing + ": "), e.getMessage());
    assertTrue(e.getMessage().contains(" twice "), e.getMessage());
    assertTrue(listings.get() <= FEW, listings + " listing requests before the error");
    return e;
  }

  @Test
  void history_versionListingHandsBackTheSameNextMarker_ioErrorNotALoop() {
    serve(r -> r.query("versions") == null ? EMPTY_OBJECTS
        : r.query("delimiter") != null ? EMPTY_VERSIONS : versions("a/1", "a/1", "v1"));
    try (S3ObjectStore store = store(PointerMode.CAS)) {
      endsWithRepeat(() -> store.history("", h -> true), "ListObjectVersions of s3://bkt/");
    }
  }

  @Test
  void history_evidenceListingHandsBackTheSameToken_ioErrorNotALoop() {
    serve(r -> r.query("versions") != null ? versions("a/1", null, null) : objects("", "same"));
    try (S3ObjectStore store = store(PointerMode.CAS)) {
      endsWithRepeat(() -> store.history("", h -> true), "ListObjectsV2 of s3://bkt/_idem/evidence/");
    }
  }

  @Test
  void history_serverWithoutVersionsHandsBackTheSameToken_ioErrorNotALoop() {
    serve(r -> r.query("versions") != null ? null
        : r.query("prefix") != null && r.query("prefix").startsWith("_idem/") ? EMPTY_OBJECTS : objects("a/1", "same"));
    try (S3ObjectStore store = store(PointerMode.CAS)) {
      endsWithRepeat(() -> store.history("", h -> true), "ListObjectsV2 of s3://bkt/");
    }
  }

  /**
   * Past the store's own area the walk lists the rest with a delimiter, each page from the position the
   * server handed out; a server that ignores it answers the first page again, whose next position is
   * then a repeat. (The own area runs past the first page, so the walk has to go past it.)
   */
  @Test
  void history_serverIgnoresTheStartPastIdem_ioErrorNotALoop() {
    serve(r -> r.query("versions") == null ? EMPTY_OBJECTS
        : r.query("delimiter") != null ? delimited("_idem/,a/", "_idem/")
        : versions("_idem/store", "_idem/store", "v1"));
    try (S3ObjectStore store = store(PointerMode.CAS)) {
      IOException e = endsWithRepeat(() -> store.history(HistoryQuery.under("").withListParallelism(1), h -> true),
          "ListObjectVersions of s3://bkt/");
      assertTrue(e.getMessage().contains("handed out the same continuation position twice"), e.getMessage());
    }
  }

  /**
   * A directory after the own area is listed by its prefix; a server that ignores the prefix and lists
   * the own area again would have the walk go past it again: the walk stops at the first key outside the
   * prefix it asked for.
   */
  @Test
  void history_serverIgnoresTheDirectoryPastIdem_ioErrorNotALoop() {
    serve(r -> r.query("versions") == null ? EMPTY_OBJECTS
        : r.query("delimiter") != null ? delimited("_idem/,a/", null)
        : versions("_idem/store", "_idem/store", "v1"));
    try (S3ObjectStore store = store(PointerMode.CAS)) {
      IOException e = endsWithRepeat(() -> store.history(HistoryQuery.under("").withListParallelism(1), h -> true),
          "ListObjectVersions of s3://bkt/");
      assertTrue(e.getMessage().contains("asked for the keys under 'a/', the server listed '_idem/store'"),
          e.getMessage());
    }
  }

  @Test
  void list_objectListingHandsBackTheSameToken_ioErrorNotALoop() {
    serve(r -> objects("a/1", "same"));
    try (S3ObjectStore store = store(PointerMode.CAS)) {
      endsWithRepeat(() -> store.list("a/", o -> true), "ListObjectsV2 of s3://bkt/a/");
    }
  }

  @Test
  void list_serverIgnoresTheStartPastIdem_ioErrorNotALoop() {
    serve(r -> objects("_idem/store,a/1", null));
    try (S3ObjectStore store = store(PointerMode.CAS)) {
      endsWithRepeat(() -> store.list("", o -> true), "ListObjectsV2 of s3://bkt/");
    }
  }

  @Test
  void deleteRecords_evidenceListingHandsBackTheSameToken_ioErrorNotALoop() {
    serve(r -> objects("", "same"));
    try (S3ObjectStore store = store(PointerMode.CAS)) {
      endsWithRepeat(() -> store.deleteRecords("a/1"), "ListObjectsV2 of s3://bkt/_idem/evidence/a/1!");
    }
  }

  @Test
  void readRetirement_markListingHandsBackTheSameToken_ioErrorNotALoop() {
    serve(r -> objects("", "same"));
    try (S3ObjectStore store = store(PointerMode.CAS)) {
      endsWithRepeat(() -> store.readRetirement("orders"), "ListObjectsV2 of s3://bkt/_idem/retired/orders/");
    }
  }

  @Test
  void readPointer_logListingHandsBackTheSameToken_ioErrorNotALoop() {
    serve(r -> objects("", "same"));
    try (S3ObjectStore store = store(PointerMode.LOG)) {
      endsWithRepeat(() -> store.readPointer("orders"), "ListObjectsV2 of s3://bkt/_idem/pointers/orders/log/");
    }
  }

  @Test
  void sweep_uploadListingHandsBackTheSameMarkers_ioErrorNotALoop() {
    serve(r -> "<ListMultipartUploadsResult><IsTruncated>true</IsTruncated><NextKeyMarker>k</NextKeyMarker>"
        + "<NextUploadIdMarker>u</NextUploadIdMarker></ListMultipartUploadsResult>");
    try (S3ObjectStore store = store(PointerMode.LOG)) {
      endsWithRepeat(() -> store.sweep(Duration.ZERO, true), "ListMultipartUploads of s3://bkt/");
    }
  }

  @Test
  void sweep_pointerLogListingHandsBackTheSameToken_ioErrorNotALoop() {
    serve(r -> r.query("uploads") != null
        ? "<ListMultipartUploadsResult><IsTruncated>false</IsTruncated></ListMultipartUploadsResult>"
        : objects("", "same"));
    try (S3ObjectStore store = store(PointerMode.LOG)) {
      endsWithRepeat(() -> store.sweep(Duration.ZERO, true), "ListObjectsV2 of s3://bkt/_idem/pointers/");
    }
  }
}
