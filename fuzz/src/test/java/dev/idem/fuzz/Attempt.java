package dev.idem.fuzz;

import dev.idem.core.publish.PublishReport;
import dev.idem.core.store.DivergenceRecord;

/**
 * One call of {@code Publisher.publish} by a replica, as the runner saw it.
 *
 * @param result OK, IO_ERROR (an {@link java.io.IOException}: retrying is allowed), REFUSED (an
 *     {@link IllegalArgumentException}: the publish was refused before anything was read or written, as
 *     for a window that has not closed), ERROR (anything else: a contract breach unless it is a
 *     simulated death), DIED
 * @param status the publish status name, or {@code null}
 * @param advance the pointer advance status name, or {@code null}
 * @param storedSha SHA-256 of the object at the key as the report says, or {@code null}
 * @param storedWriter writer of that object as the report says, or {@code null}
 * @param detail error message, or {@code null}
 * @param invokeNanos no later than the call began, on the runner's clock
 * @param returnNanos no earlier than the call returned, on the runner's clock
 * @param advanceMillis how long the pointer advance took as its report says, or -1 when there was none
 * @param record for DIVERGENT, what the store said it recorded of the attempt ({@code DivergenceRecord}
 *     name), else {@code null}
 * @param claim what the call did with advisory claims, as {@link ClaimSeam} saw it, or {@code null}
 */
record Attempt(
    Result result, String status, String advance, String storedSha, String storedWriter, String detail,
    long invokeNanos, long returnNanos, long advanceMillis, String record, ClaimSeen claim) {

  enum Result { OK, IO_ERROR, REFUSED, ERROR, DIED }

  /**
   * What one publish call did with advisory claims.
   *
   * @param status the claim report's status name, {@link #NONE} for a call that found the key published
   *     at its first look (no claim report), or {@code null} when the call returned no report
   * @param claimant the writer of the other claim the report names, or {@code null}
   * @param reportedWaitMs how long the report says the call waited for another writer's claim, or -1
   * @param waitMs how long the call waited, measured by {@link ClaimSeam}: from the first claim call that
   *     answered TAKEN to the end of the wait; -1 when no claim call answered TAKEN
   * @param delayMs the claim delays injected into the call during that wait (its own, not the wait's)
   */
  record ClaimSeen(String status, String claimant, long reportedWaitMs, long waitMs, long delayMs) {
    static final String NONE = "NONE";

    String encode() {
      return String.join("|", dash(status), dash(claimant), String.valueOf(reportedWaitMs), String.valueOf(waitMs),
          String.valueOf(delayMs));
    }

    static ClaimSeen decode(String s) {
      if (s.equals("-")) {
        return null;
      }
      String[] f = s.split("\\|", 5);
      return new ClaimSeen(undash(f[0]), undash(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]));
    }
  }

  Attempt(Result result, String status, String advance, String storedSha, String storedWriter, String detail,
      long invokeNanos, long returnNanos) {
    this(result, status, advance, storedSha, storedWriter, detail, invokeNanos, returnNanos, -1, null, null);
  }

  static Attempt of(PublishReport r, long invokeNanos, long returnNanos, ClaimSeen claim) {
    return new Attempt(Result.OK, r.status().name(), r.pointer() == null ? null : r.pointer().status().name(),
        r.stored().sha256(), r.stored().writer(), null, invokeNanos, returnNanos,
        r.pointer() == null ? -1 : r.pointer().elapsed().toMillis(),
        r.put() == null || r.put().record() == null ? null : r.put().record().name(), claim);
  }

  Attempt withClaim(ClaimSeen seen) {
    return new Attempt(result, status, advance, storedSha, storedWriter, detail, invokeNanos, returnNanos, advanceMillis,
        record, seen);
  }

  /**
   * A DIVERGENT report whose divergence the store recorded (its marker was written, its bytes kept or
   * not): the scan must report the key (P8). One the store could not record at all is reported only here.
   */
  boolean recordedDivergence() {
    return result == Result.OK && "DIVERGENT".equals(status) && !DivergenceRecord.NOT_RECORDED.name().equals(record);
  }

  static Attempt failed(Result result, Throwable t, long invokeNanos, long returnNanos) {
    return new Attempt(result, null, null, null, null, t.getClass().getSimpleName() + ": " + t.getMessage(),
        invokeNanos, returnNanos);
  }

  /** How long the call took on the runner's clock (for a process, a conservative upper bound). */
  long millis() {
    return (returnNanos - invokeNanos) / 1_000_000;
  }

  /** One line of a replica process's report; {@link #decode} reads it back (times are the parent's). */
  String encode() {
    return String.join("\t", result.name(), dash(status), dash(advance), dash(storedSha), dash(storedWriter),
        String.valueOf(advanceMillis), dash(record), claim == null ? "-" : claim.encode(),
        detail == null ? "-" : detail.replace('\t', ' ').replace('\n', ' '));
  }

  static Attempt decode(String line, long invokeNanos, long returnNanos) {
    String[] f = line.split("\t", 9);
    return new Attempt(Result.valueOf(f[0]), undash(f[1]), undash(f[2]), undash(f[3]), undash(f[4]), undash(f[8]),
        invokeNanos, returnNanos, Long.parseLong(f[5]), undash(f[6]), ClaimSeen.decode(f[7]));
  }

  private static String dash(String s) {
    return s == null ? "-" : s;
  }

  private static String undash(String s) {
    return s.equals("-") ? null : s;
  }

  @Override
  public String toString() {
    return switch (result) {
      case OK -> status + (record == null || record.equals(DivergenceRecord.RECORDED.name()) ? "" : "(" + record + ")")
          + (advance == null ? "" : "/" + advance) + (claim == null || ClaimSeen.NONE.equals(claim.status()) ? ""
              : " claim " + claim.status() + (claim.claimant() == null ? "" : " of " + claim.claimant())
                  + (claim.waitMs() < 0 ? "" : " after " + claim.waitMs() + "ms"));
      case DIED -> "died";
      default -> result + "(" + detail + ")";
    };
  }
}
