package dev.idem.core.publish;

import dev.idem.core.OutputKey;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.Retirement;
import java.util.Objects;

/**
 * What one {@link Publisher#publish} call did.
 *
 * @param key the output key
 * @param status the object outcome
 * @param stored the object now at the key
 * @param put the store's put outcome, or {@code null} when the task was skipped
 * @param pointer the pointer advance, or {@code null} when pointer advancing was off
 * @param retired for REPUBLISHED, the retirement mark of the pipeline that covers the window (when gc
 *     retired it, up to which window, by what); {@code null} for every other status
 * @param claim what was done with the key's advisory claim ({@link ClaimPolicy}), or {@code null} when
 *     no claim was looked at: the key was published at the first look, or a payload was published
 *     without a task ({@link Publisher#publish(dev.idem.core.RunSpec, dev.idem.core.store.Payload)})
 */
public record PublishReport(OutputKey key, PublishStatus status, ObjectInfo stored, PutOutcome put, AdvanceReport pointer,
    Retirement retired, ClaimReport claim) {
  public PublishReport {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(stored, "stored");
    if ((status == PublishStatus.REPUBLISHED) != (retired != null)) {
      throw new IllegalArgumentException("a REPUBLISHED report, and only one, names the retirement it met");
    }
  }

  /** A report without a claim. */
  public PublishReport(OutputKey key, PublishStatus status, ObjectInfo stored, PutOutcome put, AdvanceReport pointer,
      Retirement retired) {
    this(key, status, stored, put, pointer, retired, null);
  }

  /** A report of any status but REPUBLISHED, without a claim. */
  public PublishReport(OutputKey key, PublishStatus status, ObjectInfo stored, PutOutcome put, AdvanceReport pointer) {
    this(key, status, stored, put, pointer, null, null);
  }

  /** This report with {@code claim} as what was done with the key's claim. */
  public PublishReport withClaim(ClaimReport claim) {
    return new PublishReport(key, status, stored, put, pointer, retired, claim);
  }

  /** True when this replica found different bytes at its key: the deploy-gate signal. */
  public boolean divergent() {
    return status == PublishStatus.DIVERGENT;
  }
}
