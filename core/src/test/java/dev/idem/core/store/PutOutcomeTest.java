package dev.idem.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class PutOutcomeTest {
  private static final String A = "aa".repeat(32);
  private static final String B = "bb".repeat(32);
  private static final ObjectInfo STORED = new ObjectInfo("k", A, 3, "w", Instant.EPOCH);

  @Test
  void divergent_withoutRecordFailure_recorded() {
    PutOutcome o = new PutOutcome(PutStatus.DIVERGENT, STORED, B, 4, "_idem/evidence/k!" + B);
    assertEquals(DivergenceRecord.RECORDED, o.record());
    assertNull(o.recordFailure());
    assertNull(new PutOutcome(PutStatus.IDENTICAL, STORED, A, 3, null).record());
  }

  @Test
  void divergentUnrecorded_namesTheFailureAndKeepsNoEvidence() {
    PutOutcome o = PutOutcome.divergentUnrecorded(STORED, B, 4, DivergenceRecord.NOT_RECORDED, "AccessDenied");
    assertEquals(PutStatus.DIVERGENT, o.status());
    assertEquals("AccessDenied", o.recordFailure());
    assertNull(o.evidenceKey());
    assertThrows(IllegalArgumentException.class,
        () -> PutOutcome.divergentUnrecorded(STORED, B, 4, DivergenceRecord.RECORDED, "x"));
    assertThrows(NullPointerException.class,
        () -> PutOutcome.divergentUnrecorded(STORED, B, 4, DivergenceRecord.BYTES_NOT_KEPT, null));
  }

  @Test
  void constructor_inconsistentRecord_refused() {
    assertThrows(IllegalArgumentException.class,
        () -> new PutOutcome(PutStatus.DIVERGENT, STORED, B, 4, null, null, null), "a divergence says what was kept");
    assertThrows(IllegalArgumentException.class,
        () -> new PutOutcome(PutStatus.CREATED, STORED, A, 3, null, DivergenceRecord.RECORDED, null));
    assertThrows(IllegalArgumentException.class,
        () -> new PutOutcome(PutStatus.DIVERGENT, STORED, B, 4, null, DivergenceRecord.RECORDED, "why?"));
    assertThrows(IllegalArgumentException.class,
        () -> new PutOutcome(PutStatus.DIVERGENT, STORED, B, 4, "_idem/evidence/k!" + B,
            DivergenceRecord.BYTES_NOT_KEPT, "lost"), "bytes kept are no lost bytes");
  }
}
