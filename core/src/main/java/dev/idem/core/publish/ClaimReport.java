package dev.idem.core.publish;

import dev.idem.core.store.Claim;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link Publisher#publish} call did with the key's advisory claim ({@link ClaimPolicy}):
 * whether it held one while its task ran, waited for another writer's, took one over, or ran without.
 * Reported so that an operator sees why a replica skipped (whose object it waited for) or ran beside
 * another, and so metrics can count waits, takeovers and skips by claim.
 *
 * @param status what happened
 * @param claimant the other writer's claim last seen (WAITED_SKIPPED, TAKEN_OVER, WAIT_EXPIRED), or
 *     {@code null}
 * @param waited how long this replica waited for another writer's claim ({@link Duration#ZERO} if it did not)
 * @param renewals how many times the held claim was renewed while the task ran
 * @param renewalFailures how many renewals failed (the claim then ages; a waiter may run beside)
 */
public record ClaimReport(ClaimStatus status, Claim claimant, Duration waited, int renewals, int renewalFailures) {
  public ClaimReport {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(waited, "waited");
  }

  /** The other writer's claim last seen, when one was. */
  public Optional<Claim> lastClaimant() {
    return Optional.ofNullable(claimant);
  }

  /** How the claim went. */
  public enum ClaimStatus {
    /** Claims are off ({@link ClaimPolicy#off()}): the task ran without looking. */
    OFF,
    /** The store keeps no claims ({@code ObjectStore#claims()} is empty): the task ran without one. */
    UNSUPPORTED,
    /** This replica claimed the key, ran the task while renewing, and released the claim. */
    HELD,
    /**
     * Another writer's claim was found and went away without an object, or went stale: this replica
     * claimed the key itself and ran.
     */
    TAKEN_OVER,
    /** Another writer's claim was found, and its object appeared while this replica waited: SKIPPED. */
    WAITED_SKIPPED,
    /** Another writer's claim stayed fresh past the wait bound: this replica ran anyway, without a claim. */
    WAIT_EXPIRED,
    /** The claim could not be read or written (the store failed): the task ran without one. */
    FAILED
  }
}
