package dev.idem.core.store;

import java.io.IOException;
import java.util.Objects;

/**
 * What a create-only publish is once it knows its key holds an object: IDENTICAL when the stored
 * object's SHA-256 is the attempt's, else DIVERGENT, recorded fact before bytes (P8). One decision for
 * every store; a store supplies only its own {@link Steps} (how it records an identical attempt, writes
 * the divergence marker and keeps the bytes).
 *
 * <p>A divergence, step by step:
 *
 * <ol>
 *   <li>{@link Steps#writeMarker}: the divergence's marker, durable when it returns. If it fails, the
 *       publish is DIVERGENT {@link DivergenceRecord#NOT_RECORDED} and no byte is written.
 *   <li>Unless the decision {@linkplain #markerOnly() keeps no bytes}: {@link Steps#keepBytes}, which
 *       returns where the bytes are. If it fails, the publish is DIVERGENT {@link
 *       DivergenceRecord#BYTES_NOT_KEPT}; the marker stays, so the scan still sees the divergence.
 * </ol>
 *
 * Once the hashes differ the outcome is known, so a failure of either step is returned in the outcome
 * ({@link PutOutcome#recordFailure()}: one line naming what could not be written and why), never thrown;
 * only a failure the store {@linkplain Steps#propagates declares its own to throw} (a link refused inside
 * a store's root, say) propagates. A failure to record an identical attempt is thrown as the store's step
 * throws it. Immutable and thread-safe.
 */
public final class PublishDecision {
  private static final PublishDecision KEEPING_BYTES = new PublishDecision(true);
  private static final PublishDecision MARKER_ONLY = new PublishDecision(false);

  private final boolean keepBytes;

  private PublishDecision(boolean keepBytes) {
    this.keepBytes = keepBytes;
  }

  /** A decision that keeps a divergent attempt's bytes after its marker (a store's default). */
  public static PublishDecision keepingBytes() {
    return KEEPING_BYTES;
  }

  /** A decision that records a divergent attempt by its marker alone and keeps none of its bytes. */
  public static PublishDecision markerOnly() {
    return MARKER_ONLY;
  }

  /**
   * The outcome of an attempt with {@code attemptSha256} and {@code attemptSize} at a key holding
   * {@code stored}: IDENTICAL (recorded by {@link Steps#recordIdentical}) or DIVERGENT (recorded as the
   * class comment says).
   *
   * @throws IOException when recording an identical attempt failed, or a divergence step failed with an
   *     exception the store {@linkplain Steps#propagates propagates}; what it leaves is the step's to say
   */
  public PutOutcome decide(ObjectInfo stored, String attemptSha256, long attemptSize, Steps steps)
      throws IOException {
    Objects.requireNonNull(stored, "stored");
    Objects.requireNonNull(attemptSha256, "attemptSha256");
    Objects.requireNonNull(steps, "steps");
    if (stored.sha256().equals(attemptSha256)) {
      steps.recordIdentical(stored);
      return new PutOutcome(PutStatus.IDENTICAL, stored, attemptSha256, attemptSize, null);
    }
    try {
      steps.writeMarker(stored, attemptSha256, attemptSize);
    } catch (IOException e) {
      return failed(steps, e, stored, attemptSha256, attemptSize, DivergenceRecord.NOT_RECORDED,
          "could not write " + steps.marker());
    }
    if (!keepBytes) {
      return new PutOutcome(PutStatus.DIVERGENT, stored, attemptSha256, attemptSize, null);
    }
    try {
      String evidence = steps.keepBytes(stored, attemptSha256);
      return new PutOutcome(PutStatus.DIVERGENT, stored, attemptSha256, attemptSize, evidence);
    } catch (IOException e) {
      return failed(steps, e, stored, attemptSha256, attemptSize, DivergenceRecord.BYTES_NOT_KEPT,
          "could not keep " + steps.bytes());
    }
  }

  /**
   * As {@link #decide} for an attempt already known to hold the stored bytes: IDENTICAL, recorded. For a
   * store that compares hashes before it has the attempt's bytes at hand, so has nothing to keep.
   */
  public PutOutcome identical(ObjectInfo stored, Steps steps) throws IOException {
    return decide(stored, stored.sha256(), stored.size(), steps);
  }

  private static PutOutcome failed(Steps steps, IOException e, ObjectInfo stored, String sha, long size,
      DivergenceRecord record, String what) throws IOException {
    if (steps.propagates(e)) {
      throw e;
    }
    return PutOutcome.divergentUnrecorded(stored, sha, size, record, what + ": " + oneLine(e));
  }

  /** {@code e}'s message on one line (its class's name when it has none). */
  private static String oneLine(IOException e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().replace('\n', ' ');
  }

  /**
   * The store's side of a publish that met an object: one instance per attempt, holding what the store
   * needs to write (where the attempt's bytes are, its writer and schema). The decision calls at most
   * one of {@link #recordIdentical} and {@link #writeMarker}, then {@link #keepBytes} only after the
   * marker.
   */
  public interface Steps {
    /** Records an attempt that found the same bytes stored (a store that keeps no such record does nothing). */
    void recordIdentical(ObjectInfo stored) throws IOException;

    /**
     * Writes the divergence's marker, create-only, naming the attempt's SHA-256 and size and the stored
     * object's SHA-256; durable once it returns (P8).
     */
    void writeMarker(ObjectInfo stored, String attemptSha256, long attemptSize) throws IOException;

    /** Keeps the attempt's bytes, create-only; returns their evidence key ({@link PutOutcome#evidenceKey()}). */
    String keepBytes(ObjectInfo stored, String attemptSha256) throws IOException;

    /** The marker, as a failure names it after "could not write " (e.g. "the divergence marker s3://b/k"). */
    String marker();

    /** The bytes' place, as a failure names it after "could not keep " (e.g. "the divergent bytes at …"). */
    String bytes();

    /**
     * Whether {@code failure} of a divergence step is thrown rather than returned in the outcome: a
     * store's own refusal that must surface wherever it happens. None by default.
     */
    default boolean propagates(IOException failure) {
      return false;
    }
  }
}
