package dev.idem.core.publish;

import dev.idem.core.Idem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PublisherTest {
  private final InMemoryObjectStore store = new InMemoryObjectStore();
  private final RunSpec spec = RunSpec.of("border-state", new Window(1_726_000_000L, 60), 3);

  private static Publisher.Task producing(String s, AtomicInteger runs) {
    return (sp, key) -> {
      runs.incrementAndGet();
      return Payload.ofBytes(s.getBytes(StandardCharsets.UTF_8));
    };
  }

  @Test
  void publish_overlappingReplicas_convergeToOneObject() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    PublishReport old = Idem.publisher(store).writer("old-replica").build().publish(spec, producing("state", runs));
    PublishReport neu = Idem.publisher(store).writer("new-replica").build().publish(spec, producing("state", runs));
    assertEquals(PublishStatus.CREATED, old.status());
    assertEquals(PublishStatus.SKIPPED, neu.status());
    assertEquals(1, runs.get(), "P5: the second replica must not run the task");
    List<String> keys = new ArrayList<>();
    store.list("", o -> keys.add(o.key()));
    assertEquals(List.of(spec.outputKey().toString()), keys, "overlap converges to one export");
    assertEquals(AdvanceStatus.ADVANCED, old.pointer().status());
    assertEquals(AdvanceStatus.ALREADY_CURRENT, neu.pointer().status());
  }

  /** A store on a filesystem with {@code free} bytes left. */
  private ObjectStore withFree(long free) {
    return new ForwardingObjectStore(store) {
      @Override
      public java.util.OptionalLong usableSpace() {
        return java.util.OptionalLong.of(free);
      }
    };
  }

  @Test
  void publish_lessFreeThanTheReserve_refusedBeforeTheTaskRuns() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    Publisher p = Idem.publisher(withFree(1000)).writer("w").minFree(4096).build();

    InsufficientSpaceException e = assertThrows(InsufficientSpaceException.class,
        () -> p.publish(spec, producing("state", runs)));

    assertEquals(0, runs.get(), "a full store costs no task run");
    assertEquals(1000, e.free());
    assertEquals(4096, e.needed());
    assertTrue(e.getMessage().contains("1000 bytes free") && e.getMessage().contains("the task was not run"),
        e.getMessage());
    assertFalse(store.exists(spec.outputKey().toString()));
  }

  @Test
  void publish_resultLargerThanTheFreeSpace_refusedBeforeAnythingIsWritten() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    Publisher p = Idem.publisher(withFree(3)).writer("w").build();

    InsufficientSpaceException e = assertThrows(InsufficientSpaceException.class,
        () -> p.publish(spec, producing("state", runs)));

    assertEquals(1, runs.get());
    assertEquals(5, e.needed());
    assertTrue(e.getMessage().contains("the result is 5 bytes"), e.getMessage());
    assertFalse(store.exists(spec.outputKey().toString()));
    assertThrows(InsufficientSpaceException.class,
        () -> p.publish(spec, Payload.ofBytes("state".getBytes(StandardCharsets.UTF_8))));
    assertEquals(PublishStatus.CREATED, Idem.publisher(withFree(5)).writer("w").minFree(5).build()
        .publish(spec, producing("state", runs)).status(), "room enough: published");
  }

  @Test
  void publish_storeThatCannotTellItsFreeSpace_notChecked() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    assertEquals(PublishStatus.CREATED, Idem.publisher(store).writer("w").minFree(Long.MAX_VALUE).build()
        .publish(spec, producing("state", runs)).status());
  }

  @Test
  void publish_noReserve_asksForTheFreeSpaceOnlyForANonEmptyResult() throws Exception {
    AtomicInteger asked = new AtomicInteger();
    ObjectStore counting = new ForwardingObjectStore(store) {
      @Override
      public java.util.OptionalLong usableSpace() {
        asked.incrementAndGet();
        return java.util.OptionalLong.of(1L << 40);
      }
    };
    Publisher p = Idem.publisher(counting).writer("w").minFree(0).allowEmptyResults().build();

    assertEquals(PublishStatus.CREATED, p.publish(spec, producing("state", new AtomicInteger())).status());
    assertEquals(1, asked.get(), "the result's size checked, no reserve");
    RunSpec next = RunSpec.of("border-state", new Window(1_726_000_060L, 60), 3);
    assertEquals(PublishStatus.CREATED, p.publish(next, (sp, key) -> Payload.ofBytes(new byte[0])).status());
    assertEquals(1, asked.get(), "an empty result needs no room");
  }

  @Test
  void publish_keyAppearsWhileTaskRuns_identical() throws Exception {
    Publisher a = Idem.publisher(store).writer("replica-a").build();
    PublishReport r = a.publish(spec, (sp, key) -> {
      // The other replica publishes while this one is still working.
      Idem.publisher(store).writer("replica-b").build().publish(sp, Payload.ofBytes("state".getBytes(StandardCharsets.UTF_8)));
      return Payload.ofBytes("state".getBytes(StandardCharsets.UTF_8));
    });
    assertEquals(PublishStatus.IDENTICAL, r.status());
    assertFalse(r.divergent());
  }

  @Test
  void publish_keyAppearsWithOtherBytes_divergentFirstKept() throws Exception {
    PublishReport r = Idem.publisher(store).writer("replica-a").build().publish(spec, (sp, key) -> {
      Idem.publisher(store).writer("replica-b").build().publish(sp, Payload.ofBytes("theirs".getBytes(StandardCharsets.UTF_8)));
      return Payload.ofBytes("mine".getBytes(StandardCharsets.UTF_8));
    });
    assertEquals(PublishStatus.DIVERGENT, r.status());
    assertTrue(r.divergent());
    assertEquals("replica-b", r.stored().writer());
    assertEquals(Payload.ofBytes("theirs".getBytes(StandardCharsets.UTF_8)).sha256(),
        store.readPointer("border-state").orElseThrow().pointer().sha256(), "pointer names the stored bytes");
  }

  @Test
  void publish_taskFails_nothingPublishedPointerUntouched() throws IOException {
    TaskFailedException e = assertThrows(TaskFailedException.class, () ->
        Idem.publisher(store).writer("w").build().publish(spec, (sp, key) -> {
          throw new IllegalStateException("upstream unavailable");
        }));
    assertTrue(e.getMessage().contains("upstream unavailable"), e.getMessage());
    assertFalse(store.exists(spec.outputKey().toString()));
    assertTrue(store.readPointer("border-state").isEmpty());
  }

  @Test
  void publish_taskInterrupted_reportedAsInterrupted() {
    TaskFailedException e = assertThrows(TaskFailedException.class, () ->
        Idem.publisher(store).writer("w").build().publish(spec, (sp, key) -> {
          throw new InterruptedException("SIGTERM");
        }));
    assertTrue(e.getMessage().contains("interrupted"), e.getMessage());
    assertTrue(Thread.interrupted(), "interrupt status restored");
  }

  @Test
  void publish_skipAfterCrashBeforeAdvance_completesPointer() throws Exception {
    // A first replica published, then died before advancing the pointer.
    store.putIfAbsent(spec.outputKey().toString(), Payload.ofBytes("state".getBytes(StandardCharsets.UTF_8)), "dead-replica");
    AtomicInteger runs = new AtomicInteger();
    PublishReport r = Idem.publisher(store).writer("next-replica").build().publish(spec, producing("state", runs));
    assertEquals(PublishStatus.SKIPPED, r.status());
    assertEquals(0, runs.get());
    assertEquals(AdvanceStatus.ADVANCED, r.pointer().status());
    assertEquals("dead-replica", store.readPointer("border-state").orElseThrow().pointer().writer());
  }

  @Test
  void publish_oldReplicaLate_neverRegressesPointer() throws Exception {
    RunSpec next = RunSpec.of("border-state", spec.window().next(), 3);
    Idem.publisher(store).writer("new").build().publish(next, Payload.ofBytes("n".getBytes(StandardCharsets.UTF_8)));
    PublishReport late = Idem.publisher(store).writer("old").build().publish(spec, Payload.ofBytes("o".getBytes(StandardCharsets.UTF_8)));
    assertEquals(PublishStatus.CREATED, late.status());
    assertEquals(AdvanceStatus.NEWER_PRESENT, late.pointer().status());
    assertEquals(next.outputKey().toString(), store.readPointer("border-state").orElseThrow().pointer().key());
  }

  @Test
  void publish_newSchemaMidDeploy_differentKeyAndPointerMovesForward() throws Exception {
    RunSpec v4 = RunSpec.of("border-state", spec.window(), 4);
    Idem.publisher(store).writer("old").build().publish(spec, Payload.ofBytes("v3".getBytes(StandardCharsets.UTF_8)));
    PublishReport r = Idem.publisher(store).writer("new").build().publish(v4, Payload.ofBytes("v4".getBytes(StandardCharsets.UTF_8)));
    assertEquals(PublishStatus.CREATED, r.status(), "a new format gets its own key");
    assertEquals(AdvanceStatus.ADVANCED, r.pointer().status());
  }

  @Test
  void publish_pointerOff_noAdvance() throws Exception {
    Publisher p = Idem.publisher(store).writer("w").clock(Clock.systemUTC()).withoutPointer().build();
    PublishReport r = p.publish(spec, Payload.ofBytes("x".getBytes(StandardCharsets.UTF_8)));
    assertNull(r.pointer());
    assertTrue(store.readPointer("border-state").isEmpty());
  }

  @Test
  void publish_invalidWriter_rejectedAtConstruction() {
    assertThrows(IllegalArgumentException.class, () -> Idem.publisher(store).writer("has space").build());
  }

  @Test
  void advance_pointerToMissingObject_refusedNothingWritten() throws IOException {
    Pointer p = new Pointer("border-state", spec.outputKey().toString(), spec.window().startEpochSecond(), 60, 3,
        "ab".repeat(32), 3, "w", Instant.EPOCH);
    assertThrows(IllegalArgumentException.class, () -> new PointerAdvancer(store).advance(p));
    assertTrue(store.readPointer("border-state").isEmpty(), "G1");
  }

  @Test
  void advance_pointerWithWrongHash_refused() throws IOException {
    store.putIfAbsent(spec.outputKey().toString(), Payload.ofBytes("abc".getBytes(StandardCharsets.UTF_8)), "w");
    Pointer p = new Pointer("border-state", spec.outputKey().toString(), spec.window().startEpochSecond(), 60, 3,
        "ab".repeat(32), 3, "w", Instant.EPOCH);
    assertThrows(IllegalArgumentException.class, () -> new PointerAdvancer(store).advance(p));
  }

  @Test
  void advance_storeAlwaysBusy_busyAfterAttempts() throws IOException {
    ObjectStore busy = new ForwardingObjectStore(store) {
      @Override
      public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) {
        return CasResult.BUSY;
      }
    };
    store.putIfAbsent(spec.outputKey().toString(), Payload.ofBytes("abc".getBytes(StandardCharsets.UTF_8)), "w");
    Pointer p = Pointer.to(store.stat(spec.outputKey().toString()).orElseThrow(), 60, 3, "w", Instant.EPOCH);
    AdvanceReport r = new PointerAdvancer(busy, 4, 0).advance(p);
    assertEquals(AdvanceStatus.BUSY, r.status());
    assertEquals(4, r.attempts());
    assertTrue(store.readPointer("border-state").isEmpty());
  }

  @Test
  void publish_skipAndCreate_askTheStoreForMetadataOnlyWhenItHasNone() throws Exception {
    java.util.concurrent.atomic.AtomicInteger stats = new java.util.concurrent.atomic.AtomicInteger();
    ObjectStore counting = new ForwardingObjectStore(store) {
      @Override
      public java.util.Optional<dev.idem.core.store.ObjectInfo> stat(String key) throws IOException {
        stats.incrementAndGet();
        return super.stat(key);
      }
    };
    Publisher p = Idem.publisher(counting).writer("w").build();
    assertEquals(PublishStatus.CREATED, p.publish(spec, Payload.ofBytes("x".getBytes(StandardCharsets.UTF_8))).status());
    assertEquals(0, stats.get(), "putIfAbsent already reported the stored object");
    RunSpec unpointed = RunSpec.of("border-state", spec.window().next(), 3);
    Idem.publisher(store).writer("w").withoutPointer().build()
        .publish(unpointed, Payload.ofBytes("y".getBytes(StandardCharsets.UTF_8)));
    assertEquals(PublishStatus.SKIPPED, p.publish(unpointed, producing("y", new AtomicInteger())).status());
    assertEquals(1, stats.get(), "a skip the pointer does not vouch for reads the stored object once");
  }

  /** Records the store calls a publish makes, by method name. */
  private static final class Recording extends ForwardingObjectStore {
    final List<String> calls = new ArrayList<>();
    private final java.util.function.Function<String, java.util.Optional<Pointer>> peek;

    Recording(ObjectStore d, java.util.function.Function<String, java.util.Optional<Pointer>> peek) {
      super(d);
      this.peek = peek;
    }

    @Override
    public java.util.Optional<Pointer> peekPointer(String pipeline) throws IOException {
      calls.add("peekPointer");
      return peek == null ? super.peekPointer(pipeline) : peek.apply(pipeline);
    }

    @Override
    public java.util.Optional<dev.idem.core.store.ObjectInfo> stat(String key) throws IOException {
      calls.add("stat");
      return super.stat(key);
    }

    @Override
    public java.util.Optional<dev.idem.core.store.PointerState> readPointer(String pipeline) throws IOException {
      calls.add("readPointer");
      return super.readPointer(pipeline);
    }

    @Override
    public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) throws IOException {
      calls.add("compareAndSetPointer");
      return super.compareAndSetPointer(pipeline, expectedToken, next);
    }

    @Override
    public dev.idem.core.store.PutOutcome putIfAbsent(String key, Payload payload, String writerId) throws IOException {
      calls.add("putIfAbsent");
      return super.putIfAbsent(key, payload, writerId);
    }

    @Override
    public void checkWritable() throws IOException {
      calls.add("checkWritable");
      super.checkWritable();
    }
  }

  @Test
  void publish_pointerNamesTheKey_skippedOnOneReadAsTheAdvanceWouldReport() throws Exception {
    PublishReport first = Idem.publisher(store).writer("old-replica").build()
        .publish(spec, Payload.ofBytes("state".getBytes(StandardCharsets.UTF_8)));
    Recording recording = new Recording(store, null);
    AtomicInteger runs = new AtomicInteger();
    PublishReport r = Idem.publisher(recording).writer("new-replica").build().publish(spec, producing("state", runs));
    assertEquals(List.of("peekPointer"), recording.calls, "the pointer names the key: nothing else to read or write");
    assertEquals(0, runs.get());
    assertEquals(PublishStatus.SKIPPED, r.status());
    assertEquals(first.stored(), r.stored(), "the stored object as the pointer describes it");
    assertEquals(AdvanceStatus.ALREADY_CURRENT, r.pointer().status());
    assertEquals(store.readPointer("border-state").orElseThrow().pointer(), r.pointer().current());
    assertEquals(first.pointer().requested().key(), r.pointer().requested().key());
  }

  @Test
  void publish_peekLagsThePointer_theKeyItselfDecides() throws Exception {
    RunSpec previous = RunSpec.of("border-state", new Window(spec.window().startEpochSecond() - 60, 60), 3);
    Pointer behind = Idem.publisher(store).writer("w").build()
        .publish(previous, Payload.ofBytes("p".getBytes(StandardCharsets.UTF_8))).pointer().current();
    Idem.publisher(store).writer("w").build().publish(spec, Payload.ofBytes("state".getBytes(StandardCharsets.UTF_8)));
    // A copy for plain readers that has not caught up yet still names the previous window.
    Recording lagging = new Recording(store, pipeline -> java.util.Optional.of(behind));
    PublishReport r = Idem.publisher(lagging).writer("w2").build().publish(spec, producing("state", new AtomicInteger()));
    assertEquals(PublishStatus.SKIPPED, r.status());
    assertEquals(List.of("peekPointer", "stat", "readPointer"), lagging.calls);
    assertEquals(AdvanceStatus.ALREADY_CURRENT, r.pointer().status());
  }

  @Test
  void publish_peekNamesTheKeyUnderAnotherSchema_notTrusted() throws Exception {
    Pointer odd = Idem.publisher(store).writer("w").build()
        .publish(spec, Payload.ofBytes("state".getBytes(StandardCharsets.UTF_8))).pointer().current();
    Pointer otherSchema = new Pointer(odd.pipeline(), odd.key(), odd.windowStart(), odd.windowLength(), 4, odd.sha256(),
        odd.size(), odd.writer(), odd.publishedAt());
    Recording recording = new Recording(store, pipeline -> java.util.Optional.of(otherSchema));
    PublishReport r = Idem.publisher(recording).writer("w2").build().publish(spec, producing("state", new AtomicInteger()));
    assertEquals(PublishStatus.SKIPPED, r.status());
    assertEquals(List.of("peekPointer", "stat", "readPointer"), recording.calls);
  }

  @Test
  void publish_newKey_peeksOnceThenPublishesAsBefore() throws Exception {
    Recording recording = new Recording(store, null);
    PublishReport r = Idem.publisher(recording).writer("w").build().publish(spec, producing("state", new AtomicInteger()));
    assertEquals(PublishStatus.CREATED, r.status());
    assertEquals(List.of("peekPointer", "stat", "checkWritable", "putIfAbsent", "readPointer", "compareAndSetPointer"),
        recording.calls);
  }

  @Test
  void publish_afterRunningTheTask_nextWindowLooksAtTheKeyFirst_afterASkip_atThePointer() throws Exception {
    Recording recording = new Recording(store, null);
    Publisher p = Idem.publisher(recording).writer("w").build();
    RunSpec second = RunSpec.of("border-state", spec.window().next(), 3);
    RunSpec third = RunSpec.of("border-state", second.window().next(), 3);
    assertEquals(PublishStatus.CREATED, p.publish(spec, producing("1", new AtomicInteger())).status());
    recording.calls.clear();
    assertEquals(PublishStatus.CREATED, p.publish(second, producing("2", new AtomicInteger())).status());
    assertEquals("stat", recording.calls.get(0), "a replica that ran its last window starts from the key");
    Idem.publisher(store).writer("other").build().publish(third, producing("3", new AtomicInteger()));
    recording.calls.clear();
    assertEquals(PublishStatus.SKIPPED, p.publish(third, producing("3", new AtomicInteger())).status());
    assertEquals(List.of("stat", "readPointer"), recording.calls);
    RunSpec fourth = RunSpec.of("border-state", third.window().next(), 3);
    Idem.publisher(store).writer("other").build().publish(fourth, producing("4", new AtomicInteger()));
    recording.calls.clear();
    assertEquals(PublishStatus.SKIPPED, p.publish(fourth, producing("4", new AtomicInteger())).status());
    assertEquals(List.of("peekPointer"), recording.calls, "after a skip, the pointer first again");
  }

  @Test
  void publish_withoutPointer_neverPeeks() throws Exception {
    Idem.publisher(store).writer("w").build().publish(spec, Payload.ofBytes("state".getBytes(StandardCharsets.UTF_8)));
    Recording recording = new Recording(store, null);
    PublishReport r = Idem.publisher(recording).writer("w2").withoutPointer().build()
        .publish(spec, producing("state", new AtomicInteger()));
    assertEquals(PublishStatus.SKIPPED, r.status());
    assertEquals(List.of("stat"), recording.calls);
  }

  @Test
  void advance_targetOfAnotherObject_refusedNothingWritten() throws IOException {
    store.putIfAbsent(spec.outputKey().toString(), Payload.ofBytes("abc".getBytes(StandardCharsets.UTF_8)), "w");
    dev.idem.core.store.ObjectInfo info = store.stat(spec.outputKey().toString()).orElseThrow();
    Pointer p = Pointer.to(info, 60, 3, "w", Instant.EPOCH);
    dev.idem.core.store.ObjectInfo other = new dev.idem.core.store.ObjectInfo(info.key(), "cd".repeat(32), info.size(), "w", null);
    assertThrows(IllegalArgumentException.class, () -> new PointerAdvancer(store).advance(p, other));
    assertTrue(store.readPointer("border-state").isEmpty(), "G1");
  }

  private static final Instant NOW = Instant.parse("2026-12-02T12:00:30Z");
  private static final Clock AT_NOW = Clock.fixed(NOW, ZoneOffset.UTC);

  private Publisher at(Clock clock) {
    return Idem.publisher(store).writer("w").clock(clock).pointer(new PointerAdvancer(store)).build();
  }

  @Test
  void publish_windowEndingDecadesAhead_refusedBeforeTheTaskRuns() throws Exception {
    RunSpec future = RunSpec.of("border-state", new Window(Instant.parse("2099-01-01T00:00:00Z").getEpochSecond(), 60), 3);
    AtomicInteger runs = new AtomicInteger();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> at(AT_NOW).publish(future, producing("poison", runs)));
    assertEquals("window 2099-01-01T00:00:00Z..+60s has not closed yet (ends 72 years from now; allowed clock skew 5m): "
        + "refusing to publish a future window", e.getMessage());
    assertEquals(0, runs.get(), "the task must not run for a future window");
    assertFalse(store.exists(future.outputKey().toString()));
    assertTrue(store.readPointer("border-state").isEmpty(), "the pointer is untouched");
  }

  @Test
  void publish_payloadForFutureWindow_refusedNothingWritten() throws Exception {
    RunSpec future = RunSpec.of("border-state", Window.closedAt(NOW.plusSeconds(3600), java.time.Duration.ofMinutes(1),
        java.time.Duration.ZERO), 3);
    assertThrows(IllegalArgumentException.class,
        () -> at(AT_NOW).publish(future, Payload.ofBytes("x".getBytes(StandardCharsets.UTF_8))));
    List<String> keys = new ArrayList<>();
    store.list("", o -> keys.add(o.key()));
    assertEquals(List.of(), keys);
    assertTrue(store.readPointer("border-state").isEmpty());
  }

  @Test
  void publish_alreadyPublishedFutureWindow_skipPathDoesNotAdvanceToIt() throws Exception {
    // Published before this guard existed: the skip path must not move the pointer there either.
    RunSpec future = RunSpec.of("border-state", new Window(NOW.getEpochSecond() + 86_400, 60), 3);
    store.putIfAbsent(future.outputKey().toString(), Payload.ofBytes("x".getBytes(StandardCharsets.UTF_8)), "old");
    assertThrows(IllegalArgumentException.class, () -> at(AT_NOW).publish(future, producing("x", new AtomicInteger())));
    assertTrue(store.readPointer("border-state").isEmpty());
  }

  @Test
  void publish_windowEndingWithinTheSkew_accepted() throws Exception {
    // A replica whose clock is 4 minutes behind sees this window as still open; the default skew lets it publish.
    Window w = new Window(NOW.getEpochSecond() - 30 + 240 - 60, 60);
    PublishReport r = at(AT_NOW).publish(RunSpec.of("border-state", w, 3), Payload.ofBytes("x".getBytes(StandardCharsets.UTF_8)));
    assertEquals(PublishStatus.CREATED, r.status());
    assertEquals(AdvanceStatus.ADVANCED, r.pointer().status());
  }

  @Test
  void publish_windowEndingJustBeyondAConfiguredSkew_refused() {
    Window w = new Window(NOW.getEpochSecond() + 31 - 60, 60); // ends 31 s from now
    Publisher p = Idem.publisher(store).writer("w").clock(AT_NOW).maxClockSkew(java.time.Duration.ofSeconds(30)).build();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> p.publish(RunSpec.of("border-state", w, 3), Payload.ofBytes("x".getBytes(StandardCharsets.UTF_8))));
    assertTrue(e.getMessage().contains("(ends 31 seconds from now; allowed clock skew 30s)"), e.getMessage());
  }

  @Test
  void publish_windowEndingExactlyAtTheSkew_accepted() throws Exception {
    Window w = new Window(NOW.getEpochSecond() + 30 - 60, 60);
    Publisher p = Idem.publisher(store).writer("w").clock(AT_NOW).maxClockSkew(java.time.Duration.ofSeconds(30)).build();
    assertEquals(PublishStatus.CREATED,
        p.publish(RunSpec.of("border-state", w, 3), Payload.ofBytes("x".getBytes(StandardCharsets.UTF_8))).status());
  }

  @Test
  void publish_taskProducesEmptyResult_refusedNothingPublishedPointerUntouched() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    EmptyResultException e = assertThrows(EmptyResultException.class,
        () -> Idem.publisher(store).writer("w").build().publish(spec, producing("", runs)));
    assertEquals("task for " + spec.outputKey() + " produced an empty result (0 bytes); nothing published, pointer untouched",
        e.getMessage());
    assertEquals(1, runs.get());
    assertFalse(store.exists(spec.outputKey().toString()));
    assertTrue(store.readPointer("border-state").isEmpty());
  }

  @Test
  void publish_emptyPayload_refusedUnlessAllowed() throws Exception {
    Payload empty = Payload.ofBytes(new byte[0]);
    assertThrows(IllegalArgumentException.class, () -> Idem.publisher(store).writer("w").build().publish(spec, empty));
    assertFalse(store.exists(spec.outputKey().toString()));
    PublishReport r = Idem.publisher(store).writer("w").allowEmptyResults().build().publish(spec, empty);
    assertEquals(PublishStatus.CREATED, r.status());
    assertEquals(0, r.stored().size());
  }

  @Test
  void publish_emptyTaskResultAllowed_published() throws Exception {
    PublishReport r = Idem.publisher(store).writer("w").allowEmptyResults().build().publish(spec, producing("", new AtomicInteger()));
    assertEquals(PublishStatus.CREATED, r.status());
    assertEquals(AdvanceStatus.ADVANCED, r.pointer().status());
  }

  /** A store that refuses every write check, as a read-only directory or a missing bucket does. */
  private ObjectStore unwritable() {
    return new ForwardingObjectStore(store) {
      @Override
      public void checkWritable() throws IOException {
        throw new IOException("/data/idem: read-only file system");
      }
    };
  }

  @Test
  void publish_storeNotWritable_failsBeforeTheTaskRuns() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    IOException e = assertThrows(IOException.class, () -> Idem.publisher(unwritable()).writer("w").build().publish(spec, producing("x", runs)));
    assertEquals("/data/idem: read-only file system", e.getMessage());
    assertEquals(0, runs.get(), "the task must not run when its result could not be stored");
    assertFalse(store.exists(spec.outputKey().toString()));
    assertTrue(store.readPointer("border-state").isEmpty());
  }

  @Test
  void publish_alreadyPublishedOnUnwritableStore_skipsWithoutTheCheck() throws Exception {
    Idem.publisher(store).writer("first").build().publish(spec, Payload.ofBytes("x".getBytes(StandardCharsets.UTF_8)));
    AtomicInteger runs = new AtomicInteger();
    PublishReport r = Idem.publisher(unwritable()).writer("w").build().publish(spec, producing("x", runs));
    assertEquals(PublishStatus.SKIPPED, r.status());
    assertEquals(0, runs.get());
  }
}
