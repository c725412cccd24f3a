package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.proof.ProbeResult;
import dev.idem.core.proof.ProvenStore;
import dev.idem.core.proof.StoreMarker;
import dev.idem.core.proof.StoreRefusedException;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.PutStatus;
import dev.idem.core.testing.Race;
import dev.idem.store.s3.internal.client.ObjectSummary;
import dev.idem.store.s3.internal.client.ObjectVersion;
import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.testing.InterceptingHttpClient;
import dev.idem.store.s3.testing.QuirkProxy;
import dev.idem.store.s3.testing.QuirkProxy.Quirk;
import dev.idem.store.s3.testing.QuirkProxy.Reply;
import dev.idem.store.s3.testing.QuirkProxy.Request;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Create-only writes that race onto one key and all succeed, as on moto: the store probe's {@code
 * if-none-match-atomic} answer and what the store does with it. On S3Proxy, whose {@code If-None-Match: *}
 * is atomic, behind a gateway that makes racing creates all succeed ({@link
 * Quirk#checksCreatesBeforeWriting}: each is held until its rivals arrive, then all are written without
 * the condition), so every race is won twice, deterministically. On an unversioned bucket such a server
 * is refused naming the guarantee; on a versioned one it is accepted, and every publish, single PUT
 * included, gives way to a version under its own.
 */
class S3RacingCreatesTest {
  private static final String KEY = RunSpec.of("orders", new Window(1_726_000_000L, 60), 1).outputKey().toString();
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-02T14:00:00Z"), ZoneOffset.UTC);
  private static final int PUBLISHERS = 4;
  private static S3ProxyServer s3;

  @BeforeAll
  static void server() throws IOException {
    s3 = S3ProxyServer.shared();
  }

  private static S3ObjectStore open(URI endpoint, String bucket, InterceptingHttpClient http) {
    return open(endpoint, bucket, http, S3StoreOptions.defaults());
  }

  private static S3ObjectStore open(URI endpoint, String bucket, InterceptingHttpClient http,
      S3StoreOptions options) {
    S3Client.Builder client = S3Client.builder(endpoint, S3ProxyServer.REGION, s3.credentials()).pathStyle(true);
    if (http != null) {
      client.httpClient(http);
    }
    return S3ObjectStore.open(client.build(), s3.location(bucket, "p").withEndpoint(endpoint, true), options);
  }

  private static ProvenStore proven(URI endpoint, String bucket) {
    S3ObjectStore store = open(endpoint, bucket, null);
    return ProvenStore.wrap(store, S3StoreProver.of(store), "idem test", CLOCK);
  }

  /** The probe's racing writes: creates to its {@code -raceN-} scratch keys, by HTTP method. */
  private static Predicate<Request> probeRaces(String method) {
    return r -> (method == null || r.method().equals(method)) && r.key().contains("/_idem/probe/")
        && r.key().contains("-race");
  }

  private static Payload text(String s) {
    return Payload.ofBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  private static List<String> keys(String bucket) throws IOException {
    return s3.client().listObjects(bucket, "", null, null, 1000).objects().stream().map(ObjectSummary::key).toList();
  }

  private static List<ObjectVersion> versions(String bucket, String prefix) throws IOException {
    return s3.client().listVersions(bucket, prefix, null, null, 1000).versions();
  }

  private static StoreMarker marker(String bucket) throws IOException {
    return StoreMarker.parse(s3.client().getBytes(bucket, "p/" + StoreMarker.KEY, 16 * 1024).orElseThrow().bytes(),
        bucket);
  }

  /**
   * Racing completions (POST) or racing PUTs both succeed, and the bucket is not versioned: nothing could
   * see a publish replaced by a later one, so the store is refused (exit 8's exception) naming the
   * guarantee, and the probe leaves nothing behind.
   */
  @ParameterizedTest(name = "racing {0}s both succeed")
  @ValueSource(strings = {"POST", "PUT"})
  void putIfAbsent_racingCreatesBothSucceedOnUnversionedBucket_refusedNamingTheGuarantee(String method)
      throws Exception {
    String bucket = s3.createBucket(false);
    AtomicInteger applied = new AtomicInteger();
    try (QuirkProxy gateway = new QuirkProxy(s3, Quirk.checksCreatesBeforeWriting(2, probeRaces(method), applied))) {
      ProvenStore store = proven(gateway.endpoint(), bucket);

      StoreRefusedException e = assertThrows(StoreRefusedException.class, () -> store.putIfAbsent(KEY, text("a"), "w"));

      String writes = method.equals("POST") ? "completions racing onto _idem/probe/[0-9a-f]{24}-race1-multipart"
          : "PUTs racing onto _idem/probe/[0-9a-f]{24}-race1-put";
      assertTrue(e.getMessage().matches("s3://" + bucket + "/p at " + gateway.endpoint() + " does not apply"
          + " If-None-Match: \\* atomically \\(if-none-match-atomic\\): 2 of 2 create-only " + writes + " succeeded;"
          + " their replies named no version \\(an unversioned bucket\\), so a later write would replace an earlier"
          + " one unseen; refusing to write: concurrent publishes of one key must leave one CREATED .*"),
          e.getMessage());
      assertEquals(2, applied.get(), "the probe stopped at the first race won twice");
      assertEquals(List.of(), keys(bucket));
      assertEquals(List.of(), s3.client().listMultipartUploads(bucket, "", null, null).uploads());
    }
  }

  /**
   * On a versioned bucket the same server is accepted: the answer is recorded, not required, and
   * publishes racing onto one key through it, each a single PUT that the gateway applies, end with one
   * CREATED, the others IDENTICAL or DIVERGENT against the creator's bytes, which are the key's one
   * version. Before the store checked single PUTs, all four were CREATED.
   */
  @Test
  void putIfAbsent_racingSinglePutsOnVersionedBucket_oneCreatedOthersGiveWayToTheFirst() throws Exception {
    String bucket = s3.createBucket(true);
    AtomicInteger probeApplied = new AtomicInteger();
    AtomicInteger publishApplied = new AtomicInteger();
    try (QuirkProxy gateway = new QuirkProxy(s3,
        Quirk.checksCreatesBeforeWriting(2, probeRaces(null), probeApplied),
        Quirk.checksCreatesBeforeWriting(PUBLISHERS, r -> r.key().equals("p/" + KEY), publishApplied))) {
      proven(gateway.endpoint(), bucket).requireWritable();
      ProbeResult race = marker(bucket).probe("if-none-match-atomic").orElseThrow();
      assertEquals("ABSENT", race.answer(), race.toString());
      assertTrue(race.observed().contains("their replies named versions"), race.observed());

      List<byte[]> payloads = new ArrayList<>();
      for (int i = 0; i < PUBLISHERS; i++) {
        payloads.add((i % 2 == 0 ? "rows" : "rows of build " + i).getBytes(StandardCharsets.UTF_8));
      }
      List<PutOutcome> outs = Race.run(PUBLISHERS, i -> proven(gateway.endpoint(), bucket)
          .putIfAbsent(KEY, Payload.ofBytes(payloads.get(i)), "host-" + i));

      assertEquals(PUBLISHERS, publishApplied.get(), "every publish's PUT was applied");
      List<Integer> created = new ArrayList<>();
      for (int i = 0; i < PUBLISHERS; i++) {
        if (outs.get(i).status() == PutStatus.CREATED) {
          created.add(i);
        }
      }
      assertEquals(1, created.size(), "P3: " + outs);
      byte[] first = payloads.get(created.get(0));
      for (int i = 0; i < PUBLISHERS; i++) {
        if (i != created.get(0)) {
          PutStatus expected = new String(payloads.get(i), StandardCharsets.UTF_8)
              .equals(new String(first, StandardCharsets.UTF_8)) ? PutStatus.IDENTICAL : PutStatus.DIVERGENT;
          assertEquals(expected, outs.get(i).status(), "publisher " + i + ": " + outs);
          assertEquals("host-" + created.get(0), outs.get(i).stored().writer(), outs.toString());
        }
      }
      try (S3ObjectStore st = open(s3.endpoint(), bucket, null); InputStream in = st.open(KEY).orElseThrow()) {
        assertArrayEquals(first, in.readAllBytes(), "P2: the creator's bytes are current");
      }
      assertEquals(1, versions(bucket, "p/" + KEY).stream().filter(v -> v.key().equals("p/" + KEY)).count(),
          "each loser removed its version");
    }
  }

  /**
   * The key's life as a racing loser meets it: publisher A's version first, B's racing version on top of
   * it, and A's still hidden from listings (its write not yet visible) until this publisher, C, has
   * removed its own version; {@code removeB} also removes B's version right after C removed its own (B
   * giving way), else B's stays (its writer stopped). C's PUT is applied over both. Returns C's outcome.
   */
  private static PutOutcome loseOverHiddenFirst(String bucket, boolean removeB) throws Exception {
    try (S3ObjectStore a = open(s3.endpoint(), bucket, null)) {
      assertEquals(PutStatus.CREATED, a.putIfAbsent(KEY, text("rows"), "host-a").status());
    }
    String objectKey = "p/" + KEY;
    String versionA = versions(bucket, objectKey).get(0).versionId();
    try (QuirkProxy applies = new QuirkProxy(s3, Quirk.strips("PUT", Set.of("If-None-Match"), new AtomicInteger()));
        S3ObjectStore b = open(applies.endpoint(), bucket, null)) {
      assertEquals(PutStatus.CREATED, b.putIfAbsent(KEY, text("rows of build b"), "host-b").status());
    }
    String versionB = versions(bucket, objectKey).get(0).versionId();
    AtomicBoolean ownRemoved = new AtomicBoolean();
    Pattern hiddenA = Pattern.compile("<Version>(?:(?!</Version>).)*<VersionId>" + Pattern.quote(versionA)
        + "</VersionId>.*?</Version>", Pattern.DOTALL);
    Quirk race = (request, next) -> {
      if (!request.key().equals(objectKey) && !request.has("versions")) {
        return next.send(request);
      }
      if (request.method().equals("PUT")) {
        return next.send(request.without(Set.of("if-none-match")));
      }
      if (request.method().equals("DELETE") && request.has("versionId")) {
        Reply removed = next.send(request);
        ownRemoved.set(true);
        if (removeB) {
          s3.client().deleteVersion(bucket, objectKey, versionB);
        }
        return removed;
      }
      Reply r = next.send(request);
      if (request.has("versions") && !ownRemoved.get()) {
        String body = new String(r.body(), StandardCharsets.UTF_8);
        return new Reply(r.status(), r.headers(), hiddenA.matcher(body).replaceAll("").getBytes(StandardCharsets.UTF_8));
      }
      return r;
    };
    try (QuirkProxy gateway = new QuirkProxy(s3, race);
        S3ObjectStore c = open(gateway.endpoint(), bucket, null).configuredBy(new ProbeAnswers(false, true))) {
      return c.putIfAbsent(KEY, text("rows of build c"), "host-c");
    }
  }

  /**
   * A loser that met only a second racing version under its own (the true first not yet listed) gives way;
   * the second's writer removes its version meanwhile, and the loser decides against the true first once
   * the life lists it alone, whose bytes are then current.
   */
  @Test
  void putIfAbsent_firstListedVersionRemovedBeforeRead_givesWayToTheTrueFirst() throws Exception {
    String bucket = s3.createBucket(true);

    PutOutcome c = loseOverHiddenFirst(bucket, true);

    assertEquals(PutStatus.DIVERGENT, c.status(), c.toString());
    assertEquals("host-a", c.stored().writer(), c.toString());
    try (S3ObjectStore st = open(s3.endpoint(), bucket, null); InputStream in = st.open(KEY).orElseThrow()) {
      assertArrayEquals("rows".getBytes(StandardCharsets.UTF_8), in.readAllBytes(), "P2: the first bytes are current");
    }
  }

  /**
   * The same, but the second racing version stays (its writer stopped before removing it): the loser's
   * life never comes down to one version, and once it has waited its rounds it decides against the first
   * version by the listing's order, the true first. Before, it reported the second writer's bytes as the
   * stored ones.
   */
  @Test
  void putIfAbsent_trueFirstListedOnlyAfterDecision_decidedAgainstTheTrueFirst() throws Exception {
    String bucket = s3.createBucket(true);

    PutOutcome c = loseOverHiddenFirst(bucket, false);

    assertEquals(PutStatus.DIVERGENT, c.status(), c.toString());
    assertEquals("host-a", c.stored().writer(), c.toString());
  }

  /**
   * A loser's walk down the key's life, one entry per page (the key has an earlier life, so its listing
   * ends at a delete marker after more than one version), whose next page names as its marker a version
   * removed meanwhile (another loser giving way): S3Proxy answers the page 404 NoSuchVersion. The walk
   * starts again and the publish gives way to the first. Before, the publish failed with that 404.
   */
  @Test
  void putIfAbsent_versionMarkerRemovedDuringTheWalk_walkedAgainAndGivesWay() throws Exception {
    String bucket = s3.createBucket(true);
    s3.client().put(bucket, "p/" + KEY, RequestBody.ofBytes("an earlier life".getBytes(StandardCharsets.UTF_8)),
        null, Map.of());
    s3.client().delete(bucket, "p/" + KEY);
    try (S3ObjectStore a = open(s3.endpoint(), bucket, null)) {
      assertEquals(PutStatus.CREATED, a.putIfAbsent(KEY, text("rows"), "host-a").status());
    }
    AtomicInteger refused = new AtomicInteger();
    Quirk race = (request, next) -> {
      if (request.method().equals("PUT") && request.key().equals("p/" + KEY)) {
        return next.send(request.without(Set.of("if-none-match")));
      }
      if (request.has("versions") && request.has("version-id-marker") && refused.getAndIncrement() == 0) {
        return Reply.error(404, "NoSuchVersion", "The specified version does not exist.");
      }
      return next.send(request);
    };
    try (QuirkProxy gateway = new QuirkProxy(s3, race);
        S3ObjectStore c = open(gateway.endpoint(), bucket, null).configuredBy(new ProbeAnswers(false, true))) {
      PutOutcome out = c.putIfAbsent(KEY, text("rows of build c"), "host-c");

      assertEquals(PutStatus.DIVERGENT, out.status(), out.toString());
      assertEquals("host-a", out.stored().writer(), out.toString());
    }
    assertTrue(refused.get() > 1, "the walk was sent again after the 404: " + refused);
  }

  /**
   * A loser's walk down the key's life while a later racing write on top of its own version gives way:
   * S3Proxy ends a listing whose version marker names a removed version (an empty page, not truncated,
   * not a 404), so a walk paging from the key's latest entry loses sight of this publish's version. The
   * walk below its own version pages from that version, which no other writer removes; a walk from the
   * latest entry that missed it (pages of one entry) walks again; the publish gives way to the first.
   * Before, it failed saying the listing did not hold its version.
   */
  @ParameterizedTest(name = "pages of {0}")
  @ValueSource(ints = {1000, 1})
  void putIfAbsent_laterRacingVersionRemovedDuringTheWalk_givesWayToTheFirst(int pageSize) throws Exception {
    String bucket = s3.createBucket(true);
    String objectKey = "p/" + KEY;
    try (S3ObjectStore a = open(s3.endpoint(), bucket, null)) {
      assertEquals(PutStatus.CREATED, a.putIfAbsent(KEY, text("rows"), "host-a").status());
    }
    AtomicReference<String> later = new AtomicReference<>();
    AtomicInteger removedMidWalk = new AtomicInteger();
    Quirk race = (request, next) -> {
      if (request.method().equals("PUT") && request.key().equals(objectKey)) {
        Reply own = next.send(request.without(Set.of("if-none-match")));
        later.set(s3.client().put(bucket, objectKey, RequestBody.ofBytes("rows of build d".getBytes(
            StandardCharsets.UTF_8)), null, Map.of()).versionId());
        return own;
      }
      if (request.has("versions") && request.has("version-id-marker") && later.get() != null
          && removedMidWalk.getAndIncrement() == 0) {
        s3.client().deleteVersion(bucket, objectKey, later.get());
      }
      return next.send(request);
    };
    try (QuirkProxy gateway = new QuirkProxy(s3, race);
        S3ObjectStore c = open(gateway.endpoint(), bucket, null, S3StoreOptions.builder().pageSize(pageSize).build())
            .configuredBy(new ProbeAnswers(false, true))) {
      PutOutcome out = c.putIfAbsent(KEY, text("rows of build c"), "host-c");

      assertEquals(PutStatus.DIVERGENT, out.status(), out.toString());
      assertEquals("host-a", out.stored().writer(), out.toString());
    }
    assertTrue(removedMidWalk.get() > 0, "the later version was removed while the walk paged");
    assertEquals(1, versions(bucket, objectKey).stream().filter(v -> v.key().equals(objectKey)).count(),
        "the loser removed its version; the later write gave way");
  }

  /**
   * A loser that removed its version and then lists the key without any version (S3Proxy, for a moment,
   * while it makes the older version current again) reads the life again and gives way to the first.
   * Before, the publish failed saying the key held no version.
   */
  @Test
  void putIfAbsent_keyListedWithoutVersionsOnceAfterGivingWay_listedAgainAndGivesWay() throws Exception {
    String bucket = s3.createBucket(true);
    try (S3ObjectStore a = open(s3.endpoint(), bucket, null)) {
      assertEquals(PutStatus.CREATED, a.putIfAbsent(KEY, text("rows"), "host-a").status());
    }
    AtomicBoolean ownRemoved = new AtomicBoolean();
    AtomicInteger emptied = new AtomicInteger();
    Pattern entries = Pattern.compile("<Version>.*?</Version>", Pattern.DOTALL);
    Quirk race = (request, next) -> {
      if (request.method().equals("PUT") && request.key().equals("p/" + KEY)) {
        return next.send(request.without(Set.of("if-none-match")));
      }
      if (request.method().equals("DELETE") && request.has("versionId")) {
        ownRemoved.set(true);
      }
      Reply r = next.send(request);
      if (request.has("versions") && ownRemoved.get() && emptied.getAndIncrement() == 0) {
        String body = new String(r.body(), StandardCharsets.UTF_8);
        return new Reply(r.status(), r.headers(), entries.matcher(body).replaceAll("").getBytes(StandardCharsets.UTF_8));
      }
      return r;
    };
    try (QuirkProxy gateway = new QuirkProxy(s3, race);
        S3ObjectStore c = open(gateway.endpoint(), bucket, null).configuredBy(new ProbeAnswers(false, true))) {
      PutOutcome out = c.putIfAbsent(KEY, text("rows of build c"), "host-c");

      assertEquals(PutStatus.DIVERGENT, out.status(), out.toString());
      assertEquals("host-a", out.stored().writer(), out.toString());
    }
    assertTrue(emptied.get() > 1, "the life was listed again: " + emptied);
  }

  /**
   * On an atomic server every race is won once: held, and on a versioned bucket not required. The races
   * cost their stated requests and leave no version of their 5 MiB writes behind.
   */
  @Test
  void racingCreates_atomicServer_heldWithinItsRequestsAndNothingLeft() throws Exception {
    String bucket = s3.createBucket(true);
    List<HttpRequest> sent = Collections.synchronizedList(new ArrayList<>());
    InterceptingHttpClient http = new InterceptingHttpClient(r -> {
      if (InterceptingHttpClient.path(r).contains("-race")) {
        sent.add(r);
      }
    });
    try (S3ObjectStore store = open(s3.endpoint(), bucket, http)) {
      ProbeResult race = S3StoreProver.of(store).racingCreates("_idem/probe/scratch");

      assertTrue(race.held(), race.toString());
      assertFalse(race.required(), "a versioned bucket would let publishes give way: " + race);
      assertTrue(race.observed().contains("a race not won twice here is no proof"), race.observed());
    }
    int writers = S3StoreProver.RACE_WRITERS;
    assertEquals(S3StoreProver.RACE_ROUNDS * (5 * writers + 1), sent.size(), sent.toString());
    assertEquals(List.of(), versions(bucket, "p/_idem/probe/"));
    assertEquals(List.of(), s3.client().listMultipartUploads(bucket, "", null, null).uploads());
  }

  /**
   * A racing write that fails (here the first of the racing PUTs refused with 400): the probe fails with
   * that error once both writes ended, and the write that succeeded is removed all the same, so no 5 MiB
   * version stays behind. Before, the other PUT's version was left under {@code _idem/probe/}.
   */
  @Test
  void racingCreates_oneWriteFails_failureThrownAndTheOtherWriteRemoved() throws Exception {
    String bucket = s3.createBucket(true);
    AtomicInteger puts = new AtomicInteger();
    Quirk refusesFirstPut = (request, next) -> !request.isPart() && probeRaces("PUT").test(request)
        && puts.incrementAndGet() == 1 ? Reply.error(400, "InvalidRequest", "refused by the test gateway")
        : next.send(request);
    try (QuirkProxy gateway = new QuirkProxy(s3, refusesFirstPut);
        S3ObjectStore store = open(gateway.endpoint(), bucket, null)) {
      IOException e = assertThrows(IOException.class,
          () -> S3StoreProver.of(store).racingCreates("_idem/probe/scratch"));
      assertTrue(e.getMessage().contains("InvalidRequest"), e.getMessage());
    }
    assertEquals(2, puts.get(), "both PUTs were sent");
    assertEquals(List.of(), versions(bucket, "p/_idem/probe/"));
    assertEquals(List.of(), s3.client().listMultipartUploads(bucket, "", null, null).uploads());
  }

  /**
   * A store whose marker records that racing creates both succeeded, publishing where the write's reply
   * names no version (the bucket's versioning suspended since the store was proven): the publish fails,
   * saying it cannot tell whether it replaced another publish.
   */
  @Test
  void putIfAbsent_racingServerReplyNamesNoVersion_failsSayingItCannotTell() throws Exception {
    String bucket = s3.createBucket(false);
    try (S3ObjectStore store = open(s3.endpoint(), bucket, null).configuredBy(new ProbeAnswers(false, true))) {
      IOException e = assertThrows(IOException.class, () -> store.putIfAbsent(KEY, text("a"), "w"));

      assertTrue(e.getMessage().startsWith("publish of " + KEY + " to " + store.describe() + ": the server applied"
          + " this publish's create-only write, and its reply named no version; "), e.getMessage());
      assertTrue(e.getMessage().contains("is the bucket's versioning suspended?"), e.getMessage());
    }
  }
}
