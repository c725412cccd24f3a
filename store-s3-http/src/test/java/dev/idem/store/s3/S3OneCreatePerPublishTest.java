package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Sha256;
import dev.idem.core.Window;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.PutStatus;
import dev.idem.core.testing.Race;
import dev.idem.core.store.Retirement;
import dev.idem.store.s3.internal.client.ObjectVersion;
import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.testing.HeaderStrippingProxy;
import dev.idem.store.s3.testing.InterceptingHttpClient;
import dev.idem.store.s3.testing.QuirkProxy;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * P7, one create per publish: a create-only write the server refused is never followed by another create
 * at that key in the same publish unless the retirement mark proves the key was retired, whatever the
 * server does next. Played on S3Proxy with the behaviours of two other servers: Adobe S3Mock, whose
 * AbortMultipartUpload deletes the object already at the key (here: every version of the key deleted as
 * the refused upload is aborted), and moto, which applies concurrent {@code If-None-Match} completions
 * and keeps each as a version (here: a gateway that drops {@code If-None-Match} from completions, so the
 * second completion always lands). The cost side: the version check after a multipart completion is
 * one listing on a versioned bucket, none on an unversioned one, and none after a single PUT unless the
 * store's marker records that the server let racing creates succeed.
 */
class S3OneCreatePerPublishTest {
  private static final int MIB = 1024 * 1024;
  private static final String PIPELINE = "orders";
  private static S3ProxyServer s3;

  @BeforeAll
  static void server() throws IOException {
    s3 = S3ProxyServer.shared();
  }

  private static String key(long windowStart) {
    return RunSpec.of(PIPELINE, new Window(windowStart, 60), 1).outputKey().toString();
  }

  private static byte[] random(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static S3StoreOptions multipart() {
    return S3StoreOptions.builder().multipartThreshold(5 * MIB).partSize(5 * MIB).build();
  }

  private static S3ObjectStore open(String bucket, URI endpoint, InterceptingHttpClient http, S3StoreOptions options) {
    S3Client.Builder client = S3Client.builder(endpoint, S3ProxyServer.REGION, s3.credentials()).pathStyle(true);
    if (http != null) {
      client.httpClient(http);
    }
    return S3ObjectStore.open(client.build(), s3.location(bucket, "p"), options);
  }

  private static boolean isCompletion(HttpRequest r) {
    String q = r.uri().getRawQuery();
    return r.method().equals("POST") && q != null && q.startsWith("uploadId=");
  }

  private static boolean isAbort(HttpRequest r) {
    String q = r.uri().getRawQuery();
    return r.method().equals("DELETE") && q != null && q.startsWith("uploadId=");
  }

  private static boolean isPut(HttpRequest r, String objectKey) {
    return r.method().equals("PUT") && r.uri().getRawQuery() == null && r.uri().getPath().endsWith("/" + objectKey);
  }

  private static boolean isVersionListing(HttpRequest r) {
    String q = r.uri().getRawQuery();
    return r.method().equals("GET") && q != null && q.contains("versions");
  }

  /** Every version and delete marker of exactly {@code objectKey}. */
  private static List<ObjectVersion> versions(String bucket, String objectKey) throws IOException {
    return s3.client().listVersions(bucket, objectKey, null, null, 1000).versions().stream()
        .filter(v -> v.key().equals(objectKey)).toList();
  }

  /** What S3Mock does in AbortMultipartUpload: the object at the key goes too, every version of it. */
  private static void deleteEveryVersion(String bucket, String objectKey) {
    try {
      for (ObjectVersion v : versions(bucket, objectKey)) {
        s3.client().deleteVersion(bucket, objectKey, v.versionId());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] read(S3ObjectStore st, String key) throws IOException {
    try (InputStream in = st.open(key).orElseThrow()) {
      return in.readAllBytes();
    }
  }

  // --- a server whose abort deletes the object at the key (S3Mock)

  /**
   * The report this pins: B's completion is refused (A completed first), B's abort makes the server
   * delete A's object, and B used to take the empty key for one freed by retention, upload again and
   * report CREATED over A. Now B decides against A's object before it aborts, finds after the abort that
   * the server deleted it, and says so; B's bytes never reach the key.
   */
  @Test
  void putIfAbsent_refusedCompletionAndAbortDeletesObject_neverCreatedErrorNamesTheDeletion() throws IOException {
    String bucket = s3.createBucket(true);
    String objectKey = "p/" + key(60);
    byte[] first = random(6 * MIB, 1);
    byte[] second = random(6 * MIB, 2);
    List<PutOutcome> firstOutcome = new ArrayList<>();
    try (S3ObjectStore a = open(bucket, s3.endpoint(), null, multipart())) {
      InterceptingHttpClient http = new InterceptingHttpClient(request -> {
        // A completes while B's parts are up: B's completion is the one refused.
        if (isCompletion(request) && firstOutcome.isEmpty()) {
          firstOutcome.add(a.putIfAbsent(key(60), Payload.ofBytes(first), "host-a"));
        }
      }, request -> {
        if (isAbort(request)) {
          deleteEveryVersion(bucket, objectKey);
        }
      });
      try (S3ObjectStore b = open(bucket, s3.endpoint(), http, multipart())) {
        IOException e = assertThrows(IOException.class, () -> b.putIfAbsent(key(60), Payload.ofBytes(second), "host-b"),
            "B must never report CREATED after its completion was refused");
        assertTrue(e.getMessage().contains("deleted") && e.getMessage().contains("abort"), e.getMessage());
        assertTrue(e.getMessage().contains(key(60)), e.getMessage());
      }
    }
    assertEquals(PutStatus.CREATED, firstOutcome.get(0).status());
    String secondSha = Sha256.of(second);
    assertTrue(versions(bucket, objectKey).isEmpty(), "the server deleted A's object; B created nothing there");
    // The divergence marker (KEY!SHA.ATTEMPT) and the bytes (KEY!SHA), both before the abort.
    assertEquals(2, s3.client().listObjects(bucket, "p/_idem/evidence/" + key(60) + "!" + secondSha, null, null, 10)
        .objects().size(), "B's divergent attempt was recorded before the abort");
  }

  /** A single PUT refused with 412, then the object is gone (someone deleted it): no second create, one clear error. */
  @Test
  void putIfAbsent_putRefusedThenObjectGone_ioErrorNothingCreated() throws IOException {
    String bucket = s3.createBucket(false);
    String objectKey = "p/" + key(60);
    try (S3ObjectStore a = open(bucket, s3.endpoint(), null, S3StoreOptions.defaults())) {
      assertEquals(PutStatus.CREATED, a.putIfAbsent(key(60), Payload.ofBytes(new byte[] {1}), "host-a").status());
    }
    List<String> puts = Collections.synchronizedList(new ArrayList<>());
    try (S3ObjectStore b = open(bucket, s3.endpoint(), deleteAfterRefusedPut(bucket, objectKey, puts),
        S3StoreOptions.defaults())) {
      IOException e = assertThrows(IOException.class,
          () -> b.putIfAbsent(key(60), Payload.ofBytes(new byte[] {2}), "host-b"));
      assertTrue(e.getMessage().contains("refused") && e.getMessage().contains("gone"), e.getMessage());
      assertTrue(e.getMessage().contains("retirement mark"), e.getMessage());
    }
    assertEquals(1, puts.size(), "one create-only PUT: " + puts);
    assertFalse(s3.client().head(bucket, objectKey, null).isPresent(), "nothing created after the refusal");
  }

  /** The one exception: gc retired the window (its mark covers it), so the key was freed on purpose. */
  @Test
  void putIfAbsent_putRefusedThenObjectGoneInRetiredWindow_publishedAgain() throws IOException {
    String bucket = s3.createBucket(false);
    String objectKey = "p/" + key(60);
    try (S3ObjectStore a = open(bucket, s3.endpoint(), null, S3StoreOptions.defaults())) {
      a.putIfAbsent(key(60), Payload.ofBytes(new byte[] {1}), "host-a");
      a.raiseRetirement(new Retirement(PIPELINE, 60, Instant.now(), "idem test"));
    }
    List<String> puts = Collections.synchronizedList(new ArrayList<>());
    try (S3ObjectStore b = open(bucket, s3.endpoint(), deleteAfterRefusedPut(bucket, objectKey, puts),
        S3StoreOptions.defaults())) {
      assertEquals(PutStatus.CREATED, b.putIfAbsent(key(60), Payload.ofBytes(new byte[] {2}), "host-b").status());
      assertArrayEquals(new byte[] {2}, read(b, key(60)));
    }
    assertEquals(2, puts.size(), puts.toString());
  }

  /** A key that is not idem's has no retirement mark: its refusal then disappearance is an error. */
  @Test
  void putIfAbsent_foreignLayoutKeyRefusedThenGone_ioErrorNoMarkRead() throws IOException {
    String bucket = s3.createBucket(false);
    s3.client().put(bucket, "p/legacy/report.csv", RequestBody.ofBytes(new byte[] {1}), null, Map.of());
    List<String> requests = Collections.synchronizedList(new ArrayList<>());
    InterceptingHttpClient http = new InterceptingHttpClient(r -> requests.add(r.method() + " " + r.uri().getPath()
        + (r.uri().getRawQuery() == null ? "" : "?" + r.uri().getRawQuery())), r -> {
          if (isPut(r, "p/legacy/report.csv")) {
            deleteEveryVersion(bucket, "p/legacy/report.csv");
          }
        });
    try (S3ObjectStore b = open(bucket, s3.endpoint(), http, S3StoreOptions.defaults())) {
      assertThrows(IOException.class, () -> b.putIfAbsent("legacy/report.csv", Payload.ofBytes(new byte[] {2}), "h"));
    }
    assertTrue(requests.stream().noneMatch(r -> r.contains("_idem")), "no mark looked up: " + requests);
    assertFalse(s3.client().head(bucket, "p/legacy/report.csv", null).isPresent());
  }

  /** B's client: after its create-only PUT of {@code objectKey} is refused, the object is deleted. */
  private static InterceptingHttpClient deleteAfterRefusedPut(String bucket, String objectKey, List<String> puts) {
    Consumer<HttpRequest> after = r -> {
      if (isPut(r, objectKey)) {
        puts.add(r.method() + " " + r.uri().getPath());
        if (puts.size() == 1) {
          deleteEveryVersion(bucket, objectKey);
        }
      }
    };
    return new InterceptingHttpClient(r -> { }, after);
  }

  // --- a server that applies every completion and keeps each as a version (moto under concurrency)

  private static HeaderStrippingProxy appliesEveryCompletion() throws IOException {
    return HeaderStrippingProxy.onMethod(s3, "POST", "If-None-Match");
  }

  /** A gateway that applies every completion, as {@link #appliesEveryCompletion}, and meets {@code quirk} first. */
  private static QuirkProxy appliesEveryCompletionAnd(QuirkProxy.Quirk quirk) throws IOException {
    return new QuirkProxy(s3, quirk, QuirkProxy.Quirk.strips("POST", Set.of("If-None-Match"), new AtomicInteger()));
  }

  /**
   * B's completion lands over A's as a second version. B must find A's version under its own, report
   * DIVERGENT against it with its evidence, and delete its own version so that A's is current again.
   */
  @Test
  void putIfAbsent_secondCompletionAppliedAsNewVersion_divergentAndFirstBytesCurrentAgain() throws IOException {
    String bucket = s3.createBucket(true);
    byte[] first = random(6 * MIB, 3);
    byte[] second = random(6 * MIB, 4);
    try (HeaderStrippingProxy gateway = appliesEveryCompletion();
        S3ObjectStore a = open(bucket, gateway.endpoint(), null, multipart());
        S3ObjectStore b = open(bucket, gateway.endpoint(), null, multipart())) {
      assertEquals(PutStatus.CREATED, a.putIfAbsent(key(60), Payload.ofBytes(first), "host-a").status());
      PutOutcome out = b.putIfAbsent(key(60), Payload.ofBytes(second), "host-b");
      assertTrue(gateway.strippedCount() >= 2, "both completions went through unconditionally");
      assertEquals(PutStatus.DIVERGENT, out.status(), out.toString());
      assertEquals(Sha256.of(first), out.stored().sha256());
      assertEquals("host-a", out.stored().writer());
      assertArrayEquals(second, read(b, out.evidenceKey()));
      assertArrayEquals(first, read(b, key(60)), "P2: the first bytes are current again");
    }
    assertEquals(1, versions(bucket, "p/" + key(60)).size(), "B's version is gone");
  }

  /**
   * B's completion lands over A's and its reply is lost (a 500 after the server applied it), so B's
   * client sends it again, and the repeat is answered as S3Proxy answers it (200 naming no version) or
   * as a server that has forgotten the upload does (404 NoSuchUpload, then B's HEAD finds its own attempt
   * at the key). Either way B must still look under its own version: A's is there, so B gives way,
   * DIVERGENT, and A's bytes are current again. Before, B was CREATED: two CREATED for one key, B's bytes
   * current.
   */
  @ParameterizedTest(name = "repeated completion answered {0}")
  @ValueSource(ints = {200, 404})
  void putIfAbsent_completionOverEarlierVersionReplyLost_divergentAndFirstBytesCurrentAgain(int repeated)
      throws IOException {
    String bucket = s3.createBucket(true);
    byte[] first = random(6 * MIB, 31);
    byte[] second = random(6 * MIB, 32);
    AtomicBoolean loseCompletionReply = new AtomicBoolean();
    AtomicBoolean repeat = new AtomicBoolean();
    QuirkProxy.Quirk losesReply = (request, next) -> {
      if (request.isCompletion() && repeated == 404 && repeat.getAndSet(false)) {
        return QuirkProxy.Reply.error(404, "NoSuchUpload", "completed before, by the test gateway");
      }
      QuirkProxy.Reply reply = next.send(request);
      if (request.isCompletion() && loseCompletionReply.getAndSet(false)) {
        repeat.set(true);
        return QuirkProxy.Reply.error(500, "InternalError", "reply lost by the test gateway");
      }
      return reply;
    };
    try (QuirkProxy gateway = appliesEveryCompletionAnd(losesReply);
        S3ObjectStore a = open(bucket, gateway.endpoint(), null, multipart());
        S3ObjectStore b = open(bucket, gateway.endpoint(), null, multipart())) {
      assertEquals(PutStatus.CREATED, a.putIfAbsent(key(70), Payload.ofBytes(first), "host-a").status());
      loseCompletionReply.set(true);
      PutOutcome out = b.putIfAbsent(key(70), Payload.ofBytes(second), "host-b");
      assertFalse(loseCompletionReply.get(), "B's completion reply was lost");
      assertFalse(repeat.get() && repeated == 404, "B's completion was sent again");
      assertEquals(PutStatus.DIVERGENT, out.status(), out.toString());
      assertEquals("host-a", out.stored().writer());
      assertArrayEquals(first, read(b, key(70)), "P2: the first bytes are current again");
    }
    assertEquals(1, versions(bucket, "p/" + key(70)).size(), "B's version is gone");
  }

  @Test
  void putIfAbsent_secondCompletionOfSameBytes_identicalOneVersionLeft() throws IOException {
    String bucket = s3.createBucket(true);
    byte[] bytes = random(6 * MIB, 5);
    try (HeaderStrippingProxy gateway = appliesEveryCompletion();
        S3ObjectStore a = open(bucket, gateway.endpoint(), null, multipart());
        S3ObjectStore b = open(bucket, gateway.endpoint(), null, multipart())) {
      assertEquals(PutStatus.CREATED, a.putIfAbsent(key(60), Payload.ofBytes(bytes), "host-a").status());
      PutOutcome out = b.putIfAbsent(key(60), Payload.ofBytes(bytes), "host-b");
      assertEquals(PutStatus.IDENTICAL, out.status(), out.toString());
      assertEquals("host-a", out.stored().writer());
    }
    List<ObjectVersion> left = versions(bucket, "p/" + key(60));
    assertEquals(1, left.size(), left.toString());
    assertEquals("host-a", s3.client().head(bucket, "p/" + key(60), null).orElseThrow().meta("idem-writer"));
  }

  /** Three completions applied: the second and third each find the first under theirs and remove their own. */
  @Test
  void putIfAbsent_threeCompletionsApplied_onlyTheFirstVersionStays() throws IOException {
    String bucket = s3.createBucket(true);
    byte[] first = random(6 * MIB, 6);
    try (HeaderStrippingProxy gateway = appliesEveryCompletion();
        S3ObjectStore st = open(bucket, gateway.endpoint(), null, multipart())) {
      assertEquals(PutStatus.CREATED, st.putIfAbsent(key(60), Payload.ofBytes(first), "host-a").status());
      PutOutcome second = st.putIfAbsent(key(60), Payload.ofBytes(random(6 * MIB, 7)), "host-b");
      PutOutcome third = st.putIfAbsent(key(60), Payload.ofBytes(first), "host-c");
      assertEquals(PutStatus.DIVERGENT, second.status());
      assertEquals(PutStatus.IDENTICAL, third.status());
      assertEquals("host-a", third.stored().writer());
      assertArrayEquals(first, read(st, key(60)));
    }
    assertEquals(1, versions(bucket, "p/" + key(60)).size());
  }

  /**
   * A server that lists a key's versions by the time each write took rather than the order they landed
   * (moto within one millisecond, S3Proxy when two completions race) lists B's completion, which landed on
   * A's version, under it. B must still give way: DIVERGENT against A, A's bytes current, B's version gone.
   * Before, B found nothing listed under its own version and reported CREATED: two CREATED for one key, B's
   * bytes current.
   */
  @Test
  void putIfAbsent_laterCompletionListedUnderTheEarlier_divergentAndFirstBytesCurrentAgain() throws IOException {
    String bucket = s3.createBucket(true);
    byte[] first = random(6 * MIB, 41);
    byte[] second = random(6 * MIB, 42);
    try (QuirkProxy gateway = appliesEveryCompletionAnd(QuirkProxy.Quirk.listsVersionsOldestFirst());
        S3ObjectStore a = open(bucket, gateway.endpoint(), null, multipart());
        S3ObjectStore b = open(bucket, gateway.endpoint(), null, multipart())) {
      assertEquals(PutStatus.CREATED, a.putIfAbsent(key(80), Payload.ofBytes(first), "host-a").status());
      PutOutcome out = b.putIfAbsent(key(80), Payload.ofBytes(second), "host-b");
      assertEquals(PutStatus.DIVERGENT, out.status(), out.toString());
      assertEquals("host-a", out.stored().writer());
      assertEquals(Sha256.of(first), out.stored().sha256());
      assertArrayEquals(first, read(b, key(80)), "P2: the first bytes are current again");
    }
    assertEquals(1, versions(bucket, "p/" + key(80)).size(), "B's version is gone");
  }

  /**
   * The same server, both completions applied before either publisher looks: the one that landed first
   * is listed as the newer. Exactly one is CREATED, the other DIVERGENT against it, the creator's bytes
   * current and its version the only one: whichever landed last gives way, the other waits for it.
   */
  @Test
  void putIfAbsent_racingCompletionsListedOldestFirst_oneCreatedItsBytesTheOnlyVersion() throws Exception {
    String bucket = s3.createBucket(true);
    byte[][] payloads = {random(6 * MIB, 43), random(6 * MIB, 44)};
    AtomicInteger applied = new AtomicInteger();
    try (QuirkProxy gateway = new QuirkProxy(s3, QuirkProxy.Quirk.listsVersionsOldestFirst(),
            QuirkProxy.Quirk.checksCreatesBeforeWriting(2, r -> r.key().equals("p/" + key(90)), applied));
        S3ObjectStore a = open(bucket, gateway.endpoint(), null, multipart());
        S3ObjectStore b = open(bucket, gateway.endpoint(), null, multipart())) {
      S3ObjectStore[] stores = {a, b};
      List<PutOutcome> outs = Race.run(2, i -> stores[i].putIfAbsent(key(90), Payload.ofBytes(payloads[i]),
          "host-" + i));
      assertEquals(2, applied.get(), "both completions were applied");
      int creator = outs.get(0).status() == PutStatus.CREATED ? 0 : 1;
      assertEquals(PutStatus.CREATED, outs.get(creator).status(), outs.toString());
      assertEquals(PutStatus.DIVERGENT, outs.get(1 - creator).status(), outs.toString());
      assertEquals("host-" + creator, outs.get(1 - creator).stored().writer());
      assertArrayEquals(payloads[creator], read(a, key(90)), "P2: the creator's bytes are current");
    }
    assertEquals(1, versions(bucket, "p/" + key(90)).size(), "the loser's version is gone");
  }

  /**
   * Lives: a version under a delete marker belongs to a key's earlier life (gc removed it), and other
   * keys that start with this key's name list right after it; neither is a version under ours.
   */
  @Test
  void putIfAbsent_completionOverEarlierLifeBesideLongerKeys_created() throws IOException {
    String bucket = s3.createBucket(true);
    String objectKey = "p/legacy/a";
    s3.client().put(bucket, objectKey, RequestBody.ofBytes(new byte[] {1}), null, Map.of());
    s3.client().delete(bucket, objectKey);
    for (String longer : List.of("p/legacy/a!", "p/legacy/a-b", "p/legacy/ab")) {
      s3.client().put(bucket, longer, RequestBody.ofBytes(new byte[] {2}), null, Map.of());
      s3.client().put(bucket, longer, RequestBody.ofBytes(new byte[] {3}), null, Map.of());
    }
    byte[] bytes = random(6 * MIB, 8);
    try (HeaderStrippingProxy gateway = appliesEveryCompletion();
        S3ObjectStore st = open(bucket, gateway.endpoint(), null, multipart())) {
      assertEquals(PutStatus.CREATED, st.putIfAbsent("legacy/a", Payload.ofBytes(bytes), "host-a").status());
      assertEquals(PutStatus.DIVERGENT, st.putIfAbsent("legacy/a", Payload.ofBytes(random(6 * MIB, 9)), "host-b").status());
      assertArrayEquals(bytes, read(st, "legacy/a"));
    }
    List<ObjectVersion> left = versions(bucket, objectKey);
    assertEquals(3, left.size(), "ours, gc's delete marker and the earlier life's version: " + left);
  }

  /**
   * moto lists a page's versions before its delete markers, so the page alone does not say that gc's
   * delete marker ends the earlier life under this publish's version: the publish is still CREATED,
   * its bytes current, the earlier life left as it was.
   */
  @Test
  void putIfAbsent_completionOverEarlierLifeListedVersionsFirst_created() throws IOException {
    String bucket = s3.createBucket(true);
    String objectKey = "p/" + key(60);
    s3.client().put(bucket, objectKey, RequestBody.ofBytes(new byte[] {1}), null, Map.of());
    s3.client().delete(bucket, objectKey);
    byte[] bytes = random(6 * MIB, 11);
    try (QuirkProxy gateway = new QuirkProxy(s3, QuirkProxy.Quirk.listsVersionsBeforeDeleteMarkers());
        S3ObjectStore st = open(bucket, gateway.endpoint(), null, multipart())) {
      PutOutcome out = st.putIfAbsent(key(60), Payload.ofBytes(bytes), "host-a");
      assertEquals(PutStatus.CREATED, out.status(), out.toString());
      assertArrayEquals(bytes, read(st, key(60)));
    }
    assertEquals(3, versions(bucket, objectKey).size(), "ours, the delete marker and the earlier version");
  }

  /**
   * Both of moto's ways at once: it applies the second completion as a version, and lists versions
   * before delete markers. The loser must find the first of this life (A's), not the earlier life's
   * version under gc's delete marker: DIVERGENT against A, A's bytes current again.
   */
  @Test
  void putIfAbsent_secondCompletionOverALifeAfterADeleteListedVersionsFirst_divergentAgainstThisLife()
      throws IOException {
    String bucket = s3.createBucket(true);
    String objectKey = "p/" + key(60);
    s3.client().put(bucket, objectKey, RequestBody.ofBytes(new byte[] {1}), null, Map.of());
    s3.client().delete(bucket, objectKey);
    byte[] first = random(6 * MIB, 12);
    byte[] second = random(6 * MIB, 13);
    try (QuirkProxy gateway = appliesEveryCompletionAnd(QuirkProxy.Quirk.listsVersionsBeforeDeleteMarkers());
        S3ObjectStore a = open(bucket, gateway.endpoint(), null, multipart());
        S3ObjectStore b = open(bucket, gateway.endpoint(), null, multipart())) {
      assertEquals(PutStatus.CREATED, a.putIfAbsent(key(60), Payload.ofBytes(first), "host-a").status());
      PutOutcome out = b.putIfAbsent(key(60), Payload.ofBytes(second), "host-b");
      assertEquals(PutStatus.DIVERGENT, out.status(), out.toString());
      assertEquals(Sha256.of(first), out.stored().sha256());
      assertEquals("host-a", out.stored().writer());
      assertArrayEquals(first, read(b, key(60)));
    }
    assertEquals(3, versions(bucket, objectKey).size(), "A's, the delete marker and the earlier version");
  }

  // --- what the check costs

  private static List<String> versionListings(String bucket, boolean versioned, int size) throws IOException {
    return versionListings(bucket, size, ProbeAnswers.NONE);
  }

  private static List<String> versionListings(String bucket, int size, ProbeAnswers answers) throws IOException {
    List<String> listings = Collections.synchronizedList(new ArrayList<>());
    InterceptingHttpClient http = new InterceptingHttpClient(r -> {
      if (isVersionListing(r)) {
        listings.add(r.uri().getRawQuery());
      }
    });
    try (S3ObjectStore st = open(bucket, s3.endpoint(), http, multipart()).configuredBy(answers)) {
      assertEquals(PutStatus.CREATED, st.putIfAbsent(key(60), Payload.ofBytes(random(size, 10)), "h").status());
    }
    return listings;
  }

  @Test
  void putIfAbsent_multipartOnUnversionedBucket_noVersionListing() throws IOException {
    assertEquals(List.of(), versionListings(s3.createBucket(false), false, 6 * MIB));
  }

  @Test
  void putIfAbsent_multipartOnVersionedBucket_oneVersionListing() throws IOException {
    assertEquals(1, versionListings(s3.createBucket(true), true, 6 * MIB).size());
  }

  @Test
  void putIfAbsent_singlePutOnVersionedBucket_noVersionListing() throws IOException {
    assertEquals(List.of(), versionListings(s3.createBucket(true), true, MIB));
  }

  @Test
  void putIfAbsent_singlePutOnVersionedBucketOfServerWhoseRacingCreatesSucceed_oneVersionListing()
      throws IOException {
    assertEquals(1, versionListings(s3.createBucket(true), MIB, new ProbeAnswers(false, true)).size());
  }
}
