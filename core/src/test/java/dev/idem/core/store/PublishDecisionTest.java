package dev.idem.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PublishDecisionTest {
  private static final String A = "aa".repeat(32);
  private static final String B = "bb".repeat(32);
  private static final ObjectInfo STORED = new ObjectInfo("p/1/state-x", A, 3, "w", Instant.EPOCH);

  /** A store's steps kept in memory: what was written, in order, and failures to inject per step. */
  private static final class Steps implements PublishDecision.Steps {
    final List<String> written = new ArrayList<>();
    IOException identicalFails;
    IOException markerFails;
    IOException bytesFail;
    Class<? extends IOException> fatal;

    @Override
    public void recordIdentical(ObjectInfo stored) throws IOException {
      fail(identicalFails);
      written.add("identical " + stored.sha256() + " " + stored.size());
    }

    @Override
    public void writeMarker(ObjectInfo stored, String attemptSha256, long attemptSize) throws IOException {
      fail(markerFails);
      written.add("marker " + attemptSha256 + " " + attemptSize + " over " + stored.sha256());
    }

    @Override
    public String keepBytes(ObjectInfo stored, String attemptSha256) throws IOException {
      fail(bytesFail);
      written.add("bytes " + attemptSha256);
      return "_idem/evidence/" + stored.key() + "!" + attemptSha256;
    }

    @Override
    public String marker() {
      return "the marker m";
    }

    @Override
    public String bytes() {
      return "the bytes at b";
    }

    @Override
    public boolean propagates(IOException failure) {
      return fatal != null && fatal.isInstance(failure);
    }

    private static void fail(IOException e) throws IOException {
      if (e != null) {
        throw e;
      }
    }
  }

  @Test
  void decide_sameSha_identicalRecorded() throws IOException {
    Steps steps = new Steps();
    PutOutcome out = PublishDecision.keepingBytes().decide(STORED, A, 3, steps);
    assertEquals(new PutOutcome(PutStatus.IDENTICAL, STORED, A, 3, null), out);
    assertEquals(List.of("identical " + A + " 3"), steps.written);
  }

  @Test
  void decide_identicalNotRecorded_thrown() {
    Steps steps = new Steps();
    steps.identicalFails = new IOException("disk full");
    IOException e = assertThrows(IOException.class, () -> PublishDecision.keepingBytes().decide(STORED, A, 3, steps));
    assertSame(steps.identicalFails, e);
  }

  @Test
  void decide_differentSha_markerThenBytes() throws IOException {
    Steps steps = new Steps();
    PutOutcome out = PublishDecision.keepingBytes().decide(STORED, B, 4, steps);
    assertEquals(new PutOutcome(PutStatus.DIVERGENT, STORED, B, 4, "_idem/evidence/p/1/state-x!" + B), out);
    assertEquals(DivergenceRecord.RECORDED, out.record());
    assertEquals(List.of("marker " + B + " 4 over " + A, "bytes " + B), steps.written);
  }

  @Test
  void decide_markerOnly_noBytesWritten() throws IOException {
    Steps steps = new Steps();
    PutOutcome out = PublishDecision.markerOnly().decide(STORED, B, 4, steps);
    assertEquals(new PutOutcome(PutStatus.DIVERGENT, STORED, B, 4, null), out);
    assertEquals(DivergenceRecord.RECORDED, out.record());
    assertEquals(List.of("marker " + B + " 4 over " + A), steps.written);
  }

  @Test
  void decide_markerFails_notRecordedAndNoBytesWritten() throws IOException {
    Steps steps = new Steps();
    steps.markerFails = new AccessDeniedException("_idem/evidence", null, "AccessDenied\nretried 3 times");
    PutOutcome out = PublishDecision.keepingBytes().decide(STORED, B, 4, steps);
    assertEquals(PutOutcome.divergentUnrecorded(STORED, B, 4, DivergenceRecord.NOT_RECORDED,
        "could not write the marker m: _idem/evidence: AccessDenied retried 3 times"), out);
    assertEquals(List.of(), steps.written);
  }

  @Test
  void decide_bytesFail_bytesNotKeptAfterMarker() throws IOException {
    Steps steps = new Steps();
    steps.bytesFail = new IOException("503 SlowDown");
    PutOutcome out = PublishDecision.keepingBytes().decide(STORED, B, 4, steps);
    assertEquals(PutOutcome.divergentUnrecorded(STORED, B, 4, DivergenceRecord.BYTES_NOT_KEPT,
        "could not keep the bytes at b: 503 SlowDown"), out);
    assertEquals(List.of("marker " + B + " 4 over " + A), steps.written);
  }

  @Test
  void decide_failureWithoutMessage_namedByItsClass() throws IOException {
    Steps steps = new Steps();
    steps.bytesFail = new AccessDeniedException(null);
    PutOutcome out = PublishDecision.keepingBytes().decide(STORED, B, 4, steps);
    assertEquals("could not keep the bytes at b: AccessDeniedException", out.recordFailure());
  }

  @Test
  void decide_storesFatalFailureOfMarker_thrown() {
    Steps steps = new Steps();
    steps.fatal = AccessDeniedException.class;
    steps.markerFails = new AccessDeniedException("a link");
    IOException e = assertThrows(IOException.class, () -> PublishDecision.keepingBytes().decide(STORED, B, 4, steps));
    assertSame(steps.markerFails, e);
    assertEquals(List.of(), steps.written);
  }

  @Test
  void decide_storesFatalFailureOfBytes_thrown() {
    Steps steps = new Steps();
    steps.fatal = AccessDeniedException.class;
    steps.bytesFail = new AccessDeniedException("a link");
    IOException e = assertThrows(IOException.class, () -> PublishDecision.keepingBytes().decide(STORED, B, 4, steps));
    assertSame(steps.bytesFail, e);
    assertEquals(List.of("marker " + B + " 4 over " + A), steps.written);
  }

  @Test
  void decide_otherFailureWhereStoreHasFatalOnes_returned() throws IOException {
    Steps steps = new Steps();
    steps.fatal = AccessDeniedException.class;
    steps.markerFails = new IOException("disk full");
    assertEquals(DivergenceRecord.NOT_RECORDED, PublishDecision.keepingBytes().decide(STORED, B, 4, steps).record());
  }

  @Test
  void decide_defaultSteps_propagateNothing() throws IOException {
    Steps steps = new Steps();
    PublishDecision.Steps plain = new PublishDecision.Steps() {
      @Override
      public void recordIdentical(ObjectInfo stored) {}

      @Override
      public void writeMarker(ObjectInfo stored, String attemptSha256, long attemptSize) throws IOException {
        throw new AccessDeniedException("a link");
      }

      @Override
      public String keepBytes(ObjectInfo stored, String attemptSha256) throws IOException {
        return steps.keepBytes(stored, attemptSha256);
      }

      @Override
      public String marker() {
        return "m";
      }

      @Override
      public String bytes() {
        return "b";
      }
    };
    PutOutcome out = PublishDecision.keepingBytes().decide(STORED, B, 4, plain);
    assertEquals("could not write m: a link", out.recordFailure());
    assertEquals(List.of(), steps.written);
  }

  @Test
  void identical_recordsWithTheStoredHashAndSize() throws IOException {
    Steps steps = new Steps();
    PutOutcome out = PublishDecision.markerOnly().identical(STORED, steps);
    assertEquals(new PutOutcome(PutStatus.IDENTICAL, STORED, A, 3, null), out);
    assertNull(out.record());
    assertEquals(List.of("identical " + A + " 3"), steps.written);
  }

  @Test
  void decide_nulls_refused() {
    Steps steps = new Steps();
    PublishDecision d = PublishDecision.keepingBytes();
    assertThrows(NullPointerException.class, () -> d.decide(null, A, 3, steps));
    assertThrows(NullPointerException.class, () -> d.decide(STORED, null, 3, steps));
    assertThrows(NullPointerException.class, () -> d.decide(STORED, B, 3, null));
  }
}
