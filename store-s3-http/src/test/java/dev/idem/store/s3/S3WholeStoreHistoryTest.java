package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.HistoryQuery;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.store.s3.internal.client.KeyOrder;
import dev.idem.store.s3.internal.client.ObjectVersion;
import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.testing.HeaderStrippingProxy;
import dev.idem.store.s3.testing.OnEachS3Server;
import dev.idem.store.s3.testing.S3Implementation;
import dev.idem.store.s3.testing.S3TestServer;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;

/**
 * The history of a whole store (no prefix), whose own {@code _idem/} area lies among the keys, read
 * with nothing but what every S3 implementation honours: prefixes, a delimiter, and the positions the
 * server hands out. S3 lets a key-marker be any string, but moto drops the first version after a
 * key-marker that is not a key and LocalS3 refuses one with 404, so passing the own area may not use a
 * marker of idem's own making.
 */
@OnEachS3Server
class S3WholeStoreHistoryTest {
  private static final int MAX_PAGE = 7;

  @Parameter
  S3Implementation implementation;

  private S3TestServer s3;

  @BeforeEach
  void server() throws IOException {
    s3 = implementation.shared();
  }

  private static String key(long windowStart) {
    return RunSpec.of("orders", new Window(windowStart, 60), 1).outputKey().toString();
  }

  private static Payload text(String s) {
    return Payload.ofBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The whole store read with one sequential listing, in pages of 1 to 7 entries, from the server itself
   * and through a gateway that refuses (404 NoSuchKey, as LocalS3 does) a key-marker naming no key: the
   * store's own area, here longer than a page (pointer log entries and their {@code latest} copies,
   * evidence), lies between a key and a directory that sort before it and a key and directories after
   * it. Every version of every key outside it is listed, as one listing of the whole bucket shows.
   */
  @Test
  void history_wholeStoreDirectAndThroughAGatewayRefusingMarkersThatAreNotKeys_everyVersionOutsideTheOwnArea()
      throws IOException {
    String own = populated();
    Map<String, List<String>> expected = oneListing(own);
    try (HeaderStrippingProxy strict = HeaderStrippingProxy.refusingMarkersThatAreNotKeys(s3)) {
      for (URI endpoint : List.of(s3.endpoint(), strict.endpoint())) {
        for (int pageSize = 1; pageSize <= MAX_PAGE; pageSize++) {
          String what = (endpoint.equals(s3.endpoint()) ? "direct" : "through the gateway") + ", page size " + pageSize;
          assertEquals(expected, versionsOutsideTheOwnArea(own, endpoint, pageSize, 1), what);
          assertEquals(List.of(), strict.keyMarkersRefused(), what);
        }
      }
      assertTrue(strict.keyMarkersPassed() > 0, "the listings went on from markers the gateway checked");
    }
  }

  /**
   * The same store cut into ranges listed at once (the plan's directories and windows), from the server
   * itself: the same versions as one listing.
   */
  @Test
  void history_wholeStoreCutIntoRanges_everyVersionOutsideTheOwnArea() throws IOException {
    String own = populated();
    Map<String, List<String>> expected = oneListing(own);
    for (int pageSize = 1; pageSize <= MAX_PAGE; pageSize++) {
      assertEquals(expected, versionsOutsideTheOwnArea(own, s3.endpoint(), pageSize, 16), "page size " + pageSize);
    }
  }

  /**
   * A versioned bucket whose store under {@code p/} has keys before and after its own area (a key and a
   * directory sorting before {@code _idem/}, idem keys, a key overwritten in place and a directory
   * after it), and an own area longer than a page (pointer log entries, their {@code latest} copies,
   * evidence).
   */
  private String populated() throws IOException {
    String own = s3.createBucket(true);
    for (String key : List.of("p/0early.json", "p/A/x", "p/zz.json", "p/zz/y", "p/zz.json")) {
      s3.client().put(own, key, RequestBody.ofBytes(key.getBytes(StandardCharsets.UTF_8)), null, Map.of());
    }
    try (S3ObjectStore store = S3ObjectStore.open(s3.location(own, "p"), s3.credentials(),
        S3StoreOptions.builder().pointerMode(PointerMode.LOG).build())) {
      PointerAdvancer adv = new PointerAdvancer(store);
      for (int i = 0; i < 4; i++) {
        store.putIfAbsent(key(60L * i), text("gen " + i), "host-a");
        adv.advance(Pointer.to(store.stat(key(60L * i)).orElseThrow(), 60, 1, "host-a", Instant.EPOCH));
      }
      store.putIfAbsent(key(0), text("other"), "host-b");
    }
    assertTrue(s3.client().listVersions(own, "p/_idem/", null, null, 1000).versions().size() > MAX_PAGE,
        "the own area spans pages");
    return own;
  }

  /** The oracle: each key's version ids outside the own area, oldest first, from one page of the bucket. */
  private Map<String, List<String>> oneListing(String bucket) throws IOException {
    Map<String, List<String>> expected = new TreeMap<>(KeyOrder::compare);
    for (ObjectVersion v : s3.client().listVersions(bucket, "p/", null, null, 1000).versions()) {
      if (!v.key().startsWith("p/_idem/")) {
        expected.computeIfAbsent(v.key().substring(2), k -> new ArrayList<>()).add(0, v.versionId());
      }
    }
    return expected;
  }

  /** Each key's version ids, oldest first, as the history of the whole store lists them. */
  private Map<String, List<String>> versionsOutsideTheOwnArea(String bucket, URI endpoint, int pageSize,
      int parallelism) throws IOException {
    Map<String, List<String>> listed = new TreeMap<>(KeyOrder::compare);
    try (S3ObjectStore store = S3ObjectStore.open(s3.location(bucket, "p").withEndpoint(endpoint, true),
        s3.credentials(), S3StoreOptions.builder().pageSize(pageSize).build())) {
      assertTrue(store.history(HistoryQuery.under("").withListParallelism(parallelism), h -> listed.put(h.key(),
          h.entries().stream().filter(e -> e.kind() != HistoryEntry.Kind.DIVERGENT_ATTEMPT)
              .map(HistoryEntry::versionId).toList()) == null));
    }
    return listed;
  }
}
