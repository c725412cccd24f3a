package dev.idem.core.store;

import java.util.Objects;

/**
 * Result of {@link ObjectStore#putIfAbsent}.
 *
 * @param status what happened
 * @param stored the object now at the key (this call's for CREATED, the earlier one's otherwise)
 * @param attemptSha256 SHA-256 of the bytes this call offered
 * @param attemptSize size of the bytes this call offered
 * @param evidenceKey for DIVERGENT, where the offered bytes were kept, or {@code null} when the store
 *     was configured not to keep them or could not; always {@code null} otherwise
 * @param record for DIVERGENT, what the store could record of the attempt (P8); {@code null} otherwise
 * @param recordFailure when {@code record} is not {@link DivergenceRecord#RECORDED}, why: one line naming
 *     what failed; {@code null} otherwise
 */
public record PutOutcome(PutStatus status, ObjectInfo stored, String attemptSha256, long attemptSize,
    String evidenceKey, DivergenceRecord record, String recordFailure) {
  public PutOutcome {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(stored, "stored");
    Objects.requireNonNull(attemptSha256, "attemptSha256");
    if (status != PutStatus.DIVERGENT && (evidenceKey != null || record != null)) {
      throw new IllegalArgumentException("only a DIVERGENT outcome has evidence or a divergence record");
    }
    if (status == PutStatus.DIVERGENT && record == null) {
      throw new IllegalArgumentException("a DIVERGENT outcome says what was recorded of it");
    }
    if ((record != null && record != DivergenceRecord.RECORDED) != (recordFailure != null)) {
      throw new IllegalArgumentException("a failure is named exactly when the divergence was not fully recorded");
    }
    if (evidenceKey != null && record != DivergenceRecord.RECORDED) {
      throw new IllegalArgumentException("evidence bytes kept means the divergence was recorded");
    }
    if ((status == PutStatus.DIVERGENT) == stored.sha256().equals(attemptSha256)) {
      throw new IllegalArgumentException("status " + status + " contradicts the hashes");
    }
  }

  /** An outcome whose divergence, if any, was fully recorded ({@link DivergenceRecord#RECORDED}). */
  public PutOutcome(PutStatus status, ObjectInfo stored, String attemptSha256, long attemptSize, String evidenceKey) {
    this(status, stored, attemptSha256, attemptSize, evidenceKey,
        status == PutStatus.DIVERGENT ? DivergenceRecord.RECORDED : null, null);
  }

  /**
   * A DIVERGENT outcome whose record is incomplete: {@code record} is {@link
   * DivergenceRecord#BYTES_NOT_KEPT} or {@link DivergenceRecord#NOT_RECORDED}, {@code failure} why.
   */
  public static PutOutcome divergentUnrecorded(ObjectInfo stored, String attemptSha256, long attemptSize,
      DivergenceRecord record, String failure) {
    if (record == DivergenceRecord.RECORDED) {
      throw new IllegalArgumentException("a fully recorded divergence is not unrecorded");
    }
    return new PutOutcome(PutStatus.DIVERGENT, stored, attemptSha256, attemptSize, null, record,
        Objects.requireNonNull(failure, "failure"));
  }
}
