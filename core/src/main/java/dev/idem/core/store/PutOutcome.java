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
 *     was configured not to keep them; always {@code null} otherwise
 */
public record PutOutcome(
    PutStatus status, ObjectInfo stored, String attemptSha256, long attemptSize, String evidenceKey) {
  public PutOutcome {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(stored, "stored");
    Objects.requireNonNull(attemptSha256, "attemptSha256");
    if (status != PutStatus.DIVERGENT && evidenceKey != null) {
      throw new IllegalArgumentException("only a DIVERGENT outcome has evidence");
    }
    if ((status == PutStatus.DIVERGENT) == stored.sha256().equals(attemptSha256)) {
      throw new IllegalArgumentException("status " + status + " contradicts the hashes");
    }
  }
}
