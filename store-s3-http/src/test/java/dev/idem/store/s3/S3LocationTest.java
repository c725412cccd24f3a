package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** Store URIs and the AWS environment, as a table of named cases. */
class S3LocationTest {

  static Stream<Arguments> parsed() {
    return Stream.of(
        Arguments.of("bucket only", "s3://data", Map.of(),
            new S3Location("data", "", URI.create("https://s3.us-east-1.amazonaws.com"), "us-east-1", false)),
        Arguments.of("prefix gets one trailing slash", "s3://data/a/b//", Map.of(),
            new S3Location("data", "a/b/", URI.create("https://s3.us-east-1.amazonaws.com"), "us-east-1", false)),
        Arguments.of("AWS_REGION beats AWS_DEFAULT_REGION", "s3://data/p",
            Map.of("AWS_REGION", "eu-west-1", "AWS_DEFAULT_REGION", "us-west-2"),
            new S3Location("data", "p/", URI.create("https://s3.eu-west-1.amazonaws.com"), "eu-west-1", false)),
        Arguments.of("AWS_DEFAULT_REGION alone", "s3://data", Map.of("AWS_DEFAULT_REGION", "us-west-2"),
            new S3Location("data", "", URI.create("https://s3.us-west-2.amazonaws.com"), "us-west-2", false)),
        Arguments.of("endpoint override means path-style", "s3://data/p", Map.of("AWS_ENDPOINT_URL", "http://127.0.0.1:9000"),
            new S3Location("data", "p/", URI.create("http://127.0.0.1:9000"), "us-east-1", true)),
        Arguments.of("the S3-specific endpoint wins", "s3://data",
            Map.of("AWS_ENDPOINT_URL", "http://other:1", "AWS_ENDPOINT_URL_S3", "https://minio.local"),
            new S3Location("data", "", URI.create("https://minio.local"), "us-east-1", true)),
        Arguments.of("blank variables are unset", "s3://data", Map.of("AWS_ENDPOINT_URL", " ", "AWS_REGION", ""),
            new S3Location("data", "", URI.create("https://s3.us-east-1.amazonaws.com"), "us-east-1", false)),
        Arguments.of("query overrides region and addressing", "s3://data/p?region=ap-south-1&addressing=virtual",
            Map.of("AWS_ENDPOINT_URL", "https://ceph.local", "AWS_REGION", "eu-west-1"),
            new S3Location("data", "p/", URI.create("https://ceph.local"), "ap-south-1", false)),
        Arguments.of("path-style on AWS when asked", "s3://data?addressing=path", Map.of(),
            new S3Location("data", "", URI.create("https://s3.us-east-1.amazonaws.com"), "us-east-1", true)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void parsed(String name, String uri, Map<String, String> env, S3Location expected) {
    assertEquals(expected, S3Location.parse(uri, env));
  }

  static Stream<Arguments> rejected() {
    return Stream.of(
        Arguments.of("not s3", "file:/tmp/x", "starts with s3://"),
        Arguments.of("no bucket", "s3:///prefix", "no bucket"),
        Arguments.of("bucket with a slash-free bad char", "s3://bad$bucket", "bucket name"),
        Arguments.of("dot-dot in prefix", "s3://data/a/../b", "segments"),
        Arguments.of("empty segment in prefix", "s3://data/a//b", "segments"),
        Arguments.of("unknown parameter", "s3://data?pointer=log", "unknown parameter \"pointer\""),
        Arguments.of("bad addressing", "s3://data?addressing=dns", "addressing must be path or virtual"),
        Arguments.of("bad region", "s3://data?region=EU_WEST", "region must look like"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void rejected(String name, String uri, String message) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> S3Location.parse(uri, Map.of()));
    assertTrue(e.getMessage().contains(message), e.getMessage());
  }

  @Test
  void parse_endpointWithoutHost_rejected() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> S3Location.parse("s3://data", Map.of("AWS_ENDPOINT_URL", "localhost:9000")));
    assertTrue(e.getMessage().contains("endpoint"), e.getMessage());
  }

  @Test
  void toString_roundTripsThroughParse() {
    S3Location l = S3Location.parse("s3://data/a/b", Map.of());
    assertEquals("s3://data/a/b", l.toString());
    assertEquals(l, S3Location.parse(l.toString(), Map.of()));
    assertTrue(l.isAws());
    assertFalse(S3Location.parse("s3://data", Map.of("AWS_ENDPOINT_URL", "http://127.0.0.1:1")).isAws());
  }

  @Test
  void resolve_appendsSafeSegments() {
    S3Location l = S3Location.parse("s3://data/a", Map.of());
    assertEquals("a/b/c/", l.resolve("b/c").prefix());
    assertThrows(IllegalArgumentException.class, () -> l.resolve("../x"));
  }
}
