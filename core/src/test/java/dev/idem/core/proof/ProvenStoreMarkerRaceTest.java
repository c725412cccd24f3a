package dev.idem.core.proof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.proof.ProvenStoreTest.ScriptedProver;
import dev.idem.core.store.PutStatus;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A first write that loses the race to create the store marker: it trusts the marker that won, not
 * its own, and a winner's marker that is gone by the time it is read is an error, not a store proven.
 */
class ProvenStoreMarkerRaceTest {
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-02T14:00:00Z"), ZoneOffset.UTC);
  private static final String KEY = RunSpec.of("orders", new Window(1_726_000_000L, 60), 1).outputKey().toString();

  private final AtomicReference<byte[]> slot = new AtomicReference<>();
  private final InMemoryObjectStore mem = new InMemoryObjectStore(CLOCK);

  /** A prover whose own marker is never created: another process got there first, leaving {@code winner}. */
  private ScriptedProver outracedBy(StoreMarker winner) {
    return new ScriptedProver(slot, "cas", List.of(ProvenStoreTest.good())) {
      @Override
      public boolean createMarker(StoreMarker m) {
        slot.set(winner == null ? null : winner.toBytes());
        return false;
      }
    };
  }

  @Test
  void firstWrite_anotherProcessCreatedTheMarkerFirst_trustsThatOne() throws IOException {
    StoreMarker winner = new StoreMarker("mem", "cas", Instant.EPOCH, "idem on host-b", List.of(ProvenStoreTest.good()));
    ScriptedProver prover = outracedBy(winner);

    assertEquals(PutStatus.CREATED,
        ProvenStore.wrap(mem, prover, "idem test", CLOCK).putIfAbsent(KEY, ProvenStoreTest.text("a"), "w").status());

    assertEquals(List.of(winner), prover.adopted, "the marker in the store, not the one this process wrote");
  }

  @Test
  void firstWrite_winnersMarkerGoneWhenRead_refusedWritingNothing() {
    ScriptedProver prover = outracedBy(null);
    ProvenStore store = ProvenStore.wrap(mem, prover, "idem test", CLOCK);

    IOException e = assertThrows(IOException.class, () -> store.putIfAbsent(KEY, ProvenStoreTest.text("a"), "w"));

    assertEquals("store marker mem:/_idem/store was there when this process tried to create its own, and is gone "
        + "now (removed by hand?)", e.getMessage());
    assertFalse(mem.exists(KEY));
    assertEquals(List.of(), prover.adopted);
  }
}
