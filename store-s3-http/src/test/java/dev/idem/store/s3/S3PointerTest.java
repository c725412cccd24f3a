package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.publish.AdvanceReport;
import dev.idem.core.publish.AdvanceStatus;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.store.s3.internal.client.ObjectSummary;
import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.testing.InterceptingHttpClient;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The two pointer modes against S3Proxy, beyond the shared contract: the log's reader, copy, sweep and races. */
class S3PointerTest {
  private static S3ProxyServer s3;
  private String bucket;

  @BeforeAll
  static void server() throws IOException {
    s3 = S3ProxyServer.shared();
  }

  @BeforeEach
  void bucket() throws IOException {
    bucket = s3.createBucket(true);
  }

  private S3ObjectStore open(PointerMode mode, int pageSize) {
    return S3ObjectStore.open(s3.location(bucket, "p"), s3.credentials(),
        S3StoreOptions.builder().pointerMode(mode).pageSize(pageSize).build());
  }

  private static Pointer publish(S3ObjectStore store, long windowStart, int schema) throws IOException {
    String k = RunSpec.of("orders", new Window(windowStart, 60), schema).outputKey().toString();
    store.putIfAbsent(k, Payload.ofBytes(("gen " + windowStart + "/" + schema).getBytes(StandardCharsets.UTF_8)),
        "host-a");
    return Pointer.to(store.stat(k).orElseThrow(), 60, schema, "host-a", Instant.EPOCH);
  }

  private List<ObjectSummary> logEntries() throws IOException {
    return s3.client().listObjects(bucket, "p/_idem/pointers/orders/log/", null, null, 1000).objects();
  }

  @Test
  void compareAndSetPointer_casMode_tokenIsEtagAndStaleEtagConflicts() throws IOException {
    try (S3ObjectStore store = open(PointerMode.CAS, 1000)) {
      assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", null, publish(store, 60, 1)));
      PointerState first = store.readPointer("orders").orElseThrow();
      assertEquals(s3.client().head(bucket, "p/_idem/pointers/orders/latest", null).orElseThrow().etag(), first.token());
      assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", first.token(), publish(store, 120, 1)));
      assertEquals(CasResult.CONFLICT, store.compareAndSetPointer("orders", first.token(), publish(store, 180, 1)));
      assertEquals(CasResult.CONFLICT, store.compareAndSetPointer("orders", "\"0123\"", publish(store, 180, 1)));
      assertEquals(120, store.readPointer("orders").orElseThrow().pointer().windowStart());
    }
  }

  @Test
  void compareAndSetPointer_logMode_entriesNumberedAndLatestCopied() throws IOException {
    try (S3ObjectStore store = open(PointerMode.LOG, 1000)) {
      Pointer a = publish(store, 60, 1);
      Pointer b = publish(store, 120, 1);
      assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", null, a));
      PointerState s1 = store.readPointer("orders").orElseThrow();
      assertEquals("1", s1.token());
      assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", "1", b));
      assertEquals(CasResult.CONFLICT, store.compareAndSetPointer("orders", "1", publish(store, 180, 1)));
      assertEquals(List.of("p/_idem/pointers/orders/log/00000000000000000001",
          "p/_idem/pointers/orders/log/00000000000000000002"), logEntries().stream().map(ObjectSummary::key).toList());
      byte[] latest = s3.client().getBytes(bucket, "p/_idem/pointers/orders/latest", 8192).orElseThrow().bytes();
      assertArrayEquals(b.toBytes(), latest, "plain readers see the newest document");
    }
  }

  @Test
  void readPointer_logModeFreshReaderLongLog_findsNewestPastFullPages() throws IOException {
    try (S3ObjectStore writer = open(PointerMode.LOG, 1000)) {
      Pointer p = publish(writer, 60, 1);
      String token = null;
      for (int i = 0; i < 23; i++) {
        Pointer next = publish(writer, 60L * (i + 1), 1);
        assertEquals(CasResult.SWAPPED, writer.compareAndSetPointer("orders", token, next));
        token = writer.readPointer("orders").orElseThrow().token();
        p = next;
      }
      assertEquals("23", token);
      try (S3ObjectStore reader = open(PointerMode.LOG, 4)) {
        PointerState s = reader.readPointer("orders").orElseThrow();
        assertEquals("23", s.token(), "a reader listing 4 entries per page gallops to the newest");
        assertEquals(p, s.pointer());
        assertEquals(CasResult.SWAPPED, writer.compareAndSetPointer("orders", "23", publish(writer, 24 * 60, 1)));
        assertEquals("24", reader.readPointer("orders").orElseThrow().token(), "its cached position moves on");
      }
    }
  }

  @Test
  void readPointer_logModeAfterCasMode_continuesFromLatest() throws IOException {
    try (S3ObjectStore cas = open(PointerMode.CAS, 1000); S3ObjectStore log = open(PointerMode.LOG, 1000)) {
      Pointer a = publish(cas, 60, 1);
      cas.compareAndSetPointer("orders", null, a);
      PointerState bootstrapped = log.readPointer("orders").orElseThrow();
      assertEquals("0", bootstrapped.token());
      assertEquals(a, bootstrapped.pointer());
      assertEquals(AdvanceStatus.ADVANCED, new PointerAdvancer(log).advance(publish(log, 120, 1)).status());
      assertEquals("1", log.readPointer("orders").orElseThrow().token());
      assertEquals(120, cas.readPointer("orders").orElseThrow().pointer().windowStart(), "the copy serves CAS readers");
    }
  }

  @Test
  void compareAndSetPointer_logModeCasToken_rejected() throws IOException {
    try (S3ObjectStore store = open(PointerMode.LOG, 1000)) {
      Pointer a = publish(store, 60, 1);
      assertThrows(IllegalArgumentException.class, () -> store.compareAndSetPointer("orders", "\"etag\"", a));
      assertTrue(logEntries().isEmpty());
    }
  }

  @Test
  void readPointer_malformedDocument_cleanError() throws IOException {
    try (S3ObjectStore store = open(PointerMode.CAS, 1000)) {
      s3.client().put(bucket, "p/_idem/pointers/orders/latest",
          RequestBody.ofBytes("not a pointer\n".getBytes(StandardCharsets.UTF_8)), null, Map.of());
      Pointer.MalformedPointerException e =
          assertThrows(Pointer.MalformedPointerException.class, () -> store.readPointer("orders"));
      assertTrue(e.getMessage().contains("_idem/pointers/orders/latest"), e.getMessage());
    }
  }

  /** A pointer of pipeline {@code other} where {@code orders}' pointer belongs: refused, as on the filesystem. */
  @Test
  void readPointer_documentOfAnotherPipeline_refusedInBothModes() throws IOException {
    String other = RunSpec.of("other", new Window(60, 60), 1).outputKey().toString();
    byte[] doc = new Pointer("other", other, 60, 60, 1, dev.idem.core.Sha256.EMPTY, 0, "host-a", Instant.EPOCH).toBytes();
    s3.client().put(bucket, "p/_idem/pointers/orders/latest", RequestBody.ofBytes(doc), null, Map.of());
    s3.client().put(bucket, "p/_idem/pointers/orders/log/00000000000000000001", RequestBody.ofBytes(doc), null, Map.of());
    for (PointerMode mode : PointerMode.values()) {
      try (S3ObjectStore store = open(mode, 1000)) {
        Pointer.MalformedPointerException e =
            assertThrows(Pointer.MalformedPointerException.class, () -> store.readPointer("orders"), mode.toString());
        assertTrue(e.getMessage().endsWith("_idem/pointers/orders/" + (mode == PointerMode.CAS ? "latest" : "log/"
            + "00000000000000000001") + ": names pipeline other, not orders"), e.getMessage());
      }
    }
  }

  @Test
  void advance_logModeEightThreads_noLostUpdateNoRegression() throws Exception {
    int threads = 8;
    List<Pointer> offered = new ArrayList<>();
    try (S3ObjectStore setup = open(PointerMode.LOG, 1000)) {
      for (int i = 0; i < threads * 4; i++) {
        offered.add(publish(setup, 60L * (1 + (i * 13) % (threads * 4)), 1));
      }
    }
    List<AdvanceReport> reports = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int first = t;
      futures.add(pool.submit(() -> {
        // each thread its own store, as separate replicas would be
        try (S3ObjectStore store = open(PointerMode.LOG, 1000)) {
          PointerAdvancer adv = new PointerAdvancer(store, 1000, 1);
          go.await();
          for (int j = first; j < offered.size(); j += threads) {
            reports.add(adv.advance(offered.get(j)));
          }
        }
        return null;
      }));
    }
    go.countDown();
    for (Future<?> f : futures) {
      f.get(120, TimeUnit.SECONDS);
    }
    pool.shutdown();
    try (S3ObjectStore reader = open(PointerMode.LOG, 1000)) {
      Pointer.Position max = offered.stream().map(Pointer::position).max(Pointer.Position::compareTo).orElseThrow();
      assertEquals(max, reader.readPointer("orders").orElseThrow().pointer().position(), "G3: " + reports);
      assertFalse(reports.stream().anyMatch(r -> r.status().gaveUp()));
      List<Pointer.Position> chain = new ArrayList<>();
      for (ObjectSummary e : logEntries()) {
        byte[] doc = s3.client().getBytes(bucket, e.key(), 8192).orElseThrow().bytes();
        chain.add(Pointer.parse(doc, e.key()).position());
      }
      for (int i = 1; i < chain.size(); i++) {
        assertTrue(chain.get(i - 1).compareTo(chain.get(i)) < 0, "G2: the log only moves forward: " + chain);
      }
      long advanced = reports.stream().filter(r -> r.status() == AdvanceStatus.ADVANCED).count();
      assertEquals(advanced, chain.size(), "every ADVANCED is one entry, none lost: " + reports);
    }
  }

  @Test
  void sweep_logEntries_keepsNewestFewDeletesOlder() throws IOException {
    try (S3ObjectStore store = S3ObjectStore.open(s3.location(bucket, "p"), s3.credentials(),
        S3StoreOptions.builder().pointerMode(PointerMode.LOG).logEntriesKept(3).build())) {
      PointerAdvancer adv = new PointerAdvancer(store);
      for (int i = 1; i <= 8; i++) {
        adv.advance(publish(store, 60L * i, 1));
      }
      assertEquals(List.of(), store.sweep(Duration.ofHours(1), false), "entries younger than the grace stay");
      List<String> dry = store.sweep(Duration.ZERO, true);
      assertEquals(5, dry.size(), dry.toString());
      assertEquals(8, logEntries().size());
      List<String> done = store.sweep(Duration.ZERO, false);
      assertTrue(done.get(0).startsWith("deleted superseded pointer-log entry _idem/pointers/orders/log/00000000000000000001"),
          done.toString());
      assertEquals(List.of("p/_idem/pointers/orders/log/00000000000000000006",
          "p/_idem/pointers/orders/log/00000000000000000007", "p/_idem/pointers/orders/log/00000000000000000008"),
          logEntries().stream().map(ObjectSummary::key).toList());
      assertEquals("8", store.readPointer("orders").orElseThrow().token());
      assertEquals(AdvanceStatus.ADVANCED, adv.advance(publish(store, 60L * 9, 1)).status());
      try (S3ObjectStore fresh = open(PointerMode.LOG, 2)) {
        assertEquals("9", fresh.readPointer("orders").orElseThrow().token(), "a fresh reader after a sweep");
      }
    }
  }

  private S3ObjectStore openLog(int kept) {
    return S3ObjectStore.open(s3.location(bucket, "p"), s3.credentials(),
        S3StoreOptions.builder().pointerMode(PointerMode.LOG).logEntriesKept(kept).build());
  }

  private Pointer plainCopy() throws IOException {
    byte[] doc = s3.client().getBytes(bucket, "p/_idem/pointers/orders/latest", 8192).orElseThrow().bytes();
    return Pointer.parse(doc, "latest");
  }

  /**
   * Waits (on the server's own clock, not a sleep) until an object written now is stamped later than
   * every log entry: a stalled writer's create comes after the newer entries by at least the server's
   * timestamp resolution in life, where the stall outlasts the gc grace.
   */
  private void awaitServerClockPastTheLog() throws IOException {
    Instant newest = logEntries().stream().map(ObjectSummary::lastModified).max(Instant::compareTo).orElseThrow();
    for (int probe = 0; probe < 10_000; probe++) {
      s3.client().put(bucket, "clock-probe", RequestBody.ofBytes(new byte[0]), null, Map.of());
      if (s3.client().head(bucket, "clock-probe", null).orElseThrow().lastModified().isAfter(newest)) {
        return;
      }
    }
    throw new AssertionError("the server's clock did not pass " + newest);
  }

  @Test
  void advance_logModeWriterStalledPastASweep_conflictThenNewerPresentLogAndCopyStayAtHead() throws Exception {
    try (S3ObjectStore stalled = openLog(2); S3ObjectStore others = openLog(2)) {
      PointerAdvancer othersAdvance = new PointerAdvancer(others);
      assertEquals(AdvanceStatus.ADVANCED, othersAdvance.advance(publish(others, 60, 1)).status());
      Pointer late = publish(stalled, 90, 1);
      List<String> swept = new ArrayList<>();
      // The stalled writer reads entry 1, then (before its create) three newer advances and a sweep run.
      ForwardingObjectStore pausing = new ForwardingObjectStore(stalled) {
        private boolean paused;

        @Override
        public Optional<PointerState> readPointer(String pipeline) throws IOException {
          Optional<PointerState> read = super.readPointer(pipeline);
          if (!paused) {
            paused = true;
            for (long w = 120; w <= 240; w += 60) {
              assertEquals(AdvanceStatus.ADVANCED, othersAdvance.advance(publish(others, w, 1)).status());
            }
            swept.addAll(others.sweep(Duration.ZERO, false));
            awaitServerClockPastTheLog();
          }
          return read;
        }
      };

      AdvanceReport r = new PointerAdvancer(pausing).advance(late);

      assertEquals(2, swept.size(), "entries 1 and 2 swept: " + swept);
      assertEquals(AdvanceStatus.NEWER_PRESENT, r.status(), r.toString());
      assertEquals(1, r.attempts(), "one compare-and-swap (CONFLICT on the re-created entry 2), then the head was read: " + r);
      assertEquals(240, r.current().windowStart());
      try (S3ObjectStore reader = openLog(2)) {
        assertEquals(240, reader.readPointer("orders").orElseThrow().pointer().windowStart(), "log readers");
      }
      assertEquals(240, plainCopy().windowStart(), "the plain copy was not moved back");
      assertEquals(240, stalled.readPointer("orders").orElseThrow().pointer().windowStart(), "the stalled writer's own view");
    }
  }

  @Test
  void compareAndSetPointer_logModeEntryBelowNewerOnes_conflictAndCopyUntouched() throws IOException {
    try (S3ObjectStore store = openLog(1)) {
      for (long w = 60; w <= 180; w += 60) {
        assertEquals(AdvanceStatus.ADVANCED, new PointerAdvancer(store).advance(publish(store, w, 1)).status());
      }
      store.sweep(Duration.ZERO, false);
      assertEquals(List.of("p/_idem/pointers/orders/log/00000000000000000003"),
          logEntries().stream().map(ObjectSummary::key).toList());
      awaitServerClockPastTheLog();

      assertEquals(CasResult.CONFLICT, store.compareAndSetPointer("orders", "1", publish(store, 90, 1)));

      assertEquals(2, logEntries().size(), "the re-created entry 2 is left for the next sweep");
      assertEquals(180, store.readPointer("orders").orElseThrow().pointer().windowStart());
      assertEquals(180, plainCopy().windowStart());
    }
  }

  @Test
  void compareAndSetPointer_logModeCopyAlreadyAhead_copyNotMovedBack() throws IOException {
    try (S3ObjectStore store = openLog(3)) {
      Pointer ahead = publish(store, 600, 1);
      // What a later advance's copy looks like when it lands before this one's.
      s3.client().put(bucket, "p/_idem/pointers/orders/latest", RequestBody.ofBytes(ahead.toBytes()), null, Map.of());

      assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", null, publish(store, 60, 1)));

      assertEquals(600, plainCopy().windowStart(), "the copy only moves forward");
      assertEquals(60, store.readPointer("orders").orElseThrow().pointer().windowStart(), "the log is the truth");
      assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", "1", publish(store, 660, 1)));
      assertEquals(660, plainCopy().windowStart());
    }
  }

  @Test
  void compareAndSetPointer_logModeMalformedCopy_replaced() throws IOException {
    try (S3ObjectStore store = openLog(3)) {
      s3.client().put(bucket, "p/_idem/pointers/orders/latest",
          RequestBody.ofBytes("not a pointer\n".getBytes(StandardCharsets.UTF_8)), null, Map.of());

      assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", null, publish(store, 60, 1)));

      assertEquals(60, plainCopy().windowStart());
    }
  }

  /** The pointer to {@code to} that an operator's rewind from {@code from} writes. */
  private static Pointer rewound(Pointer to, Pointer from) {
    return to.withRewind(new Pointer.Rewind(from.key(), to.key(), "ops-alice", Instant.parse("2026-12-02T15:40:08Z"),
        "INC-42: bad rows"));
  }

  @Test
  void compareAndSetPointer_logModeRewind_copyFollowsItThenMovesForwardAgain() throws IOException {
    try (S3ObjectStore store = openLog(3)) {
      Pointer a = publish(store, 60, 1);
      Pointer b = publish(store, 120, 1);
      assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", null, a));
      assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", "1", b));
      assertEquals(120, plainCopy().windowStart());

      Pointer back = rewound(a, b);
      assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", "2", back));

      assertEquals(back, plainCopy(), "plain readers get the generation the operator rewound to");
      Pointer c = publish(store, 180, 1).withRewind(back.rewind());
      assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", "3", c));
      assertEquals(c, plainCopy(), "and forward from there");
    }
  }

  /**
   * A writer that created its entry before the rewind and copies after it: the rewind's copy stays.
   * The writer's read of the copy waits until the rewind has swapped and copied.
   */
  @Test
  void compareAndSetPointer_logModeForwardWriterCopiesAfterARewind_copyStaysRewound() throws Exception {
    CountDownLatch atCopy = new CountDownLatch(1);
    CountDownLatch rewindDone = new CountDownLatch(1);
    InterceptingHttpClient http = new InterceptingHttpClient(request -> {
      if ("GET".equals(request.method()) && request.uri().getPath().endsWith("/_idem/pointers/orders/latest")) {
        atCopy.countDown();
        if (!rewindDone.await(60, TimeUnit.SECONDS)) {
          throw new IOException("the rewind did not finish");
        }
      }
    });
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (S3ObjectStore late = S3ObjectStore.open(s3.clientBuilder().httpClient(http).build(), s3.location(bucket, "p"),
            S3StoreOptions.builder().pointerMode(PointerMode.LOG).build());
        S3ObjectStore operator = openLog(3)) {
      Pointer a = publish(operator, 60, 1);
      Pointer b = publish(operator, 120, 1);
      assertEquals(CasResult.SWAPPED, operator.compareAndSetPointer("orders", null, a));
      Future<CasResult> forward = pool.submit(() -> late.compareAndSetPointer("orders", "1", b));
      assertTrue(atCopy.await(60, TimeUnit.SECONDS), "the forward writer reached its copy");

      PointerState head = operator.readPointer("orders").orElseThrow();
      assertEquals(b, head.pointer());
      Pointer back = rewound(a, b);
      assertEquals(CasResult.SWAPPED, operator.compareAndSetPointer("orders", head.token(), back));
      rewindDone.countDown();

      assertEquals(CasResult.SWAPPED, forward.get(60, TimeUnit.SECONDS));
      assertEquals(back, plainCopy(), "the late forward copy did not undo the rewind");
      assertEquals(back, operator.readPointer("orders").orElseThrow().pointer(), "the log's head");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void compareAndSetPointer_logModeCopyWithoutEntryNumber_replacedByARewindNotByAnOlderPosition() throws IOException {
    try (S3ObjectStore store = openLog(3)) {
      Pointer a = publish(store, 60, 1);
      Pointer b = publish(store, 120, 1);
      // A copy an earlier release (or cas mode) wrote: no entry number on it.
      s3.client().put(bucket, "p/_idem/pointers/orders/latest", RequestBody.ofBytes(b.toBytes()), null, Map.of());
      assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", null, a));
      assertEquals(b, plainCopy(), "a forward entry behind the copy's position leaves it");

      assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", "1", rewound(a, b)));

      assertEquals(rewound(a, b), plainCopy(), "the rewind's entry replaces it");
      assertEquals("2", s3.client().head(bucket, "p/_idem/pointers/orders/latest", null).orElseThrow()
          .meta(LogPointers.COPIED_FROM), "and the copy now names its entry");
    }
  }
}
