package dev.idem.store.s3.internal.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsProvider;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Request URIs: path-style and virtual-hosted addressing, encoding, and the retry schedule. */
class S3ClientAddressingTest {
  private static final CredentialsProvider CREDS = CredentialsProvider.of(AwsCredentials.of("AKID", "secret"));

  private static S3Client client(String endpoint, boolean pathStyle) {
    return S3Client.builder(URI.create(endpoint), "eu-west-1", CREDS).pathStyle(pathStyle).build();
  }

  @Test
  void uri_pathStyle_bucketInPathKeyEncodedOnce() {
    URI u = client("http://127.0.0.1:9000", true).uri("bkt", "a b/c+d/ü~", new TreeMap<>());
    assertEquals("http://127.0.0.1:9000/bkt/a%20b/c%2Bd/%C3%BC~", u.toString());
  }

  @Test
  void uri_virtualHosted_bucketInHost() {
    URI u = client("https://s3.eu-west-1.amazonaws.com", false).uri("bkt", "k/1", new TreeMap<>());
    assertEquals("https://bkt.s3.eu-west-1.amazonaws.com/k/1", u.toString());
  }

  @Test
  void uri_virtualHostedBucketWithDotsOverTls_fallsBackToPathStyle() {
    URI u = client("https://s3.eu-west-1.amazonaws.com", false).uri("my.bucket", "k", new TreeMap<>());
    assertEquals("https://s3.eu-west-1.amazonaws.com/my.bucket/k", u.toString());
  }

  @Test
  void uri_endpointWithBasePath_kept() {
    URI u = client("http://gw.local/s3/", true).uri("bkt", null, new TreeMap<>(Map.of("list-type", "2")));
    assertEquals("http://gw.local/s3/bkt?list-type=2", u.toString());
  }

  @Test
  void uri_query_sortedAndEncoded() {
    TreeMap<String, String> q = new TreeMap<>(Map.of("versions", "", "prefix", "a b/", "key-marker", "x+y"));
    URI u = client("http://h:1", true).uri("bkt", null, q);
    assertEquals("http://h:1/bkt?key-marker=x%2By&prefix=a%20b%2F&versions=", u.toString());
  }

  @Test
  void builder_badEndpoint_rejected() {
    assertThrows(IllegalArgumentException.class, () -> client("ftp://h", true));
    assertThrows(IllegalArgumentException.class, () -> client("http://h:1/?x=1", true));
    assertThrows(IllegalArgumentException.class, () -> client("http://user:pw@h:1", true));
  }

  @Test
  void retryPolicy_ceilingsDoubleUpToCapAndDelaysStayBelow() {
    RetryPolicy p = new RetryPolicy(10, Duration.ofMillis(50), Duration.ofMillis(300));
    assertEquals(Duration.ofMillis(50), p.ceilingBefore(2));
    assertEquals(Duration.ofMillis(100), p.ceilingBefore(3));
    assertEquals(Duration.ofMillis(200), p.ceilingBefore(4));
    assertEquals(Duration.ofMillis(300), p.ceilingBefore(5));
    assertEquals(Duration.ofMillis(300), p.ceilingBefore(60));
    for (int attempt = 2; attempt < 10; attempt++) {
      Duration d = p.delayBefore(attempt);
      assertTrue(!d.isNegative() && d.compareTo(p.ceilingBefore(attempt)) <= 0, d.toString());
    }
    assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(0, Duration.ZERO, Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(2, Duration.ofSeconds(2), Duration.ofSeconds(1)));
  }

  @Test
  void s3Exception_serverMessage_oneBoundedLine() {
    S3Exception e = new S3Exception(500, "InternalError", "line one\nline two" + "x".repeat(1000), "R1", "GET",
        URI.create("http://h:1"), "bkt/k");
    assertTrue(!e.getMessage().contains("\n"), e.getMessage());
    assertTrue(e.getMessage().length() < 600, e.getMessage());
    assertTrue(e.isRetryable());
  }
}
