package dev.idem.cli;

import dev.idem.core.RunSpec;
import dev.idem.core.publish.ClaimReport;
import dev.idem.core.publish.ClaimReport.ClaimStatus;
import dev.idem.core.publish.AdvanceReport;
import dev.idem.core.publish.AdvanceStatus;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.PublishStatus;
import dev.idem.core.store.Claim;
import dev.idem.core.store.DivergenceRecord;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PutOutcome;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a publish outcome is told: one human line, or one JSON object; and what it exits with.
 *
 * <p>Keying drift (the pointer stands at this window and schema but names another key) exits 0: this
 * replica's output is published and complete, and failing the job would only make a scheduler retry
 * it to the same result. It is said on stderr and in the JSON, and {@code idem scan --fail-on-drift}
 * is the gate that fails on it.
 *
 * <p>DIVERGENT exits 1 whatever the store could record of it (P8). When the divergence could not be
 * recorded, or its bytes not kept, a line on stderr says so and why (even under {@code --quiet}: then
 * the publish is the only report of the divergence), and so do {@code record=} on the human line and
 * {@code divergence_record} and {@code record_failure} in the JSON; never exit 4 as if the store had
 * only hiccupped.
 *
 * <p>REPUBLISHED (a window that {@code idem gc} had removed, created again) exits 0 too: the output is
 * published and complete. It is said on stderr (when gc removed the window, and that it is created again)
 * and in the JSON ({@code "status":"REPUBLISHED"} and {@code "retired"}), so a late or replayed job
 * that recreates removed history is seen.
 */
final class Reports {
  private Reports() {}

  /** DIVERGENT exits 1; a pointer advance that gave up (BUSY or CONFLICT) exits 3; anything else is success. */
  static int exitCode(PublishReport r) {
    if (r.divergent()) {
      return ExitCodes.DIVERGENT;
    }
    if (r.pointer() != null && r.pointer().status().gaveUp()) {
      return ExitCodes.CONTENDED;
    }
    return ExitCodes.OK;
  }

  /**
   * Prints a publish's report.
   *
   * @param ranOut which bound a pointer advance that gave up ran out of ({@link PointerTimeoutOption#ranOut})
   * @param store the store published to: what it sent so far is in {@code --json}
   */
  static void print(PrintWriter out, PrintWriter err, OutputOptions o, RunSpec spec, PublishReport r, String writer,
      String ranOut, ObjectStore store) {
    if (o.json) {
      out.println(json(spec, r, writer).putIfPresent("requests", StoreRequests.json(store)));
    } else if (!o.quiet) {
      out.println(human(r));
    }
    if (r.divergent() && !o.quiet) {
      err.println("idem: DIVERGENT: " + r.key() + " already holds different bytes (sha256 "
          + r.stored().sha256() + "), this replica's are " + r.put().attemptSha256()
          + ". The stored object is kept; " + recordedClause(r.put().record()) + ". "
          + "Does the key miss an input, or should --schema be bumped?");
    }
    if (r.divergent() && r.put().record() != DivergenceRecord.RECORDED) {
      err.println("idem: " + unrecordedLine(r.put()));
    }
    if (r.retired() != null && !o.quiet) {
      err.println("idem: " + republishedLine(r));
    }
    if (r.pointer() != null && r.pointer().status() == AdvanceStatus.SAME_POSITION_OTHER_KEY && !o.quiet) {
      err.println("idem: " + driftLine(r.pointer()));
    }
    if (r.pointer() != null && r.pointer().status().gaveUp() && !o.quiet) {
      err.println("idem: the object is published but " + whyGaveUp(r.pointer(), ranOut)
          + "; running the same command again completes it");
    }
  }

  /** What became of a divergent attempt, as the DIVERGENT line says it. */
  private static String recordedClause(DivergenceRecord record) {
    return switch (record) {
      case RECORDED -> "this attempt is recorded for 'idem scan'";
      case BYTES_NOT_KEPT -> "this attempt is recorded for 'idem scan', but its bytes were not kept";
      case NOT_RECORDED -> "this attempt could NOT be recorded, so 'idem scan' will not report it";
    };
  }

  /** Why a divergence was not recorded whole, in one line. */
  static String unrecordedLine(PutOutcome put) {
    return (put.record() == DivergenceRecord.NOT_RECORDED
        ? "the divergence could not be recorded (this exit status is its only report): "
        : "the divergence is recorded, but this replica's bytes were not kept: ") + put.recordFailure();
  }

  /** What a REPUBLISHED outcome means, in one line. */
  static String republishedLine(PublishReport r) {
    return "REPUBLISHED: window_start=" + r.key().windowStartEpochSecond() + " of " + r.key().pipeline()
        + " was removed by gc at " + r.retired().retiredAt() + " (" + r.retired().retiredBy()
        + " retired windows up to window_start=" + r.retired().windowStart() + ") and has been created again at "
        + r.key() + "; 'idem scan' reports it as republished, not divergent";
  }

  /** What keying drift means and what to do, in one line. */
  static String driftLine(AdvanceReport a) {
    Pointer at = a.current();
    return "KEYING DRIFT: the pointer of " + at.pipeline() + " already names " + at.key() + " for window_start="
        + at.windowStart() + " schema=" + at.schemaVersion() + ", another key than this one's ("
        + a.requested().key() + "): two builds declare different inputs for one window and schema, or the "
        + "pipeline publishes several outputs a window. Readers get the other key's generation; bump --schema when "
        + "an input changes, and give each output of a window a pipeline of its own ('idem scan --fail-on-drift' "
        + "fails a gate on this)";
  }

  /**
   * Which wait ran out in an advance that gave up, in words: the lock wait (BUSY) or the race (CONFLICT),
   * and the bound it ran out of ({@code ranOut}: {@code --pointer-timeout} or {@code --max-time}).
   */
  static String whyGaveUp(AdvanceReport a, String ranOut) {
    String within = " within " + Durations.format(a.elapsed()) + " (" + a.attempts()
        + (a.attempts() == 1 ? " attempt; " : " attempts; ") + ranOut + ")";
    if (a.status() == AdvanceStatus.BUSY) {
      return "the pointer lock of " + a.requested().pipeline() + " was not obtained" + within
          + ": another writer holds it and has not let go (a stopped or hung process?)";
    }
    return "the pointer of " + a.requested().pipeline() + " was moved by other writers on every attempt" + within;
  }

  static String human(PublishReport r) {
    List<String> parts = new ArrayList<>();
    parts.add(r.status().name());
    parts.add(r.key().toString());
    ObjectInfo s = r.stored();
    parts.add("size=" + s.size());
    parts.add("sha256=" + s.sha256());
    if (r.status() == PublishStatus.DIVERGENT) {
      parts.add("attempt_sha256=" + r.put().attemptSha256());
      if (r.put().evidenceKey() != null) {
        parts.add("evidence=" + r.put().evidenceKey());
      }
      if (r.put().record() != DivergenceRecord.RECORDED) {
        parts.add("record=" + r.put().record());
      }
    }
    parts.add("pointer=" + pointerWord(r.pointer()));
    ClaimReport c = r.claim();
    if (r.status() == PublishStatus.SKIPPED) {
      String by = s.writer() != null ? " by " + s.writer() : "";
      parts.add(c != null && c.status() == ClaimStatus.WAITED_SKIPPED
          ? "claim=WAITED_SKIPPED (published" + by + " while this replica waited " + Durations.format(c.waited())
              + " for " + claimant(c) + "'s claim; task not run)"
          : "(already published" + by + "; task not run)");
    } else if (c != null) {
      switch (c.status()) {
        case TAKEN_OVER -> parts.add("claim=TAKEN_OVER (" + claimant(c) + "'s claim went stale or was released "
            + "without an object" + waitedClause(c) + "; this replica claimed the key and ran the task)");
        case WAIT_EXPIRED -> parts.add("claim=WAIT_EXPIRED (" + claimant(c) + "'s claim was still fresh after "
            + Durations.format(c.waited()) + " (--claim-wait): the task ran beside it)");
        case FAILED -> parts.add("claim=FAILED (the claim could not be read or written: the task ran without one)");
        default -> {
          // HELD, OFF, UNSUPPORTED: the usual run, said in --json only.
        }
      }
    }
    return String.join(" ", parts);
  }

  private static String claimant(ClaimReport c) {
    return c.lastClaimant().map(Claim::writer).orElse("another writer");
  }

  private static String waitedClause(ClaimReport c) {
    return waitedForClaim(c) ? ", after waiting " + Durations.format(c.waited()) : "";
  }

  /**
   * Whether this run waited for another writer's claim: it found one fresh (a skip or a run beside it
   * after the wait), or took one over a second or more after it first looked (a takeover at the first
   * look spends only the store's round trips).
   */
  static boolean waitedForClaim(ClaimReport c) {
    return c.status() == ClaimStatus.WAITED_SKIPPED || c.status() == ClaimStatus.WAIT_EXPIRED
        || c.status() == ClaimStatus.TAKEN_OVER && c.waited().getSeconds() > 0;
  }

  /**
   * What was done with the key's claim, for {@code --json}: {@code null} when the key was published at
   * the first look (no claim was looked at).
   */
  static Json claimJson(ClaimReport c) {
    if (c == null) {
      return null;
    }
    Json j = Json.object().put("status", c.status().name());
    c.lastClaimant().ifPresent(other -> j.put("claimant", Json.object()
        .put("writer", other.writer())
        .put("started", other.started().toString())
        .putIfPresent("expected_ms", other.expectedDuration().map(Duration::toMillis).orElse(null))));
    return j.put("waited_ms", c.waited().toMillis())
        .put("renewals", c.renewals())
        .put("renewal_failures", c.renewalFailures());
  }

  static String pointerWord(AdvanceReport a) {
    if (a == null) {
      return "off";
    }
    if ((a.status() == AdvanceStatus.NEWER_PRESENT || a.status() == AdvanceStatus.SAME_POSITION_OTHER_KEY)
        && a.current() != null) {
      return a.status().name() + "(" + a.current().key() + ")";
    }
    return a.status().name();
  }

  static Json json(RunSpec spec, PublishReport r, String writer) {
    ObjectInfo s = r.stored();
    Json j = Json.object()
        .put("status", r.status().name())
        .put("key", r.key().toString())
        .put("pipeline", spec.pipeline())
        .put("window_start", spec.window().startEpochSecond())
        .put("window_end", spec.window().endEpochSecond())
        .put("schema_version", spec.schemaVersion())
        .put("writer", writer)
        .put("stored", Json.object()
            .put("sha256", s.sha256())
            .put("size", s.size())
            .put("writer", s.writer())
            .put("published_at", s.publishedAt()));
    if (r.put() != null) {
      j.put("attempt_sha256", r.put().attemptSha256()).put("attempt_size", r.put().attemptSize());
      j.putIfPresent("evidence_key", r.put().evidenceKey());
      if (r.put().record() != null) {
        j.put("divergence_record", r.put().record().name());
        j.putIfPresent("record_failure", r.put().recordFailure());
      }
    }
    j.put("retired", GcCommand.retiredJson(r.retired()));
    j.put("pointer", pointerJson(r.pointer()));
    j.put("claim", claimJson(r.claim()));
    return j;
  }

  static Json pointerJson(AdvanceReport a) {
    if (a == null) {
      return null;
    }
    Pointer current = a.current();
    return Json.object()
        .put("status", a.status().name())
        .put("attempts", a.attempts())
        .put("elapsed_ms", a.elapsed().toMillis())
        .put("current_key", current == null ? null : current.key());
  }
}
