package dev.idem.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * K1/K2 golden vectors. The expected keys were computed outside Java (Python's hashlib and
 * struct.pack('>QQI') over the reference layout of docs/DESIGN.md), so a change to the encoding fails here
 * even if it stays self-consistent.
 */
class RunSpecTest {

  @Test
  void outputKey_baseFieldsOnly_matchesReferenceLayout() {
    assertEquals(
        "border-state/1726000000/state-2e9a897ae5a6b7b855af4442fcc5cf024f9d7c7861b60fa17fbc4ad4248510fa",
        RunSpec.of("border-state", new Window(1_726_000_000L, 60), 3).outputKey().toString());
    assertEquals(
        "p/100/state-960a896dd1da8d758197915f0a8bbdb2293559fbff0f3c51c6f26db157d0cf4f",
        RunSpec.of("p", new Window(100, 60), 1).outputKey().toString());
    assertEquals(
        "orders/0/state-e6724640095c567c32b90ca7c75e516b254094b34ccf153294a6f1c1a3dc296f",
        RunSpec.of("orders", new Window(0, 86400), 0).outputKey().toString());
  }

  @Test
  void outputKey_plainBudgetSpent_theSameKeyFromThePlatformDigest() {
    Sha256.setPlainBudget(0);
    try {
      for (int i = 0; i < 2; i++) { // the digest is made once per thread, then reused
        assertEquals(
            "border-state/1726000000/state-2e9a897ae5a6b7b855af4442fcc5cf024f9d7c7861b60fa17fbc4ad4248510fa",
            RunSpec.of("border-state", new Window(1_726_000_000L, 60), 3).outputKey().toString());
      }
    } finally {
      Sha256.setPlainBudget(Sha256.PLAIN_BUDGET);
    }
  }

  @Test
  void outputKey_withInputs_matchesCanonicalEncoding() {
    RunSpec spec = RunSpec.of("orders", new Window(1_726_000_000L, 3600), 7)
        .withInput("snapshot", "v42")
        .withInput("model", new byte[] {0, (byte) 0xff});
    assertEquals(
        "orders/1726000000/state-56ce41ca58b93621d9c95e6f95165a36070227e896a8869dc511f42b0189c76c",
        spec.outputKey().toString());
    assertEquals(
        "orders/1726000000/state-efc3b3d4c1f6ff80f3971857bd57aa6c8db3c0b505da06cd6f9c52f7d066a7fd",
        RunSpec.of("orders", new Window(1_726_000_000L, 3600), 7).withInput("snapshot", "").outputKey().toString());
  }

  @Test
  void outputKey_inputOrder_doesNotMatter() {
    Window w = new Window(3600, 3600);
    RunSpec a = RunSpec.of("p", w, 1).withInput("x", "1").withInput("y", "2");
    RunSpec b = RunSpec.of("p", w, 1).withInput("y", "2").withInput("x", "1");
    assertEquals(a.outputKey(), b.outputKey());
    assertEquals(a, b);
    assertEquals(a.hashCode(), b.hashCode());
  }

  @Test
  void outputKey_emptyInputValue_differsFromNoInput() {
    Window w = new Window(3600, 3600);
    assertNotEquals(RunSpec.of("p", w, 1).outputKey(), RunSpec.of("p", w, 1).withInput("x", "").outputKey());
  }

  @Test
  void outputKey_boundaryShift_betweenNameAndValue_differs() {
    Window w = new Window(3600, 3600);
    assertNotEquals(
        RunSpec.of("p", w, 1).withInput("ab", "c").outputKey(),
        RunSpec.of("p", w, 1).withInput("a", "bc").outputKey());
  }

  @Test
  void withInput_repeatedName_rejected() {
    RunSpec s = RunSpec.of("p", new Window(0, 60), 1).withInput("x", "1");
    assertThrows(IllegalArgumentException.class, () -> s.withInput("x", "1"));
  }

  @Test
  void withInput_oversizedValue_rejected() {
    RunSpec s = RunSpec.of("p", new Window(0, 60), 1);
    assertThrows(IllegalArgumentException.class, () -> s.withInput("x", new byte[RunSpec.MAX_INPUT_BYTES + 1]));
  }

  @Test
  void withInput_invalidName_rejected() {
    RunSpec s = RunSpec.of("p", new Window(0, 60), 1);
    for (String bad : new String[] {"", "../x", "A", "a/b", ".hidden", "_idem"}) {
      assertThrows(IllegalArgumentException.class, () -> s.withInput(bad, "1"), bad);
    }
  }

  @Test
  void of_negativeSchema_rejected() {
    assertThrows(IllegalArgumentException.class, () -> RunSpec.of("p", new Window(0, 60), -1));
  }

  @Test
  void inputs_returnedCopy_cannotChangeKey() {
    RunSpec s = RunSpec.of("p", new Window(0, 60), 1).withInput("x", new byte[] {1});
    OutputKey before = s.outputKey();
    s.inputs().get("x")[0] = 2;
    assertEquals(before, s.outputKey());
  }

  @Test
  void outputKey_roundTripsThroughParse() {
    OutputKey k = RunSpec.of("border-state", new Window(1_726_000_000L, 60), 3).outputKey();
    assertEquals(k, OutputKey.parse(k.toString()));
  }

  @Test
  void parse_malformedKeys_rejected() {
    for (String bad : new String[] {"p/1/state-xyz", "P/1/state-" + "a".repeat(64), "p/01/state-" + "a".repeat(64),
        "p/1/state-" + "A".repeat(64), "../1/state-" + "a".repeat(64), "p/1/x/state-" + "a".repeat(64),
        "p/99999999999999999999/state-" + "a".repeat(64)}) {
      assertThrows(IllegalArgumentException.class, () -> OutputKey.parse(bad), bad);
    }
  }
}
