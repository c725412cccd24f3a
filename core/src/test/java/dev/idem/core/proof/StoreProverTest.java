package dev.idem.core.proof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.proof.ProvenStoreTest.ScriptedProver;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** What a prover that overrides only what it must gets from {@link StoreProver}'s defaults. */
class StoreProverTest {
  private static final ProbeResult HELD = ProbeResult.held("create-only", "put twice", true, "refused", "publish");
  private static final ProbeResult MISSING = ProbeResult.missing("if-match", "put with If-Match", false, "ignored",
      "cas pointer mode");

  private final AtomicReference<byte[]> marker = new AtomicReference<>();

  @Test
  void pointerModeChosen_byDefault_aModeConflictIsRefusedNamingTheSetting() throws IOException {
    marker.set(new StoreMarker("mem", "cas", Instant.EPOCH, "idem old", List.of(HELD)).toBytes());
    ScriptedProver prover = new ScriptedProver(marker, "log", List.of(HELD));
    ProvenStore store = ProvenStore.wrap(new InMemoryObjectStore(), prover, "idem test",
        Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
    String key = RunSpec.of("orders", new Window(60, 60), 1).outputKey().toString();

    assertTrue(prover.pointerModeChosen(), "a store with one mode has no other to follow");
    StoreRefusedException e = assertThrows(StoreRefusedException.class,
        () -> store.putIfAbsent(key, ProvenStoreTest.text("a"), "w"));
    assertTrue(e.getMessage().contains("configured for log (the pointer mode setting): refusing"), e.getMessage());
  }

  @Test
  void probe_withListener_handsEachAnswerInOrderAndReturnsThem() throws IOException {
    ScriptedProver prover = new ScriptedProver(marker, "cas", List.of(HELD, MISSING));
    List<ProbeResult> judged = new ArrayList<>();

    assertEquals(List.of(HELD, MISSING), prover.probe(judged::add));
    assertEquals(List.of(HELD, MISSING), judged);
    assertEquals(1, prover.probes.get(), "probed once");
  }
}
