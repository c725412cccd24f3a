package dev.idem.fuzz;

import java.util.Locale;

/**
 * What goes wrong with one replica's advisory claims, beside its {@link Fate}: injected at the claims
 * seam ({@link ClaimSeam}), so the same on every store. Claims are advice, so none of these may cost
 * more than duplicated work or a wait up to the bound: no failed publish, no clobber, no lost
 * divergence, no pointer moved back.
 *
 * @param kind what goes wrong
 * @param millis the delay, skew or time before a deletion the kind names; 0 for the others
 */
public record ClaimFate(Kind kind, int millis) {
  /** Claims on, nothing goes wrong with them. */
  static final ClaimFate NORMAL = new ClaimFate(Kind.NORMAL, 0);

  public ClaimFate {
    java.util.Objects.requireNonNull(kind, "kind");
  }

  public enum Kind {
    /** Claims on, nothing goes wrong. */
    NORMAL("claims on"),
    /** This replica's publisher has claims switched off: it neither claims nor waits. */
    OFF("claims off"),
    /** Its claim write fails before anything is written: it runs without a claim (FAILED). */
    CLAIM_FAILS("its claim write fails"),
    /** Its claim is written but the reply is lost: it runs without a claim, leaving its entry to go stale. */
    CLAIM_REPLY_LOST("its claim is written but the reply is lost"),
    /** Every claim write of it is acknowledged and dropped: nobody sees its claim. */
    DROPPED("its claim writes are silently dropped"),
    /** Its claim calls take {@code millis} each: a slow store. */
    CLAIM_DELAYED("its claim calls take %d ms"),
    /** Every renewal fails: its claim goes stale while it works. */
    RENEWALS_FAIL("its renewals fail"),
    /** Every renewal takes {@code millis} before it writes: its claim may go stale between them. */
    RENEWALS_DELAYED("its renewals take %d ms"),
    /** Its claim is deleted under it (by hand, or a gc that judged it stale) {@code millis} after it held it. */
    DELETED_UNDER_IT("its claim is deleted under it after %d ms"),
    /** Its release fails: its claim is left behind and goes stale. */
    RELEASE_FAILS("its claim release fails"),
    /** It cannot read claims: every read fails. */
    READ_FAILS("it cannot read claims"),
    /**
     * It judges claim ages {@code millis} off (positive: claims look older than they are, so live ones
     * look stale; negative: younger, so dead ones look fresh): a clock far off.
     */
    SKEWED("its clock judges claim ages %+d ms off");

    final String story;

    Kind(String story) {
      this.story = story;
    }
  }

  /** Whether this fate may leave its replica's claim entry behind (released by nobody, it goes stale). */
  boolean mayLeaveClaim() {
    return kind == Kind.CLAIM_REPLY_LOST || kind == Kind.RELEASE_FAILS;
  }

  @Override
  public String toString() {
    return kind.story.contains("%") ? String.format(Locale.ROOT, kind.story, millis) : kind.story;
  }

  /** A compact form for a replica process's command line. */
  String encode() {
    return kind.name() + ":" + millis;
  }

  static ClaimFate decode(String s) {
    int colon = s.indexOf(':');
    return new ClaimFate(Kind.valueOf(s.substring(0, colon)), Integer.parseInt(s.substring(colon + 1)));
  }
}
