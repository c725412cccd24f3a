package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.Claim;
import dev.idem.core.store.ClaimWait;
import dev.idem.core.store.Claims;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutStatus;
import dev.idem.core.testing.Race;
import dev.idem.store.s3.internal.client.ObjectSummary;
import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.testing.DateShiftingHttpClient;
import dev.idem.store.s3.testing.InterceptingHttpClient;
import dev.idem.store.s3.testing.OnEachS3Server;
import dev.idem.store.s3.testing.S3Implementation;
import dev.idem.store.s3.testing.S3TestServer;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;

/**
 * The S3 store's advisory claims ({@code _idem/claims/KEY/claim.ID}) on each S3 implementation: who
 * holds, who yields, takeover of a stale claim, renewal, release, ages by the server's clock (the
 * listing reply's {@code Date} against the entry's {@code LastModified}), bad entries and entries gone
 * between the listing and the GET treated as absent, and the requests each operation costs. A claim is
 * made stale by moving the {@code Date} of the replies a store reads ({@link DateShiftingHttpClient}),
 * never by waiting; an entry that must sort first is written at the smallest name.
 */
@OnEachS3Server
class S3ClaimsTest {
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final Duration EXPECTED = Duration.ofMinutes(2);
  private static final String KEY = key(1_726_000_000L);
  private static final String FIRST_ID = "claim.0000000000000000";

  @Parameter
  S3Implementation implementation;

  private S3TestServer s3;
  private String bucket;
  private final List<S3ObjectStore> opened = new ArrayList<>();

  @BeforeEach
  void bucket() throws IOException {
    s3 = implementation.shared();
    bucket = s3.createBucket(false);
  }

  @AfterEach
  void close() {
    opened.forEach(S3ObjectStore::close);
  }

  private static String key(long windowStart) {
    return RunSpec.of("orders", new Window(windowStart, 60), 1).outputKey().toString();
  }

  private S3ObjectStore store() {
    return store(S3StoreOptions.defaults(), null);
  }

  private S3ObjectStore store(S3StoreOptions options, HttpClient http) {
    var client = s3.clientBuilder();
    if (http != null) {
      client.httpClient(http);
    }
    S3ObjectStore store = S3ObjectStore.open(client.build(), s3.location(bucket, "p"), options);
    opened.add(store);
    return store;
  }

  /** A store reading replies whose {@code Date} is the server's moved by {@code shift}. */
  private S3ObjectStore storeWithServerClockMoved(Duration shift) {
    DateShiftingHttpClient http = new DateShiftingHttpClient();
    http.shift(shift);
    return store(S3StoreOptions.defaults(), http);
  }

  private String entry(String key, String id) {
    return "p/_idem/claims/" + key + "/" + id;
  }

  /** The objects under the key's claim area, by name. */
  private List<String> entries(String key) throws IOException {
    return s3.client().listObjects(bucket, "p/_idem/claims/" + key + "/", null, null, 1000).objects().stream()
        .map(ObjectSummary::key).toList();
  }

  private List<String> entriesOf(List<String> ids) {
    return ids.stream().map(id -> entry(KEY, id)).sorted().toList();
  }

  /** Writes {@code bytes} at entry {@code id} of {@code key} as another writer (or a hand) would. */
  private void writeEntry(String key, String id, byte[] bytes) throws IOException {
    s3.client().put(bucket, entry(key, id), RequestBody.ofBytes(bytes), null, Map.of());
  }

  private static byte[] document(String key, String writer) {
    return new Claim(key, "x", writer, Instant.now(), null, Duration.ZERO).toBytes();
  }

  /** Counts the requests a store sends, by kind: LIST, GET, HEAD, PUT, DELETE. */
  private static final class Requests {
    final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    InterceptingHttpClient client() {
      return new InterceptingHttpClient(this::count);
    }

    private void count(HttpRequest r) {
      String q = r.uri().getRawQuery();
      String kind = r.method().equals("GET") && q != null && q.contains("list-type=2") ? "LIST" : r.method();
      counts.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet();
    }

    Map<String, Integer> taken() {
      Map<String, Integer> out = new TreeMap<>();
      counts.forEach((k, v) -> {
        if (v.get() > 0) {
          out.put(k, v.getAndSet(0));
        }
      });
      return out;
    }
  }

  // --- claim

  @Test
  void claim_noClaim_heldWithTwoListsAndOnePutThenReadBack() throws Exception {
    Requests requests = new Requests();
    S3ObjectStore s = store(S3StoreOptions.defaults(), requests.client());

    Claims.Claimed a = s.claim(KEY, "host-a:1", EXPECTED, TTL);

    assertEquals(Claims.Result.HELD, a.result());
    assertNull(a.stale(), "nothing taken over");
    assertEquals(Map.of("LIST", 2, "PUT", 1), requests.taken());
    assertTrue(a.claim().id().matches("claim\\.[0-9a-f]{16}"), a.claim().id());
    assertEquals(List.of(entry(KEY, a.claim().id())), entries(KEY));
    Claim read = s.readClaim(KEY).orElseThrow();
    assertEquals(a.claim().id(), read.id());
    assertEquals("host-a:1", read.writer());
    assertEquals(Optional.of(EXPECTED), read.expectedDuration());
    assertEquals(a.claim().started(), read.started());
    assertTrue(read.isFresh(TTL), read.age().toString());
  }

  @Test
  void claim_freshClaimOfAnother_takenWithOneListAndOneGetNothingWritten() throws Exception {
    Claim a = store().claim(KEY, "host-a:1", EXPECTED, TTL).claim();
    Requests requests = new Requests();

    Claims.Claimed b = store(S3StoreOptions.defaults(), requests.client()).claim(KEY, "host-b:2", null, TTL);

    assertEquals(Claims.Result.TAKEN, b.result());
    assertEquals(Map.of("LIST", 1, "GET", 1), requests.taken());
    assertEquals(a.id(), b.claim().id());
    assertEquals("host-a:1", b.claim().writer());
    assertEquals(List.of(entry(KEY, a.id())), entries(KEY));
  }

  @Test
  void claim_staleClaim_takenOverBesideIt() throws Exception {
    writeEntry(KEY, FIRST_ID, document(KEY, "host-a:1"));
    Requests requests = new Requests();
    DateShiftingHttpClient anHourLater = new DateShiftingHttpClient(requests.client());
    anHourLater.shift(Duration.ofHours(1));

    Claims.Claimed b = store(S3StoreOptions.defaults(), anHourLater).claim(KEY, "host-b:2", null, TTL);

    assertEquals(Claims.Result.HELD, b.result());
    assertEquals(FIRST_ID, b.stale().id(), "the claim taken over is named");
    assertEquals("host-a:1", b.stale().writer());
    assertFalse(b.stale().isFresh(TTL), b.stale().age().toString());
    assertEquals(Map.of("LIST", 2, "PUT", 1, "GET", 1), requests.taken());
    assertEquals(entriesOf(List.of(FIRST_ID, b.claim().id())), entries(KEY), "the stale claim stays for gc");
    assertEquals(b.claim().id(), store().readClaim(KEY).orElseThrow().id(), "the freshest claim is read");
  }

  @Test
  void claim_anotherClaimsBetweenLookAndWrite_laterWriterYields() throws Exception {
    AtomicBoolean first = new AtomicBoolean();
    Requests requests = new Requests();
    InterceptingHttpClient http = new InterceptingHttpClient(r -> {
      if (r.method().equals("PUT") && InterceptingHttpClient.path(r).contains("/_idem/claims/")
          && first.compareAndSet(false, true)) {
        // host-a claims after host-b looked and found nothing, and before host-b's entry is written.
        writeEntry(KEY, FIRST_ID, document(KEY, "host-a:1"));
      }
    });
    S3ObjectStore b = store(S3StoreOptions.defaults(), http);
    S3ObjectStore counted = store(S3StoreOptions.defaults(), requests.client());

    Claims.Claimed r = b.claim(KEY, "host-b:2", null, TTL);

    assertEquals(Claims.Result.TAKEN, r.result(), "the younger of two fresh claims yields");
    assertEquals(FIRST_ID, r.claim().id());
    assertEquals("host-a:1", r.claim().writer());
    assertEquals(List.of(entry(KEY, FIRST_ID)), entries(KEY), "the yielding writer's entry removed");
    counted.readClaim(KEY);
    assertEquals(Map.of("LIST", 1, "GET", 1), requests.taken());
  }

  @Test
  void claim_twoWritersAtOnce_atLeastOneHoldsAndOnlyHoldersLeaveEntries() throws Exception {
    claimTogether(2);
  }

  @Test
  void claim_eightWritersAtOnce_atLeastOneHoldsAndOnlyHoldersLeaveEntries() throws Exception {
    claimTogether(8);
  }

  private void claimTogether(int writers) throws Exception {
    List<S3ObjectStore> stores = new ArrayList<>();
    for (int i = 0; i < writers; i++) {
      stores.add(store());
    }
    List<Claims.Claimed> results = Race.run(writers, i -> stores.get(i).claim(KEY, "host-" + i + ":1", null, TTL));
    List<String> held = results.stream().filter(c -> c.result() == Claims.Result.HELD).map(c -> c.claim().id())
        .toList();
    assertFalse(held.isEmpty(), "the oldest entry's writer always holds: " + results);
    assertEquals(entriesOf(held), entries(KEY), "every writer that yielded removed its entry");
  }

  @Test
  void claim_putRefused_throwsAndLeavesNoEntry() throws Exception {
    S3ObjectStore s = store(S3StoreOptions.defaults(), InterceptingHttpClient.answering(r -> { },
        r -> r.method().equals("PUT") ? new InterceptingHttpClient.ErrorReply(403, "AccessDenied") : null));

    assertThrows(IOException.class, () -> s.claim(KEY, "host-a:1", EXPECTED, TTL));

    assertEquals(List.of(), entries(KEY));
    assertEquals(Optional.empty(), store().readClaim(KEY));
  }

  @Test
  void claim_badArguments_refusedNothingWritten() throws Exception {
    S3ObjectStore s = store();
    assertThrows(IllegalArgumentException.class, () -> s.claim(KEY, "host-a:1", null, Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> s.claim(KEY, "", null, TTL));
    assertThrows(IllegalArgumentException.class, () -> s.claim("../escape", "host-a:1", null, TTL));
    IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
        () -> s.claim("orders/" + "x".repeat(1000), "host-a:1", null, TTL));
    assertTrue(tooLong.getMessage().contains("S3 keys stop at 1024"), tooLong.getMessage());
    assertEquals(List.of(), s3.client().listObjects(bucket, "p/", null, null, 1000).objects());
  }

  // --- renew and release

  @Test
  void renewClaim_newEntryOldOneDeletedWithOnePutAndOneDelete() throws Exception {
    Requests requests = new Requests();
    S3ObjectStore s = store(S3StoreOptions.defaults(), requests.client());
    Claim held = s.claim(KEY, "host-a:1", EXPECTED, TTL).claim();
    requests.taken();

    Claim renewed = s.renewClaim(held);

    assertEquals(Map.of("PUT", 1, "DELETE", 1), requests.taken());
    assertNotEquals(held.id(), renewed.id());
    assertEquals(held.started(), renewed.started());
    assertEquals(held.writer(), renewed.writer());
    assertEquals(List.of(entry(KEY, renewed.id())), entries(KEY));
    Claim read = store().readClaim(KEY).orElseThrow();
    assertEquals(renewed.id(), read.id());
    assertEquals(Optional.of(EXPECTED), read.expectedDuration());
  }

  @Test
  void renewClaim_entryRemovedMeanwhile_writtenAgain() throws Exception {
    S3ObjectStore s = store();
    Claim held = s.claim(KEY, "host-a:1", EXPECTED, TTL).claim();
    assertTrue(s.releaseClaim(held));
    Claim renewed = s.renewClaim(held);
    assertEquals(Optional.of(renewed.id()), s.readClaim(KEY).map(Claim::id));
  }

  @Test
  void releaseClaim_removesThatEntryOnly() throws Exception {
    Claim stale = store().claim(KEY, "host-a:1", EXPECTED, TTL).claim();
    S3ObjectStore anHourLater = storeWithServerClockMoved(Duration.ofHours(1));
    Claim mine = anHourLater.claim(KEY, "host-b:2", null, TTL).claim();
    assertEquals("host-b:2", mine.writer());

    assertTrue(anHourLater.releaseClaim(mine));
    assertFalse(anHourLater.releaseClaim(mine), "released twice: nothing there");

    assertEquals(Optional.of(stale.id()), store().readClaim(KEY).map(Claim::id));
  }

  @Test
  void releaseClaim_idNotOfThisStore_refused() {
    S3ObjectStore s = store();
    Claim forged = new Claim(KEY, "../../x", "host-a:1", Instant.EPOCH, null, Duration.ZERO);
    assertThrows(IllegalArgumentException.class, () -> s.releaseClaim(forged));
    Claim fsId = new Claim(KEY, "claim.0123456789ABCDEF", "host-a:1", Instant.EPOCH, null, Duration.ZERO);
    assertThrows(IllegalArgumentException.class, () -> s.releaseClaim(fsId));
  }

  // --- ages, by the server's clock

  @Test
  void readClaim_serverClockAhead_ageIsDateMinusLastModifiedLessTheResolution() throws Exception {
    Duration ahead = Duration.ofHours(1);
    Instant before = Instant.now();
    store().claim(KEY, "host-a:1", EXPECTED, TTL);

    Duration age = storeWithServerClockMoved(ahead).readClaim(KEY).orElseThrow().age();

    Duration elapsed = Duration.between(before, Instant.now());
    Duration resolution = Duration.ofSeconds(ClaimObjects.RESOLUTION_SECONDS);
    // Date and LastModified have whole seconds: each may be up to a second below the instant it names.
    assertTrue(age.compareTo(ahead.minus(resolution).minusSeconds(1)) >= 0, age.toString());
    assertTrue(age.compareTo(ahead.plus(elapsed).plusSeconds(1)) <= 0, age + " after " + elapsed);
    assertTrue(store().readClaim(KEY).orElseThrow().isFresh(TTL), "by the server's own Date, fresh");
  }

  @Test
  void readClaim_serverClockBehindItsStamp_ageZero() throws Exception {
    store().claim(KEY, "host-a:1", EXPECTED, TTL);
    assertEquals(Duration.ZERO, storeWithServerClockMoved(Duration.ofHours(-1)).readClaim(KEY).orElseThrow().age());
  }

  @Test
  void claim_writerAndReaderClocksFarOff_agesStillByTheServer() throws Exception {
    Clock yearsAhead = Clock.fixed(Instant.now().plus(Duration.ofDays(3650)), ZoneOffset.UTC);
    Clock yearsBehind = Clock.fixed(Instant.parse("2001-01-01T00:00:00Z"), ZoneOffset.UTC);
    S3ObjectStore a = store(S3StoreOptions.builder().clock(yearsBehind).build(), null);
    S3ObjectStore b = store(S3StoreOptions.builder().clock(yearsAhead).build(), null);

    Claim held = a.claim(KEY, "host-a:1", EXPECTED, TTL).claim();
    Claims.Claimed other = b.claim(KEY, "host-b:2", null, TTL);

    assertEquals(yearsBehind.instant(), held.started(), "the document says when its writer thinks it started");
    assertEquals(Claims.Result.TAKEN, other.result(), "a reader whose clock is years ahead still sees it fresh");
    assertTrue(other.claim().isFresh(TTL), other.claim().age().toString());
  }

  @Test
  void readClaim_replyWithoutDate_judgedByTheStoreClock() throws Exception {
    store().claim(KEY, "host-a:1", EXPECTED, TTL);
    DateShiftingHttpClient noDate = new DateShiftingHttpClient();
    noDate.dropDate();
    Clock anHourAhead = Clock.fixed(Instant.now().plus(Duration.ofHours(1)), ZoneOffset.UTC);
    Clock anHourBehind = Clock.fixed(Instant.now().minus(Duration.ofHours(1)), ZoneOffset.UTC);

    Claim late = store(S3StoreOptions.builder().clock(anHourAhead).build(), noDate).readClaim(KEY).orElseThrow();
    Claim early = store(S3StoreOptions.builder().clock(anHourBehind).build(), noDate).readClaim(KEY).orElseThrow();

    assertFalse(late.isFresh(TTL), late.age().toString());
    assertEquals(Duration.ZERO, early.age());
  }

  // --- reads

  @Test
  void readClaim_malformedUnreadableOrForeignEntries_treatedAsAbsent() throws Exception {
    writeEntry(KEY, "claim.0000000000000001", "not a claim\n".getBytes(StandardCharsets.UTF_8));
    writeEntry(KEY, "claim.0000000000000002", new byte[0]);
    writeEntry(KEY, "claim.0000000000000003", document(key(1_726_000_060L), "host-c:3"));
    byte[] whole = document(KEY, "host-c:3");
    writeEntry(KEY, "claim.0000000000000004", Arrays.copyOf(whole, whole.length - 1));
    byte[] large = new byte[Claim.MAX_DOCUMENT_BYTES + 1];
    System.arraycopy(whole, 0, large, 0, whole.length);
    writeEntry(KEY, "claim.0000000000000005", large);
    writeEntry(KEY, "claim-by-hand", whole);
    writeEntry(KEY, "claim.000000000000000G", whole);
    writeEntry(KEY + "/below", "claim.0000000000000006", whole);
    S3ObjectStore s = store();

    assertEquals(Optional.empty(), s.readClaim(KEY));
    assertEquals(List.of(), s.listClaims("orders/"));
    assertEquals(Claims.Result.HELD, s.claim(KEY, "host-b:2", null, TTL).result(), "bad entries never block");
  }

  @Test
  void readClaim_entryDeletedBetweenListAndGet_absent() throws Exception {
    Claim a = store().claim(KEY, "host-a:1", EXPECTED, TTL).claim();
    AtomicInteger deleted = new AtomicInteger();
    S3ObjectStore s = store(S3StoreOptions.defaults(), new InterceptingHttpClient(r -> {
      if (r.method().equals("GET") && InterceptingHttpClient.path(r).endsWith("/" + a.id())) {
        s3.client().delete(bucket, entry(KEY, a.id()));
        deleted.incrementAndGet();
      }
    }));

    assertEquals(Optional.empty(), s.readClaim(KEY));
    assertEquals(1, deleted.get());
    assertEquals(Claims.Result.HELD, s.claim(KEY, "host-b:2", null, TTL).result());
  }

  @Test
  void readClaim_documentRemembered_oneGetPerEntryNotPerRead() throws Exception {
    S3ObjectStore holder = store();
    Claim held = holder.claim(KEY, "host-a:1", EXPECTED, TTL).claim();
    Requests requests = new Requests();
    S3ObjectStore waiter = store(S3StoreOptions.defaults(), requests.client());

    waiter.readClaim(KEY);
    assertEquals(Map.of("LIST", 1, "GET", 1), requests.taken());
    assertEquals(held.id(), waiter.readClaim(KEY).orElseThrow().id());
    assertEquals(Map.of("LIST", 1), requests.taken(), "an entry is read once");

    Claim renewed = holder.renewClaim(held);
    assertEquals(renewed.id(), waiter.readClaim(KEY).orElseThrow().id());
    assertEquals(Map.of("LIST", 1, "GET", 1), requests.taken(), "a renewal is a new entry, read once");
  }

  @Test
  void readClaim_noClaims_emptyWithOneList() throws Exception {
    Requests requests = new Requests();
    S3ObjectStore s = store(S3StoreOptions.defaults(), requests.client());
    assertEquals(Optional.empty(), s.readClaim(KEY));
    assertEquals(Map.of("LIST", 1), requests.taken());
    assertEquals(List.of(), s.listClaims(""));
  }

  @Test
  void listClaims_prefix_everyClaimByKeyFreshestFirstStaleIncluded() throws Exception {
    S3ObjectStore s = store();
    String later = key(1_726_000_060L);
    String elsewhere = RunSpec.of("billing", new Window(1_726_000_000L, 60), 1).outputKey().toString();
    writeEntry(KEY, FIRST_ID, document(KEY, "host-a:1"));
    S3ObjectStore anHourLater = storeWithServerClockMoved(Duration.ofHours(1));
    Claim fresh = anHourLater.claim(KEY, "host-b:2", null, TTL).claim();
    Claim onLater = s.claim(later, "host-a:1", null, TTL).claim();
    s.claim(elsewhere, "host-a:1", null, TTL);

    List<String> ids = s.listClaims("orders/").stream().map(Claim::id).toList();

    assertEquals(List.of(fresh.id(), FIRST_ID, onLater.id()), ids);
    assertEquals(4, s.listClaims("").size());
    assertEquals(List.of(onLater.id()), s.listClaims(later).stream().map(Claim::id).toList());
    assertEquals(List.of(), s.listClaims("nothing-here/"));
  }

  @Test
  void listClaims_smallPages_everyEntryOnce() throws Exception {
    S3ObjectStore s = store(S3StoreOptions.builder().pageSize(2).build(), null);
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      keys.add(key(1_726_000_000L + 60L * i));
      s.claim(keys.get(i), "host-a:1", null, TTL);
    }
    assertEquals(keys, s.listClaims("orders/").stream().map(Claim::key).toList());
  }

  // --- the store and the waiting rule

  @Test
  void claims_storeReachedThroughAccessor() {
    S3ObjectStore s = store();
    assertEquals(Optional.of(s), s.claims());
  }

  @Test
  void claimWait_claimantPublishesThenReleases_waiterSkipsNamingIt() throws Exception {
    S3ObjectStore claimant = store();
    Claim held = claimant.claim(KEY, "host-a:1", EXPECTED, TTL).claim();
    CountDownLatch waiterSawTheClaim = new CountDownLatch(1);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<PutStatus> published = pool.submit(() -> {
        assertTrue(waiterSawTheClaim.await(2, TimeUnit.MINUTES), "the waiter never slept");
        PutStatus status = claimant.putIfAbsent(KEY, Payload.ofBytes("done".getBytes(StandardCharsets.UTF_8)),
            "host-a:1").status();
        claimant.releaseClaim(held);
        return status;
      });
      ClaimWait wait = ClaimWait.of(TTL, Duration.ofMinutes(2), Duration.ofMillis(20), System::nanoTime, d -> {
        waiterSawTheClaim.countDown();
        Thread.sleep(d.toMillis());
      });

      ClaimWait.Result r = wait.await(store(), KEY);

      assertEquals(PutStatus.CREATED, published.get());
      assertEquals(ClaimWait.Outcome.SKIP, r.outcome());
      assertEquals("host-a:1", r.lastClaim().orElseThrow().writer());
    } finally {
      pool.shutdownNow();
    }
  }
}
