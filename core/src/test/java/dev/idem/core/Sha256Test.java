package dev.idem.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Which digest {@link Sha256#newDigest(long)} hands out: plain Java within the JVM's budget, the
 * providers' past it, for an unknown length, and for good once the providers' has been made. The
 * hashes are the same either way (PlainSha256Test); this is about not starting the providers.
 */
class Sha256Test {
  private static final byte[] ABC = "abc".getBytes(StandardCharsets.US_ASCII);
  private static final String ABC_HEX = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

  @AfterEach
  void restoreTheBudget() {
    Sha256.setPlainBudget(Sha256.PLAIN_BUDGET);
  }

  @Test
  void withinTheBudget_plainAndTaken() {
    Sha256.setPlainBudget(100);

    assertInstanceOf(PlainSha256.class, Sha256.newDigest(0));
    assertInstanceOf(PlainSha256.class, Sha256.newDigest(60));
    assertInstanceOf(PlainSha256.class, Sha256.newDigest(40)); // exactly what is left
    assertFalse(Sha256.newDigest(1) instanceof PlainSha256);
  }

  @Test
  void pastTheBudget_theProviders_andFromThenOn() {
    Sha256.setPlainBudget(100);

    assertFalse(Sha256.newDigest(101) instanceof PlainSha256);
    assertFalse(Sha256.newDigest(100) instanceof PlainSha256); // the providers are up: no gain left
  }

  @Test
  void unknownLength_theProviders() {
    Sha256.setPlainBudget(100);

    assertFalse(Sha256.newDigest(-1) instanceof PlainSha256);
  }

  @Test
  void onceTheProvidersDigestIsMade_neverPlainAgain() {
    Sha256.setPlainBudget(100);

    Sha256.newDigest();

    assertFalse(Sha256.newDigest(0) instanceof PlainSha256);
    assertFalse(Sha256.takePlain(0));
  }

  @Test
  void theDefaultBudget_holdsACommandsSmallPayload() {
    assertEquals(1 << 20, Sha256.PLAIN_BUDGET);
    Sha256.setPlainBudget(Sha256.PLAIN_BUDGET);

    assertInstanceOf(PlainSha256.class, Sha256.newDigest(1 << 20));
  }

  @Test
  void of_sameHashFromEitherDigest() throws Exception {
    Sha256.setPlainBudget(3);
    assertEquals(ABC_HEX, Sha256.of(ABC)); // plain: the budget held it
    assertEquals(ABC_HEX, Sha256.of(ABC)); // the providers': the budget is spent
    Sha256.setPlainBudget(3);
    assertEquals(ABC_HEX, Sha256.of(new ByteArrayInputStream(ABC), 3));
    assertEquals(ABC_HEX, Sha256.of(new ByteArrayInputStream(ABC)));
    assertTrue(Sha256.isHex(ABC_HEX));
  }

  @Test
  void outputKey_sameKeyWhetherPlainOrTheProvidersHashedIt() {
    RunSpec spec = RunSpec.of("p", Window.closedAt(java.time.Instant.parse("2024-09-10T20:27:30Z"),
        java.time.Duration.ofHours(1), java.time.Duration.ZERO), 1).withInput("a", "b");
    String expected = Sha256.hex(new PlainSha256().digest(spec.canonicalBytes()));

    Sha256.setPlainBudget(Sha256.PLAIN_BUDGET);
    String plain = spec.outputKey().toString();
    Sha256.setPlainBudget(-1); // the providers are up: the per-thread digest
    String providers = spec.outputKey().toString();

    assertEquals(plain, providers);
    assertTrue(providers.endsWith("-" + expected), providers);
  }
}
