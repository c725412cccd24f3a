package dev.idem.fuzz;

import dev.idem.core.publish.ClaimPolicy;
import java.time.Duration;
import java.util.Locale;

/**
 * How a scenario's replicas use advisory claims, the same for all of them: on or off; the ttl (a third
 * of it the heartbeat), the wait bound and the poll interval, in milliseconds so that a scenario lasts
 * a second or two; and what another writer left on the first replica's key before the replicas start.
 *
 * @param enabled whether the replicas use claims (a {@link ClaimFate.Kind#OFF} replica does not either way)
 * @param ttlMs a claim not renewed for this long is stale
 * @param waitMs the longest a replica waits for a claimant's object (0: it looks once)
 * @param pollMs how often a waiting replica looks
 * @param forgery what is on the first replica's key before the replicas start
 * @param forgeryMs for {@link Forgery#FRESH}, how long the forger keeps renewing its claim
 */
public record ClaimSetup(boolean enabled, int ttlMs, int waitMs, int pollMs, Forgery forgery, int forgeryMs) {
  /**
   * What the scenarios of {@link Scenarios#scenarios} run with: claims off, so that their replicas race
   * as they would with every claim lost (claims on, most would wait and skip instead of racing, and the
   * races those scenarios exist for, and the breakages they find, would come rarely). The claim scenarios
   * ({@link Scenarios#claimScenarios}) run with claims on.
   */
  static final ClaimSetup OFF = new ClaimSetup(false, 300, 1_000, 25, Forgery.NONE, 0);

  /** Claims on, with these times and this forgery. */
  ClaimSetup(int ttlMs, int waitMs, int pollMs, Forgery forgery, int forgeryMs) {
    this(true, ttlMs, waitMs, pollMs, forgery, forgeryMs);
  }

  public ClaimSetup {
    java.util.Objects.requireNonNull(forgery, "forgery");
  }

  /** What another writer left on the first replica's key. */
  public enum Forgery {
    NONE(""),
    /**
     * A writer that never publishes holds a fresh claim and keeps renewing it for {@code forgeryMs}: the
     * replicas must wait at most their bound, then run (or take over once it stops renewing).
     */
    FRESH("a writer that never publishes holds a fresh claim and renews it for %d ms"),
    /**
     * (Filesystem) an entry stamped an hour ahead, by a clock far off: it looks fresh for the whole run
     * though nobody renews it, so every replica meeting it waits its bound and runs.
     */
    STAMPED_AHEAD("a claim entry stamped an hour ahead (a clock far off) that nobody renews"),
    /** (Filesystem) an entry stamped an hour behind: stale at once, taken over. */
    STAMPED_BEHIND("a claim entry stamped an hour behind, stale at once"),
    /**
     * (Filesystem) entries that are not claims: garbage, a document for another key, a truncated one, an
     * oversized one, a link, a temporary: all read as absent, never waited for, never an error.
     */
    CORRUPT("claim entries that are not claims (garbage, another key's, truncated, oversized, a link, a temporary)");

    final String story;

    Forgery(String story) {
      this.story = story;
    }
  }

  /** The writer id of the forged claims. */
  static final String FORGER = "forger";

  /** The publisher's policy for a replica with {@code fate}. */
  ClaimPolicy policy(ClaimFate fate) {
    if (!enabled || fate.kind() == ClaimFate.Kind.OFF) {
      return ClaimPolicy.off();
    }
    return ClaimPolicy.defaults().ttl(Duration.ofMillis(ttlMs)).waitAtMost(Duration.ofMillis(waitMs))
        .poll(Duration.ofMillis(pollMs));
  }

  @Override
  public String toString() {
    if (!enabled) {
      return "claims off";
    }
    return String.format(Locale.ROOT, "claims: ttl %d ms, wait at most %d ms, poll %d ms", ttlMs, waitMs, pollMs)
        + (forgery == Forgery.NONE ? "" : "; on replica 1's key, " + String.format(Locale.ROOT, forgery.story, forgeryMs));
  }

  String encode() {
    return enabled + ":" + ttlMs + ":" + waitMs + ":" + pollMs + ":" + forgery.name() + ":" + forgeryMs;
  }

  static ClaimSetup decode(String s) {
    String[] f = s.split(":", 6);
    return new ClaimSetup(Boolean.parseBoolean(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3]),
        Forgery.valueOf(f[4]), Integer.parseInt(f[5]));
  }
}
