package dev.idem.store.s3.internal.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.idem.store.s3.RequestCounts;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every request sent lands in the class S3 bills it at; the per-call counts stay per call. */
class RequestCounterTest {
  private static RequestCounts one(String method, String key, Map<String, String> query) {
    RequestCounter c = new RequestCounter();
    c.sent(method, key, query);
    return c.snapshot();
  }

  private static void assertClass(String expected, RequestCounts c) {
    assertEquals(1, c.sent(), c.toString());
    assertEquals(expected.equals("A") ? 1 : 0, c.classA(), expected + " " + c);
    assertEquals(expected.equals("B") ? 1 : 0, c.classB(), expected + " " + c);
    assertEquals(expected.equals("free") ? 1 : 0, c.free(), expected + " " + c);
  }

  @Test
  void writesAndListingsAreClassA() {
    assertClass("A", one("PUT", "p/k", Map.of()));
    assertClass("A", one("POST", "p/k", Map.of("uploads", "")));
    assertClass("A", one("PUT", "p/k", Map.of("partNumber", "1", "uploadId", "u")));
    assertClass("A", one("GET", null, Map.of("list-type", "2", "prefix", "p/")));
    assertClass("A", one("GET", null, Map.of("versions", "")));
    assertClass("A", one("GET", "", Map.of("uploads", "")));
    assertClass("A", one("PUT", null, Map.of("versioning", "")));
  }

  @Test
  void readsAndBucketQuestionsAreClassB() {
    assertClass("B", one("GET", "p/k", Map.of()));
    assertClass("B", one("GET", "p/k", Map.of("versionId", "v1")));
    assertClass("B", one("HEAD", "p/k", Map.of()));
    assertClass("B", one("HEAD", null, Map.of()));
    assertClass("B", one("GET", null, Map.of("versioning", "")));
  }

  @Test
  void deletesAreFree() {
    assertClass("free", one("DELETE", "p/k", Map.of()));
    assertClass("free", one("DELETE", "p/k", Map.of("versionId", "v1")));
    assertClass("free", one("DELETE", "p/k", Map.of("uploadId", "u")));
  }

  @Test
  void since_subtractsEveryField() {
    RequestCounter c = new RequestCounter();
    c.sent("PUT", "k", Map.of());
    c.head();
    RequestCounts before = c.snapshot();
    c.sent("GET", null, Map.of("list-type", "2"));
    c.listed(7);
    c.sent("GET", "k", Map.of());
    c.get();
    c.sent("DELETE", "k", Map.of());

    assertEquals(new RequestCounts(1, 7, 0, 1, 1, 1, 1), c.snapshot().since(before));
    assertEquals(3, c.snapshot().since(before).sent());
  }
}
