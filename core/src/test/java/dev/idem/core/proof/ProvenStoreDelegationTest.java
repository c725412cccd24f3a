package dev.idem.core.proof;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.Acknowledgement;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Claims;
import dev.idem.core.store.HistoryQuery;
import dev.idem.core.store.MissingCapabilityException;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PutStatus;
import dev.idem.core.store.Retirement;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link ProvenStore} hands every call, once the store is proven, to the store it wraps, and hands back
 * that store's answer unchanged: each method is called here with an answer that only the wrapped store
 * could give (present and absent, true and false, counts, the marker's own store and prover).
 */
class ProvenStoreDelegationTest {
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-02T14:00:00Z"), ZoneOffset.UTC);
  private static final String KEY = RunSpec.of("orders", new Window(1_726_000_000L, 60), 1).outputKey().toString();

  /** A prover that passes every probe and keeps its marker in memory. */
  private static final class PassingProver implements StoreProver {
    final AtomicReference<byte[]> marker = new AtomicReference<>();

    @Override public String kind() { return "mem"; }
    @Override public String pointerMode() { return "cas"; }
    @Override public String markerLocation() { return "mem:/_idem/store"; }

    @Override
    public Optional<StoreMarker> readMarker() throws IOException {
      byte[] b = marker.get();
      return b == null ? Optional.empty() : Optional.of(StoreMarker.parse(b, markerLocation()));
    }

    @Override
    public List<ProbeResult> probe() {
      return List.of(ProbeResult.held("create-only", "put twice", true, "refused the second", "no-clobber publish"));
    }

    @Override
    public boolean createMarker(StoreMarker m) {
      return marker.compareAndSet(null, m.toBytes());
    }

    @Override
    public Map<String, String> environment() {
      return Map.of();
    }
  }

  /** The in-memory store, with a sweep that reports something, a failing writable check, a counted close. */
  private static final class Wrapped extends ForwardingObjectStore {
    final AtomicInteger closes = new AtomicInteger();

    Wrapped() {
      super(new InMemoryObjectStore(CLOCK));
    }

    @Override public List<String> sweep(Duration grace, boolean dryRun) { return List.of("removed x"); }
    @Override public java.util.OptionalLong usableSpace() { return java.util.OptionalLong.of(12_345); }
    @Override public void checkWritable() throws IOException { throw new IOException("read-only"); }
    @Override public void close() { closes.incrementAndGet(); }
  }

  @Test
  void everyCall_answeredByTheWrappedStore() throws IOException {
    Wrapped mem = new Wrapped();
    PassingProver prover = new PassingProver();
    ProvenStore store = ProvenStore.wrap(mem, prover, "idem test", CLOCK);
    assertSame(mem, store.store());
    assertSame(prover, store.prover());
    assertEquals(mem.describe(), store.describe());
    assertTrue(store.toString().contains(mem.toString()), store.toString());

    assertFalse(store.exists(KEY));
    assertEquals(PutStatus.CREATED, store.putIfAbsent(KEY, Payload.ofBytes("a".getBytes(StandardCharsets.UTF_8)), "w").status());
    assertTrue(store.exists(KEY));
    assertEquals(mem.stat(KEY), store.stat(KEY));
    try (InputStream in = store.open(KEY).orElseThrow()) {
      assertArrayEquals("a".getBytes(StandardCharsets.UTF_8), in.readAllBytes());
    }
    List<String> seen = new ArrayList<>();
    assertTrue(store.history("orders/", h -> seen.add(h.key())));
    assertTrue(store.history(HistoryQuery.under("orders/"), h -> seen.add(h.key())));
    assertTrue(store.list("orders/", o -> seen.add(o.key())));
    assertEquals(List.of(KEY, KEY, KEY), seen);
    assertFalse(store.list("orders/", o -> false), "a visitor's stop is passed back");
    assertFalse(store.history("orders/", h -> false));
    assertFalse(store.history(HistoryQuery.under("orders/"), h -> false));
    assertEquals(java.util.OptionalLong.of(12_345), store.usableSpace());
    String other = RunSpec.of("orders", new Window(1_726_000_060L, 60), 4).outputKey().toString();
    store.putIfAbsent(other, Payload.ofBytes("b".getBytes(StandardCharsets.UTF_8)).withSchema(4), "w");
    assertEquals(Optional.of(4), store.schemaOf(other));
    assertEquals(mem.stat(other), store.stat(other));

    Pointer p = Pointer.to(store.stat(KEY).orElseThrow(), 60, 1, "w", Instant.EPOCH);
    assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", null, p));
    String token = store.readPointer("orders").orElseThrow().token();
    assertEquals(CasResult.CONFLICT, store.compareAndSetPointer("orders", null, p, Duration.ofSeconds(1)));
    assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", token, p, Duration.ofSeconds(1)));

    Retirement r = new Retirement("orders", 1_726_000_000L, Instant.EPOCH, "gc");
    assertTrue(store.readRetirement("orders").isEmpty());
    assertEquals(r, store.raiseRetirement(r));
    assertEquals(Optional.of(r), store.readRetirement("orders"));

    assertEquals(List.of("orders"), List.copyOf(store.pipelines()));
    Acknowledgement ack = new Acknowledgement(KEY, new TreeSet<>(List.of("sha256:" + "a".repeat(64))), 1, "ops", Instant.EPOCH,
        "reviewed");
    assertEquals(List.of(), store.acknowledgements(""));
    store.acknowledge(ack);
    assertEquals(List.of(ack), mem.acknowledgements(""));
    assertEquals(List.of(ack), store.acknowledgements("orders/"));

    assertEquals(List.of("removed x"), store.sweep(Duration.ZERO, false));
    assertEquals(List.of("removed x"), store.sweep(Duration.ZERO, true));
    assertThrows(IOException.class, store::checkWritable, "the wrapped store's own check is asked too");
    assertTrue(store.delete(KEY));
    assertFalse(store.delete(KEY));
    assertEquals(1, store.deleteRecords(KEY), "the CREATED record");
    store.close();
    assertEquals(1, mem.closes.get());
  }

  @Test
  void capabilities_thoseOfTheWrappedStore() throws IOException {
    InMemoryObjectStore mem = new InMemoryObjectStore(CLOCK);
    ProvenStore all = ProvenStore.wrap(mem, new PassingProver(), "idem test", CLOCK);
    assertSame(all, all.publishHistory().orElseThrow(), "its own forwarding, so reads never probe");
    assertSame(all, all.retirementMarks().orElseThrow());
    assertSame(all, all.leftoverSweep().orElseThrow());

    ProvenStore none = ProvenStore.wrap(ForwardingObjectStore.without(mem, ForwardingObjectStore.Capability.HISTORY,
        ForwardingObjectStore.Capability.RETIREMENT_MARKS, ForwardingObjectStore.Capability.SWEEP),
        new PassingProver(), "idem test", CLOCK);
    assertTrue(none.publishHistory().isEmpty());
    assertTrue(none.retirementMarks().isEmpty());
    assertTrue(none.leftoverSweep().isEmpty());
    MissingCapabilityException e = assertThrows(MissingCapabilityException.class, () -> none.history("", h -> true));
    assertEquals("memory: keeps no publish history, and a call to it cannot be forwarded; nothing written",
        e.getMessage());
    assertThrows(MissingCapabilityException.class, () -> none.readRetirement("orders"));
    assertThrows(MissingCapabilityException.class, () -> none.sweep(Duration.ZERO, true));
  }

  @Test
  void claims_theWrappedStoresOwn() throws IOException {
    InMemoryObjectStore mem = new InMemoryObjectStore(CLOCK);
    assertTrue(ProvenStore.wrap(ForwardingObjectStore.without(mem, ForwardingObjectStore.Capability.CLAIMS),
        new PassingProver(), "idem test", CLOCK).claims().isEmpty());
    Claims claims = (Claims) java.lang.reflect.Proxy.newProxyInstance(Claims.class.getClassLoader(),
        new Class<?>[] {Claims.class}, (proxy, method, args) -> {
          throw new AssertionError("not called: " + method.getName());
        });
    ForwardingObjectStore withClaims = new ForwardingObjectStore(mem) {
      @Override public Optional<Claims> claims() {
        return Optional.of(claims);
      }
    };
    assertSame(claims, ProvenStore.wrap(withClaims, new PassingProver(), "idem test", CLOCK).claims().orElseThrow());
  }
}
