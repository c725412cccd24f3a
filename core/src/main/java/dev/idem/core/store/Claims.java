package dev.idem.core.store;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A store's advisory claims ({@link Claim}): a writer about to produce a key's object says so, renews
 * the claim while it works, and removes it when done, so that a replica reaching the same unpublished
 * key can wait for that object ({@link ClaimWait}) instead of doing the same work beside it.
 *
 * <h2>Advice, never needed for correctness</h2>
 *
 * Nothing in publishing, the pointer, the scan or retention reads a claim: create-only publish (P2–P4)
 * and the pointer's compare-and-set (G3) decide every outcome, claims or not. So whatever goes wrong
 * with a claim costs at most duplicated work (two writers run, one publishes CREATED, the other
 * IDENTICAL or DIVERGENT), never a clobbered object, a lost divergence or a pointer moved back:
 *
 * <ul>
 *   <li><b>lost</b> (never written, deleted, the store cannot hold claims): the other replica runs too;
 *   <li><b>forged</b> or <b>held by a hung writer</b>: a waiter waits at most its bound, then runs;
 *   <li><b>stale</b> (its writer died): a waiter takes over once it is older than the ttl;
 *   <li><b>duplicated</b> (two writers claim together and both hold): both run;
 *   <li><b>unreadable or malformed</b>: treated as absent, so the reader runs;
 *   <li><b>a clock far off</b>: a claim looks fresh too long (a waiter runs at its bound) or stale too
 *       early (a waiter runs beside its claimant).
 * </ul>
 *
 * <h2>States</h2>
 *
 * A key has no claim, a <i>fresh</i> one (written or renewed less than a ttl ago: {@link
 * Claim#isFresh}), or a <i>stale</i> one (older: its writer stopped renewing, most likely died). Ages
 * are judged by the store's clock ({@link Claim#age()}: each store says which clock and what skew it
 * allows), not by the caller's. A key may hold several claims at once (a takeover writes its own claim
 * beside a stale one; two writers may claim together); {@link #readClaim} answers the freshest.
 *
 * <p>A store reaches it through {@link ObjectStore#claims()}. Without it there are no claims: every
 * replica runs, as it would if every claim were lost.
 */
public interface Claims {

  /**
   * Claims {@code key} for {@code writer}, unless a claim there is fresh (younger than {@code ttl}).
   * When two writers claim at once, each writes its claim and then reads the key's claims again, and
   * the one whose fresh claim is younger yields (removes its own); claims written within the store's
   * time resolution of each other may both be held (duplicated work).
   *
   * @param expected how long the work is expected to take, or {@code null} when unknown
   * @return HELD with this writer's claim, to be renewed and released (and the stale claim it takes
   *     over from, if any); or TAKEN with the other's fresh
   *     claim (nothing of this writer's left behind)
   * @throws IOException when the store failed; a claim of this writer may be left, which goes stale and
   *     costs a waiter at most a ttl. A caller runs as if claims were off.
   */
  Claimed claim(String key, String writer, Duration expected, Duration ttl) throws IOException;

  /**
   * Renews a held claim: its age starts again from zero. Writes the claim anew even if it was removed
   * meanwhile (by gc as stale, or by hand).
   *
   * @return the claim as now held (a store may give it a new {@link Claim#id()}); renew and release that one
   * @throws IOException when the store failed; the old claim is then still there, ageing, or the new
   *     one is and the old one too (the freshest is read)
   */
  Claim renewClaim(Claim held) throws IOException;

  /**
   * Removes one claim entry: a holder's own when its work ends (published, failed or stopped), or a
   * stale one gc removes. Removing nothing is not an error.
   *
   * @return whether the entry was there
   * @throws IOException when the store failed; the claim is then left and goes stale
   */
  boolean releaseClaim(Claim claim) throws IOException;

  /**
   * The freshest claim on {@code key} (the smallest {@link Claim#age()}), or empty when it has none.
   * Entries that cannot be read or are not documents idem wrote are treated as absent.
   *
   * @throws IOException when the store could not be listed; a caller treats the key as unclaimed
   */
  Optional<Claim> readClaim(String key) throws IOException;

  /**
   * Every claim on the keys under {@code prefix}, by key ascending, each key's freshest first: what gc
   * removes when stale, and what a scan reports as held. Unreadable entries are left out, as by
   * {@link #readClaim}.
   */
  List<Claim> listClaims(String prefix) throws IOException;

  /** What {@link #claim} did: this writer holds the claim, or another writer's fresh claim was found. */
  enum Result {
    /** This writer's claim is written: renew it while working, release it when done. */
    HELD,
    /** Another writer's fresh claim is there ({@link Claimed#claim()}); nothing was written. */
    TAKEN
  }

  /**
   * The outcome of {@link #claim}.
   *
   * @param result whether this writer holds the claim
   * @param claim this writer's claim (HELD) or the other's (TAKEN)
   * @param stale for HELD, the freshest of the stale claims found on the key (its writer stopped
   *     renewing: this claim takes over from it), or {@code null} when there were none; {@code null} for TAKEN
   */
  record Claimed(Result result, Claim claim, Claim stale) {
    public Claimed {
      java.util.Objects.requireNonNull(result, "result");
      java.util.Objects.requireNonNull(claim, "claim");
      if (result == Result.TAKEN && stale != null) {
        throw new IllegalArgumentException("a TAKEN claim names the fresh claim, not a stale one");
      }
    }

    /** An outcome that found no stale claim. */
    public Claimed(Result result, Claim claim) {
      this(result, claim, null);
    }
  }
}
