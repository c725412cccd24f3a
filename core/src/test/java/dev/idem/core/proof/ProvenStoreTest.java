package dev.idem.core.proof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.PutStatus;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import dev.idem.core.testing.Race;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class ProvenStoreTest {
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-02T14:00:00Z"), ZoneOffset.UTC);
  private static final String KEY = RunSpec.of("orders", new Window(1_726_000_000L, 60), 1).outputKey().toString();

  /** A prover over a shared marker slot, with scripted probe answers and counted calls. */
  static class ScriptedProver implements StoreProver {
    final AtomicReference<byte[]> marker;
    final String mode;
    final List<ProbeResult> answers;
    final AtomicInteger probes = new AtomicInteger();
    final AtomicInteger markerReads = new AtomicInteger();
    /** The markers handed to {@link #adopt}, in order. */
    final List<StoreMarker> adopted = new java.util.concurrent.CopyOnWriteArrayList<>();

    ScriptedProver(AtomicReference<byte[]> marker, String mode, List<ProbeResult> answers) {
      this.marker = marker;
      this.mode = mode;
      this.answers = answers;
    }

    @Override
    public String kind() {
      return "mem";
    }

    @Override
    public String pointerMode() {
      return mode;
    }

    @Override
    public String markerLocation() {
      return "mem:/_idem/store";
    }

    @Override
    public Optional<StoreMarker> readMarker() throws IOException {
      markerReads.incrementAndGet();
      byte[] b = marker.get();
      return b == null ? Optional.empty() : Optional.of(StoreMarker.parse(b, markerLocation()));
    }

    @Override
    public List<ProbeResult> probe() {
      probes.incrementAndGet();
      return answers;
    }

    @Override
    public boolean createMarker(StoreMarker m) {
      return marker.compareAndSet(null, m.toBytes());
    }

    @Override
    public Map<String, String> environment() {
      return new LinkedHashMap<>();
    }

    @Override
    public ObjectStore adopt(StoreMarker m, ObjectStore store) {
      adopted.add(m);
      return store;
    }
  }

  static ProbeResult good() {
    return ProbeResult.held("create-only", "put twice", true, "refused the second", "no-clobber publish");
  }

  static ProbeResult bad() {
    return ProbeResult.missing("create-only", "put twice", true,
        "ignores If-None-Match: * (a second create-only PUT of _idem/probe/x succeeded)",
        "idem's no-clobber publish depends on it");
  }

  static Payload text(String s) {
    return Payload.ofBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void putIfAbsent_freshStore_probesOnceAndCreatesMarkerRecordingAnswers() throws Exception {
    AtomicReference<byte[]> slot = new AtomicReference<>();
    ScriptedProver prover = new ScriptedProver(slot, "cas", List.of(good()));
    InMemoryObjectStore mem = new InMemoryObjectStore();
    ProvenStore store = ProvenStore.wrap(mem, prover, "idem test", CLOCK);

    assertEquals(PutStatus.CREATED, store.putIfAbsent(KEY, text("a"), "w").status());
    assertEquals(PutStatus.IDENTICAL, store.putIfAbsent(KEY, text("a"), "w").status());
    store.delete(KEY);

    assertEquals(1, prover.probes.get());
    StoreMarker m = StoreMarker.parse(slot.get(), "slot");
    assertEquals("cas", m.pointerMode());
    assertEquals("idem test", m.createdBy());
    assertEquals(CLOCK.instant(), m.createdAt());
    assertEquals(List.of(good()), m.probes());
    assertEquals(List.of(m), prover.adopted);
  }

  @Test
  void putIfAbsent_storeFailsRequiredProbe_refusedWithOneLineAndNothingWritten() throws Exception {
    AtomicReference<byte[]> slot = new AtomicReference<>();
    InMemoryObjectStore mem = new InMemoryObjectStore();
    ScriptedProver prover = new ScriptedProver(slot, "cas", List.of(bad()));
    ProvenStore store = ProvenStore.wrap(mem, prover, "idem test", CLOCK);

    StoreRefusedException e = assertThrows(StoreRefusedException.class, () -> store.putIfAbsent(KEY, text("a"), "w"));

    assertEquals(mem.describe() + " ignores If-None-Match: * (a second create-only PUT of _idem/probe/x succeeded);"
        + " refusing to write: idem's no-clobber publish depends on it", e.getMessage());
    assertFalse(mem.exists(KEY));
    assertEquals(null, slot.get());
    assertThrows(StoreRefusedException.class, () -> store.compareAndSetPointer("orders", null, null));
    assertThrows(StoreRefusedException.class, () -> store.raiseRetirement(
        new dev.idem.core.store.Retirement("orders", 1_726_000_000L, CLOCK.instant(), "idem test")));
    assertEquals(List.of(), prover.adopted);
  }

  @Test
  void deleteAndSweep_storeWithoutMarker_neitherProbeNorCreateIt() throws Exception {
    AtomicReference<byte[]> slot = new AtomicReference<>();
    ScriptedProver prover = new ScriptedProver(slot, "cas", List.of(good()));
    InMemoryObjectStore mem = new InMemoryObjectStore();
    ProvenStore store = ProvenStore.wrap(mem, prover, "idem test", CLOCK);

    assertFalse(store.delete(KEY));
    assertEquals(0, store.deleteRecords(KEY));
    assertEquals(List.of(), store.sweep(Duration.ZERO, false));

    assertEquals(0, prover.probes.get(), "a deleting command never probes a store idem has not marked");
    assertEquals(null, slot.get(), "nor creates its marker");
  }

  @Test
  void delete_markerOfAnotherMode_refused() throws Exception {
    AtomicReference<byte[]> slot = new AtomicReference<>();
    ProvenStore.wrap(new InMemoryObjectStore(), new ScriptedProver(slot, "log", List.of(good())), "idem test", CLOCK)
        .requireWritable();
    ScriptedProver prover = new ScriptedProver(slot, "cas", List.of(good()));
    ProvenStore store = ProvenStore.wrap(new InMemoryObjectStore(), prover, "idem test", CLOCK);

    assertThrows(StoreRefusedException.class, () -> store.delete(KEY));
    assertThrows(StoreRefusedException.class, () -> store.sweep(Duration.ZERO, false));
    assertEquals(0, prover.probes.get());
  }

  /** A prover that judges {@code answers}, then fails with {@code later} (a server error, a refused abort). */
  static StoreProver failingAfter(List<ProbeResult> answers, IOException later, AtomicReference<byte[]> slot) {
    return new ScriptedProver(slot, "cas", answers) {
      @Override
      public List<ProbeResult> probe(Consumer<ProbeResult> judged) throws IOException {
        answers.forEach(judged);
        throw later;
      }
    };
  }

  @Test
  void putIfAbsent_requiredGuaranteeMissingThenALaterProbeFails_refusedForTheGuarantee() throws Exception {
    AtomicReference<byte[]> slot = new AtomicReference<>();
    InMemoryObjectStore mem = new InMemoryObjectStore();
    IOException later = new IOException("DELETE _idem/probe/x?uploadId=u failed (HTTP 405 MethodNotAllowed)");
    ProvenStore store = ProvenStore.wrap(mem, failingAfter(List.of(good(), bad()), later, slot), "idem test", CLOCK);

    StoreRefusedException e = assertThrows(StoreRefusedException.class, () -> store.putIfAbsent(KEY, text("a"), "w"));

    assertTrue(e.getMessage().startsWith(mem.describe() + " ignores If-None-Match: * ("), e.getMessage());
    assertSame(later, e.getSuppressed()[0]);
    assertFalse(mem.exists(KEY));
    assertEquals(null, slot.get());
  }

  @Test
  void putIfAbsent_probeFailsWithNoGuaranteeMissing_thatFailureUnchanged() {
    AtomicReference<byte[]> slot = new AtomicReference<>();
    InMemoryObjectStore mem = new InMemoryObjectStore();
    IOException later = new IOException("connection refused");
    ProvenStore store = ProvenStore.wrap(mem, failingAfter(List.of(good()), later, slot), "idem test", CLOCK);

    assertSame(later, assertThrows(IOException.class, () -> store.putIfAbsent(KEY, text("a"), "w")));
    assertFalse(mem.exists(KEY));
  }

  @Test
  void probing_trueOnlyWhileTheProverProbes() throws Exception {
    AtomicReference<byte[]> slot = new AtomicReference<>();
    AtomicReference<ProvenStore> self = new AtomicReference<>();
    List<Boolean> seen = new ArrayList<>();
    ProvenStore store = ProvenStore.wrap(new InMemoryObjectStore(), new ScriptedProver(slot, "cas", List.of(good())) {
      @Override
      public List<ProbeResult> probe() {
        seen.add(self.get().probing());
        return super.probe();
      }
    }, "idem test", CLOCK);
    self.set(store);

    assertFalse(store.probing());
    store.requireWritable();

    assertEquals(List.of(true), seen);
    assertFalse(store.probing());
  }

  @Test
  void putIfAbsent_optionalGuaranteeMissing_accepted() throws Exception {
    ProbeResult optional = ProbeResult.missing("if-match", "wrong etag", false, "ignores If-Match", "cas mode");
    AtomicReference<byte[]> slot = new AtomicReference<>();
    ProvenStore store = ProvenStore.wrap(new InMemoryObjectStore(),
        new ScriptedProver(slot, "log", List.of(good(), optional)), "idem test", CLOCK);

    assertEquals(PutStatus.CREATED, store.putIfAbsent(KEY, text("a"), "w").status());
    assertEquals("ABSENT", StoreMarker.parse(slot.get(), "slot").probe("if-match").orElseThrow().answer());
  }

  @Test
  void requireWritable_markerPresent_trustedWithoutProbing() throws Exception {
    AtomicReference<byte[]> slot = new AtomicReference<>(
        new StoreMarker("mem", "cas", Instant.EPOCH, "idem old", List.of(good())).toBytes());
    ScriptedProver prover = new ScriptedProver(slot, "cas", List.of(bad()));
    ProvenStore store = ProvenStore.wrap(new InMemoryObjectStore(), prover, "idem test", CLOCK);

    assertEquals("idem old", store.requireWritable().createdBy());
    assertEquals(PutStatus.CREATED, store.putIfAbsent(KEY, text("a"), "w").status());
    assertEquals(0, prover.probes.get());
    assertEquals(1, prover.markerReads.get());
    assertEquals(List.of(StoreMarker.parse(slot.get(), "slot")), prover.adopted);
  }

  /**
   * Every write goes to the store the prover configured by the trusted marker, handed the wrapped store;
   * reads, and a dry-run sweep, which writes nothing, go to the wrapped one.
   */
  @Test
  void writes_throughTheStoreTheProverConfigured_readsThroughTheWrappedOne() throws Exception {
    InMemoryObjectStore mem = new InMemoryObjectStore(CLOCK);
    List<String> written = new java.util.concurrent.CopyOnWriteArrayList<>();
    ObjectStore configured = new ForwardingObjectStore(mem) {
      @Override
      public PutOutcome putIfAbsent(String key, Payload payload, String writerId) throws IOException {
        written.add("put " + key);
        return super.putIfAbsent(key, payload, writerId);
      }

      @Override
      public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) throws IOException {
        written.add("cas " + pipeline);
        return super.compareAndSetPointer(pipeline, expectedToken, next);
      }

      @Override
      public boolean delete(String key) throws IOException {
        written.add("delete " + key);
        return super.delete(key);
      }

      @Override
      public List<String> sweep(Duration grace, boolean dryRun) throws IOException {
        written.add("sweep");
        return super.sweep(grace, dryRun);
      }

      @Override
      public boolean exists(String key) throws IOException {
        written.add("read " + key);
        return super.exists(key);
      }
    };
    AtomicReference<ObjectStore> handed = new AtomicReference<>();
    ScriptedProver prover = new ScriptedProver(new AtomicReference<>(), "cas", List.of(good())) {
      @Override
      public ObjectStore adopt(StoreMarker m, ObjectStore store) {
        handed.set(store);
        return configured;
      }
    };
    ProvenStore store = ProvenStore.wrap(mem, prover, "idem test", CLOCK);

    assertEquals(List.of(), store.sweep(Duration.ZERO, true));
    assertEquals(PutStatus.CREATED, store.putIfAbsent(KEY, text("a"), "w").status());
    assertTrue(store.exists(KEY));
    Pointer p = Pointer.to(store.stat(KEY).orElseThrow(), 60, 1, "w", Instant.EPOCH);
    assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", null, p));
    assertTrue(store.delete(KEY));
    store.sweep(Duration.ZERO, false);

    assertSame(mem, handed.get());
    assertEquals(List.of("put " + KEY, "cas orders", "delete " + KEY, "sweep"), written);
  }

  @Test
  void writesAndReads_markerNamesOtherPointerMode_refusedNamingBothModes() throws Exception {
    AtomicReference<byte[]> slot = new AtomicReference<>(
        new StoreMarker("mem", "cas", Instant.EPOCH, "idem old", List.of(good())).toBytes());
    InMemoryObjectStore mem = new InMemoryObjectStore();
    ScriptedProver prover = new ScriptedProver(slot, "log", List.of(good()));
    ProvenStore store = ProvenStore.wrap(mem, prover, "idem test", CLOCK);

    StoreRefusedException w = assertThrows(StoreRefusedException.class, () -> store.putIfAbsent(KEY, text("a"), "w"));
    StoreRefusedException r = assertThrows(StoreRefusedException.class, () -> store.readPointer("orders"));

    assertTrue(w.getMessage().contains("uses pointer mode cas") && w.getMessage().contains("configured for log"),
        w.getMessage());
    assertEquals(w.getMessage(), r.getMessage());
    assertFalse(mem.exists(KEY));
    assertEquals(List.of(), prover.adopted);
  }

  /** A prover whose mode was not chosen: it follows the marker's when handed one. */
  static final class FollowingProver extends ScriptedProver {
    String current;

    FollowingProver(AtomicReference<byte[]> marker, String defaultMode) {
      super(marker, defaultMode, List.of(good()));
      current = defaultMode;
    }

    @Override
    public String pointerMode() {
      return current;
    }

    @Override
    public boolean pointerModeChosen() {
      return false;
    }

    @Override
    public void followMarkerMode(StoreMarker m) {
      current = m.pointerMode();
    }
  }

  @Test
  void writesAndReads_modeNotChosen_followTheMarkersMode() throws Exception {
    AtomicReference<byte[]> slot = new AtomicReference<>(
        new StoreMarker("mem", "log", Instant.EPOCH, "idem old", List.of(good())).toBytes());
    FollowingProver reader = new FollowingProver(slot, "cas");
    FollowingProver writer = new FollowingProver(slot, "cas");

    assertTrue(ProvenStore.wrap(new InMemoryObjectStore(), reader, "idem test", CLOCK).readPointer("orders").isEmpty());
    assertEquals(PutStatus.CREATED, ProvenStore.wrap(new InMemoryObjectStore(), writer, "idem test", CLOCK)
        .putIfAbsent(KEY, text("a"), "w").status());

    assertEquals("log", reader.current, "the reader follows the marker");
    assertEquals("log", writer.current, "the writer too");
    assertEquals(0, writer.probes.get());
  }

  @Test
  void writes_modeChosenAndOtherThanTheMarkers_refusedNamingTheSetting() throws Exception {
    AtomicReference<byte[]> slot = new AtomicReference<>(
        new StoreMarker("mem", "cas", Instant.EPOCH, "idem old", List.of(good())).toBytes());
    ScriptedProver prover = new ScriptedProver(slot, "log", List.of(good())) {
      @Override
      public String pointerModeSetting() {
        return "--mode or MODE";
      }
    };
    ProvenStore store = ProvenStore.wrap(new InMemoryObjectStore(), prover, "idem test", CLOCK);

    StoreRefusedException w = assertThrows(StoreRefusedException.class, () -> store.putIfAbsent(KEY, text("a"), "w"));

    assertTrue(w.getMessage().endsWith("this process is configured for log (--mode or MODE): refusing, since writers in "
        + "two modes keep two different pointers; set it to cas, or leave it unset to follow the marker"), w.getMessage());
  }

  @Test
  void peekPointer_modeNotChosen_readsNoMarker_modeChosen_refusedAsReadPointerIs() throws Exception {
    AtomicReference<byte[]> slot = new AtomicReference<>(
        new StoreMarker("mem", "cas", Instant.EPOCH, "idem old", List.of(good())).toBytes());
    InMemoryObjectStore mem = new InMemoryObjectStore();
    mem.putIfAbsent(KEY, text("a"), "w");
    new dev.idem.core.publish.PointerAdvancer(mem).advance(
        Pointer.to(mem.stat(KEY).orElseThrow(), 60, 1, "w", Instant.EPOCH));
    FollowingProver following = new FollowingProver(slot, "log");
    ScriptedProver chosen = new ScriptedProver(slot, "log", List.of(good()));

    Pointer peeked = ProvenStore.wrap(mem, following, "idem test", CLOCK).peekPointer("orders").orElseThrow();
    StoreRefusedException refused = assertThrows(StoreRefusedException.class,
        () -> ProvenStore.wrap(mem, chosen, "idem test", CLOCK).peekPointer("orders"));

    assertEquals(KEY, peeked.key());
    assertEquals(0, following.markerReads.get(), "the peek needs no marker");
    assertEquals(1, chosen.markerReads.get());
    assertTrue(refused.getMessage().contains("configured for log"), refused.getMessage());
  }

  @Test
  void readPointer_noMarker_readsWithoutProbingOrCreating() throws Exception {
    AtomicReference<byte[]> slot = new AtomicReference<>();
    ScriptedProver prover = new ScriptedProver(slot, "cas", List.of(good()));
    ProvenStore store = ProvenStore.wrap(new InMemoryObjectStore(), prover, "idem test", CLOCK);

    assertTrue(store.readPointer("orders").isEmpty());
    assertTrue(store.readPointer("orders").isEmpty());
    assertEquals(List.of(), store.sweep(Duration.ZERO, true));

    assertEquals(0, prover.probes.get());
    assertEquals(1, prover.markerReads.get());
    assertEquals(null, slot.get());
    assertEquals(List.of(), prover.adopted);
  }

  @Test
  void requireWritable_racingFirstWriters_oneMarkerAndAllTrustIt() throws Exception {
    AtomicReference<byte[]> slot = new AtomicReference<>();
    int writers = 8;
    List<ScriptedProver> provers = new ArrayList<>();
    for (int i = 0; i < writers; i++) {
      provers.add(new ScriptedProver(slot, "cas", List.of(good())));
    }
    List<StoreMarker> trusted = Race.run(writers, i -> ProvenStore.wrap(new InMemoryObjectStore(), provers.get(i),
        "idem writer " + i, CLOCK).requireWritable());

    StoreMarker winner = StoreMarker.parse(slot.get(), "slot");
    assertEquals(writers, trusted.size());
    trusted.forEach(m -> assertEquals(winner, m));
    provers.forEach(p -> assertEquals(List.of(winner), p.adopted));
  }

  @Test
  void requireWritable_concurrentCallsOnOneInstance_probeOnce() throws Exception {
    ScriptedProver prover = new ScriptedProver(new AtomicReference<>(), "cas", List.of(good()));
    ProvenStore store = ProvenStore.wrap(new InMemoryObjectStore(), prover, "idem test", CLOCK);
    List<StoreMarker> seen = Race.run(6, i -> store.requireWritable());
    assertEquals(1, prover.probes.get());
    seen.forEach(m -> assertSame(seen.get(0), m));
    assertEquals(List.of(seen.get(0)), prover.adopted);
  }

  @Test
  void everyObjectStoreMethod_defaultsIncluded_forwardedByProvenStore() throws Exception {
    for (java.lang.reflect.Method m : dev.idem.core.store.ObjectStore.class.getMethods()) {
      if (!java.lang.reflect.Modifier.isStatic(m.getModifiers())) {
        assertEquals(ProvenStore.class, ProvenStore.class.getMethod(m.getName(), m.getParameterTypes()).getDeclaringClass(),
            m.toString());
      }
    }
  }
}
