package dev.idem.core.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.MissingCapabilityException;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.Retirement;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.ForwardingObjectStore.Capability;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The scan and {@link LatestOfSchema} on a store that lacks a capability: refused, or judged without it. */
class ScanWithoutCapabilitiesTest {
  private static final String KEY = RunSpec.of("daily", new Window(86_400, 86_400), 1).outputKey().toString();
  private final Instant[] now = {Instant.parse("2024-09-10T00:00:00Z")};
  private final InMemoryObjectStore memory = new InMemoryObjectStore(new Clock() {
    @Override public ZoneId getZone() { return ZoneOffset.UTC; }
    @Override public Clock withZone(ZoneId zone) { return this; }
    @Override public Instant instant() { return now[0]; }
  });

  private static Payload text(String s) {
    return Payload.ofBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void run_storeWithoutHistory_refusedNeverClean() throws IOException {
    memory.putIfAbsent(KEY, text("a"), "w");
    List<String> heard = new ArrayList<>();
    MissingCapabilityException e = assertThrows(MissingCapabilityException.class, () -> new DivergenceScan()
        .run(ForwardingObjectStore.without(memory, Capability.HISTORY), "", v -> heard.add(v.key())));
    assertEquals("memory: keeps no publish history, and the scan judges each key by what its history recorded; "
        + "nothing written", e.getMessage());
    assertEquals(List.of(), heard);
  }

  /** A key published, retired by gc (object deleted, records kept), then published again with other bytes. */
  private void republishAfterRetirement() throws IOException {
    memory.putIfAbsent(KEY, text("first"), "w");
    now[0] = now[0].plusSeconds(60);
    memory.raiseRetirement(new Retirement("daily", 86_400, now[0], "gc"));
    memory.delete(KEY);
    now[0] = now[0].plusSeconds(60);
    memory.putIfAbsent(KEY, text("second"), "w");
  }

  @Test
  void run_storeWithoutRetirementMarks_republishedKeyJudgedAsOneLife() throws IOException {
    republishAfterRetirement();
    List<String> divergent = new ArrayList<>();
    ScanSummary without = new DivergenceScan().run(ForwardingObjectStore.without(memory, Capability.RETIREMENT_MARKS),
        "", v -> divergent.add(v.key()));
    assertEquals(List.of(KEY), divergent, "two contents in what, without the mark, is one life");
    assertFalse(without.clean(), without.toString());

    ScanSummary with = new DivergenceScan().run(memory, "", v -> divergent.add(v.key()));
    assertEquals(1, with.republishedKeys(), "the same history with the mark: two lives");
    assertTrue(with.clean(), with.toString());
  }

  @Test
  void find_storeWithoutHistory_refused() throws IOException {
    memory.putIfAbsent(KEY, text("a").withSchema(1), "w");
    memory.compareAndSetPointer("daily", null, Pointer.to(memory.stat(KEY).orElseThrow(), 86_400, 1, "w", now[0]));
    ObjectStore store = ForwardingObjectStore.without(memory, Capability.HISTORY);
    assertEquals(KEY, LatestOfSchema.find(memory, "daily", 1, 0).orElseThrow(), "found where the history is there");
    MissingCapabilityException e = assertThrows(MissingCapabilityException.class,
        () -> LatestOfSchema.find(store, "daily", 1, 0));
    assertTrue(e.getMessage().startsWith("memory: keeps no publish history, and a generation is found by the schema"),
        e.getMessage());
  }
}
