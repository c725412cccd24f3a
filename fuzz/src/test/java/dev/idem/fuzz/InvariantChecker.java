package dev.idem.fuzz;

import dev.idem.core.RunSpec;
import dev.idem.core.Sha256;
import dev.idem.core.Window;
import dev.idem.core.publish.AdvanceReport;
import dev.idem.core.publish.AdvanceStatus;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.scan.KeyVerdict;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Checks every contract of docs/DESIGN.md that a finished scenario run can show, on a freshly opened store
 * (what is durable, not what one instance cached). Each violation is one line naming the contract.
 *
 * <ul>
 *   <li>Per replica: outcomes agree with the bytes (CREATED/IDENTICAL carry the replica's hash,
 *       DIVERGENT another); only injected faults produce I/O errors and a retry after one succeeds;
 *       nothing fails with anything but an {@link IOException}; no advance gives up (G3).
 *   <li>P1–P4 per key: exactly one object, whose bytes are one replica's payload and match its stored
 *       hash; at most one CREATED, and it is the stored writer's; with no CREATED reported the writer is
 *       a replica that died or faulted; every divergent attempt the store said it recorded is in the
 *       history; no foreign content.
 *   <li>P8 per key: when a replica reported DIVERGENT (other than NOT_RECORDED, the one outcome that says
 *       nothing could be recorded), or offered other bytes than the stored ones and died while keeping
 *       them as evidence, the scan reports the key divergent.
 *   <li>P5: a replica that began after another had seen the key published skipped, and a replica that
 *       skipped never ran its task.
 *   <li>G1–G3 per pipeline: the pointer names a complete object; it stands at the highest position
 *       whose advance completed, or higher only at a generation whose writer was cut short; it is at
 *       least what any reader saw.
 *   <li>C1: leftovers are of the documented temporary form, none after a clean run, all gone after
 *       {@code sweep}, and sweeping removes nothing live.
 *   <li>G4: a fresh writer advances every pointer at once.
 *   <li>G5: a replica whose clock runs ahead is refused before its task, and nothing of its window
 *       reaches the store or the pointer.
 *   <li>B1: every pointer advance ends by its deadline (plus slack); BUSY only behind a replica stalled
 *       holding the lock; a publish whose reply body stalled ends long before the stall.
 *   <li>S1, S2: a replica that meets the scenario's hazard (a link under the root, a server ignoring
 *       {@code If-None-Match}) is refused; what the backend sees of the hazard ({@link
 *       Backend.Run#clearHazard}) is added by the runner.
 *   <li>Durability order (filesystem): see {@link DurabilityLog}.
 *   <li>On a server that applies every multipart completion ({@link
 *       Scenario.Hazard#APPLIES_EVERY_COMPLETION}) a losing publisher's version is current from its
 *       completion until it deletes it: reads and decisions that met a losing replica's bytes in that
 *       time are allowed, and so is a losing version left current by a loser that was cut short in
 *       between, as long as the creator's version is under it and the scan flags the key; S3Proxy,
 *       which plays that server, also shows the key without a current version while a loser deletes
 *       its own, so a read finding nothing then and a publish ending in P7's error are allowed too. Two
 *       CREATED for one key, or a loser that finished with its bytes current, are still violations.
 *   <li>A1, advisory claims: claims are advice, so every check above holds whatever a {@link ClaimFate} or a
 *       forged entry did, and a claim fault alone never fails a publish (it ends with an outcome; only an
 *       injected store fault or a death ends it otherwise). No replica waits past its bound: from the
 *       first claim call that answered TAKEN to the end of its wait (its task starts, or it reads the
 *       object it skips for), measured by {@link ClaimSeam}, at most the scenario's wait bound, plus one
 *       poll interval, plus {@value #CLAIM_WAIT_SLACK_MS} ms for the scheduler's latency and the last
 *       look's store calls, plus the delays injected into its own calls meanwhile (its own stall or claim
 *       delays); the same for the wait its claim report states. The claim report agrees with the
 *       outcome (no report only for a key published at the first look, WAITED_SKIPPED only with SKIPPED,
 *       every other status only with a task that ran; OFF exactly for a replica with claims off,
 *       UNSUPPORTED exactly on a store without claims) and names only writers that claimed (never an
 *       entry that is not a claim). After the run, a claim entry is left only by the forger or by a
 *       replica that died, hit an injected fault, or whose claim reply or release was made to fail.
 * </ul>
 */
final class InvariantChecker {
  private static final Set<String> COMPLETED = Set.of(
      AdvanceStatus.ADVANCED.name(), AdvanceStatus.ALREADY_CURRENT.name(), AdvanceStatus.NEWER_PRESENT.name());

  /** What an advance may take beyond its deadline: one last compare-and-swap on a loaded machine. */
  static final long ADVANCE_SLACK_MS = 1_500;
  /**
   * What a publish may take when one reply's body stalls: the client's body deadline (its request
   * timeout, {@value S3Backend#REQUEST_TIMEOUT_MS} ms, plus a second per MiB) for each of its two tries,
   * and the rest of the publish; far below the stall itself.
   */
  static final long BODY_STALL_BOUND_MS = 4 * S3Backend.REQUEST_TIMEOUT_MS + 5_000;

  /**
   * What a claim wait may take beyond its bound and one poll interval: the scheduler's latency (a sleep
   * that ends late on a loaded machine) and the store calls of the last look (read the claim, look for
   * the object, claim again).
   */
  static final long CLAIM_WAIT_SLACK_MS = 1_000;

  private final ScenarioRunner.RunRecord run;
  private final Backend.Run backend;
  private final List<String> v;
  private final boolean appliesEveryCompletion;
  /** Per key: the SHA-256s of replicas that published it and did not report CREATED for it. */
  private final Map<String, Set<String>> loserShas = new HashMap<>();
  /** Keys whose current version is a cut-short loser's, with the creator's SHA-256 under it. */
  private final Map<String, String> loserOnTop = new HashMap<>();

  InvariantChecker(ScenarioRunner.RunRecord run, Backend.Run backend) {
    this.run = run;
    this.backend = backend;
    this.v = run.violations();
    this.appliesEveryCompletion = run.scenario().hazard() == Scenario.Hazard.APPLIES_EVERY_COMPLETION;
  }

  /**
   * Whether reading {@code shas} at {@code key} is what a server that applies every completion shows
   * while a loser's version is current: each one a losing replica's bytes or the key's final bytes, at
   * least one a loser's; where a cut-short loser's version stayed current, the creator's bytes read
   * before it too. No bytes at all (an empty {@code shas}) is what S3Proxy, which plays that server
   * here, shows for a moment while a loser deletes its version over the first (moto's delete is atomic).
   */
  private boolean losersTransient(String key, List<String> shas, Map<String, String> storedSha) {
    Set<String> losers = loserShas.getOrDefault(key, Set.of());
    if (!appliesEveryCompletion || losers.isEmpty()) {
      return false;
    }
    if (shas.isEmpty()) {
      return storedSha.containsKey(key);
    }
    String creator = loserOnTop.get(key);
    return (creator != null || shas.stream().anyMatch(losers::contains))
        && shas.stream().allMatch(x -> losers.contains(x) || x.equals(storedSha.get(key)) || x.equals(creator));
  }

  /**
   * Whether {@code a} ended in one of P7's errors, which a server that applies every completion may
   * cause: the object a refused write met was gone when read (no retirement mark covers the window), or
   * the version a completion landed over was. On S3Proxy, which plays that server here, the key has no
   * current version for a moment while a loser deletes its own, and a completion still being written
   * is listed before it can be read. An error, never a second CREATED, is what P7 allows.
   */
  private boolean p7Error(Attempt a) {
    return appliesEveryCompletion && a.result() == Attempt.Result.IO_ERROR && a.detail() != null
        && (a.detail().contains("no retirement mark covers its window") || a.detail().contains("which was gone when read"));
  }

  private String key(Replica r) {
    return r.spec(run.namespace()).outputKey().toString();
  }

  private static Pointer.Position position(Replica r) {
    return new Pointer.Position(r.window().startEpochSecond(), r.build().schema);
  }

  private static String sha(Replica r) {
    return Sha256.of(r.bytes());
  }

  void check() throws IOException {
    checkReplicas();
    try (ObjectStore store = backend.observer()) {
      Map<String, List<ScenarioRunner.ReplicaRecord>> byKey = new LinkedHashMap<>();
      for (ScenarioRunner.ReplicaRecord rec : run.replicas()) {
        byKey.computeIfAbsent(key(rec.replica), k -> new ArrayList<>()).add(rec);
      }
      Map<String, String> storedSha = new HashMap<>();
      for (Map.Entry<String, List<ScenarioRunner.ReplicaRecord>> e : byKey.entrySet()) {
        if (e.getValue().get(0).replica.fate() instanceof Fate.ClockAhead) {
          checkFutureKey(store, e.getKey());
          continue;
        }
        checkKey(store, e.getKey(), e.getValue(), storedSha);
        checkSkips(e.getKey(), e.getValue());
      }
      for (PointerFollower f : run.readers()) {
        for (PointerFollower.Mismatch m : f.mismatches()) {
          if (!losersTransient(m.key(), m.shas(), storedSha)) {
            v.add(m.violation());
          }
        }
      }
      checkListing(store, byKey.keySet(), "after the run");
      checkClaims(store);
      Map<String, Pointer> finals = new HashMap<>();
      for (int p = 0; p < run.scenario().pipelines(); p++) {
        checkPointer(store, p, storedSha, finals);
      }
      checkLeftoversAndSweep(store, byKey.keySet(), finals);
    }
    checkFreshWriter();
    java.util.Set<Thread> excused = new HashSet<>();
    for (ScenarioRunner.ReplicaRecord rec : run.replicas()) {
      if (rec.thread != null && rec.disturbed()) {
        excused.add(rec.thread);
      }
    }
    v.addAll(backend.protocolViolations(excused));
  }

  // --- per replica ---

  private void checkReplicas() {
    for (ScenarioRunner.ReplicaRecord rec : run.replicas()) {
      Replica r = rec.replica;
      List<Attempt> attempts = rec.attempts();
      String who = "replica " + r.id();
      if (attempts.isEmpty()) {
        v.add("replica " + r.id() + " reported nothing" + (rec.processLog.length() > 0 ? ":\n" + rec.processLog : ""));
        continue;
      }
      if (run.scenario().hazard().crosses(r)) {
        checkRefusedByHazard(rec, attempts);
        continue;
      }
      for (Attempt a : attempts) {
        switch (a.result()) {
          case ERROR -> v.add("E1: " + who + " failed with something other than an IOException: " + a.detail());
          case DIED -> {
            if (!(r.fate() instanceof Fate.Dies)) {
              v.add(who + " died without a death fate: " + a.detail());
            }
          }
          case IO_ERROR -> {
            if (!(r.fate() instanceof Fate.Faulted) && !p7Error(a)) {
              v.add(who + " got an I/O error with no fault injected: " + a.detail());
            }
          }
          case REFUSED -> {
            if (!(r.fate() instanceof Fate.ClockAhead)) {
              v.add("E1: " + who + " was refused although its window had closed: " + a.detail());
            }
          }
          case OK -> checkOutcome(rec, a);
        }
      }
      if (r.fate() instanceof Fate.Faulted f && f.fault() == Fate.Fault.HTTP_BODY_STALL) {
        for (Attempt a : attempts) {
          if (a.millis() > r.taskMs() + BODY_STALL_BOUND_MS) {
            v.add("B1: " + who + "'s publish took " + a.millis() + "ms with a reply body stalled for "
                + FaultyHttpProxy.BODY_STALL_HOLD_MS + "ms: the body deadline did not end the wait");
          }
        }
      }
      if (r.fate() instanceof Fate.ClockAhead) {
        if (attempts.size() != 1 || attempts.get(0).result() != Attempt.Result.REFUSED) {
          v.add("G5: " + who + " offered a window that has not closed and got " + attempts + " instead of a refusal");
        }
        if (rec.taskRuns.get() > 0) {
          v.add("G5: " + who + "'s task ran although its window has not closed");
        }
        continue;
      }
      Attempt last = attempts.get(attempts.size() - 1);
      if (last.result() == Attempt.Result.IO_ERROR && !p7Error(last)) {
        v.add(who + ": the retry after an injected fault failed too: " + last.detail());
      }
      // A death reached in the claim heartbeat's thread stops the heartbeat, not the replica.
      boolean ownThread = rec.stepThread == null || rec.stepThread == rec.thread;
      if (r.fate() instanceof Fate.Dies && rec.stepReached && ownThread && last.result() != Attempt.Result.DIED) {
        v.add(who + " reached its death step but reported " + last);
      }
      boolean allSkipped = attempts.stream().allMatch(a -> a.result() == Attempt.Result.OK && "SKIPPED".equals(a.status()));
      if (allSkipped && rec.taskRuns.get() > 0) {
        v.add("P5: " + who + " skipped but its task ran " + rec.taskRuns.get() + " time(s)");
      }
    }
  }

  private void checkOutcome(ScenarioRunner.ReplicaRecord rec, Attempt a) {
    Replica r = rec.replica;
    String who = "replica " + r.id();
    String mine = sha(r);
    switch (a.status()) {
      case "CREATED" -> {
        if (!mine.equals(a.storedSha()) || !r.writerId(run.namespace()).equals(a.storedWriter())) {
          v.add("P3: " + who + " got CREATED but the report names sha256 " + a.storedSha() + " by " + a.storedWriter());
        }
      }
      case "IDENTICAL" -> {
        if (!mine.equals(a.storedSha())) {
          v.add("P3: " + who + " got IDENTICAL but its bytes differ from the stored ones");
        }
      }
      case "DIVERGENT" -> {
        if (mine.equals(a.storedSha())) {
          v.add("P4: " + who + " got DIVERGENT but its bytes equal the stored ones");
        }
      }
      default -> { }
    }
    boolean busyExpected = AdvanceStatus.BUSY.name().equals(a.advance()) && lockHeldByStalledReplica(r.pipeline());
    // A replica stalled past its own deadline may find, when it wakes, that it has no time left.
    boolean ownStall = rec.stepReached && r.fate() instanceof Fate.Stalls st0 && st0.millis() >= Scenarios.LOCK_STALL_MS;
    if (!busyExpected && !ownStall
        && (AdvanceStatus.BUSY.name().equals(a.advance()) || AdvanceStatus.CONFLICT.name().equals(a.advance()))) {
      v.add("G3: " + who + "'s pointer advance gave up (" + a.advance() + ") against " + run.replicas().size() + " replicas");
    }
    // A replica's own stall, when it came during its advance, is part of its advance's time.
    long bound = ReplicaJob.advanceDeadline(run.scenario().backend()).toMillis() + ADVANCE_SLACK_MS
        + (r.fate() instanceof Fate.Stalls st ? st.millis() : 0);
    if (a.advanceMillis() > bound) {
      v.add("B1: " + who + "'s pointer advance took " + a.advanceMillis() + "ms (" + a.advance() + "), past its deadline of "
          + ReplicaJob.advanceDeadline(run.scenario().backend()).toMillis() + "ms");
    }
    if (a.advance() == null) {
      v.add(who + " published but did not advance the pointer");
    }
  }

  /** Whether the attempt ended in the refusal the scenario's hazard calls for. */
  private boolean isRefusal(Attempt a) {
    return a.result() == Attempt.Result.IO_ERROR && a.detail() != null
        && a.detail().contains(run.scenario().hazard().refusal());
  }

  /**
   * S1/S2: a replica whose publish meets the scenario's hazard is refused (a pre-placed link: an error
   * naming the link; a server that ignores If-None-Match: the store refused after its probe), never
   * gets an outcome, and its last attempt (a retry after an injected fault too) is the refusal, unless
   * it died first, or the one injected fault landed in the retry of a refused attempt (a scheduler
   * retries a refused job too, and that retry may meet the fault before it meets the refusal again).
   */
  private void checkRefusedByHazard(ScenarioRunner.ReplicaRecord rec, List<Attempt> attempts) {
    Replica r = rec.replica;
    for (Attempt a : attempts) {
      boolean refused = isRefusal(a);
      boolean injected = a.result() == Attempt.Result.IO_ERROR && r.fate() instanceof Fate.Faulted;
      boolean died = a.result() == Attempt.Result.DIED && r.fate() instanceof Fate.Dies;
      if (!refused && !injected && !died) {
        v.add("S2: replica " + r.id() + " crossed " + run.scenario().hazard().story + " and got " + a
            + " instead of a refusal (" + run.scenario().hazard().refusal() + ")");
      }
    }
    Attempt last = attempts.get(attempts.size() - 1);
    boolean endsRefused = isRefusal(last);
    boolean faultAfterRefusal = last.result() == Attempt.Result.IO_ERROR && r.fate() instanceof Fate.Faulted
        && attempts.subList(0, attempts.size() - 1).stream().anyMatch(this::isRefusal);
    if (!endsRefused && !faultAfterRefusal && last.result() != Attempt.Result.DIED) {
      v.add("S2: replica " + r.id() + " crossed " + run.scenario().hazard().story + " and its last attempt got " + last
          + " instead of a refusal (" + run.scenario().hazard().refusal() + ")");
    }
  }

  /** Whether a replica of {@code pipeline} stalled holding the pointer lock: others then end BUSY (B1). */
  private boolean lockHeldByStalledReplica(int pipeline) {
    return run.replicas().stream().anyMatch(rec -> rec.replica.pipeline() == pipeline && rec.stepReached
        && rec.replica.fate() instanceof Fate.Stalls st && st.millis() >= Scenarios.LOCK_STALL_MS);
  }

  /** G5: nothing of a window that has not closed reaches the store: no object, no record, no evidence. */
  private void checkFutureKey(ObjectStore store, String key) throws IOException {
    if (store.stat(key).isPresent()) {
      v.add("G5: " + key + ", a window that has not closed, was published");
    }
    List<KeyHistory> found = new ArrayList<>();
    store.publishHistory().orElseThrow().history(key, h -> {
      if (h.key().equals(key) && !h.entries().isEmpty()) {
        found.add(h);
      }
      return true;
    });
    if (!found.isEmpty()) {
      v.add("G5: " + key + ", a window that has not closed, has history " + found.get(0).entries());
    }
  }

  // --- per key ---

  private void checkKey(ObjectStore store, String key, List<ScenarioRunner.ReplicaRecord> recs, Map<String, String> storedSha)
      throws IOException {
    Set<String> payloads = recs.stream().map(rec -> sha(rec.replica)).collect(Collectors.toSet());
    List<ScenarioRunner.ReplicaRecord> reached = recs.stream()
        .filter(rec -> rec.attempts().stream().anyMatch(a -> a.result() == Attempt.Result.OK)).toList();
    List<ScenarioRunner.ReplicaRecord> created = recs.stream()
        .filter(rec -> rec.attempts().stream().anyMatch(a -> "CREATED".equals(a.status()))).toList();
    loserShas.put(key, recs.stream().filter(rec -> rec.attempts().stream().noneMatch(a -> "CREATED".equals(a.status())))
        .map(rec -> sha(rec.replica)).collect(Collectors.toSet()));
    Optional<ObjectInfo> info = store.stat(key);
    if (info.isEmpty()) {
      if (!reached.isEmpty()) {
        v.add("P3: no object at " + key + " although replica(s) " + ids(reached) + " published it");
      }
      if (!created.isEmpty()) {
        v.add("P2: the object replica " + ids(created) + " CREATED at " + key + " is gone");
      }
      return;
    }
    ObjectInfo stored = info.get();
    storedSha.put(key, stored.sha256());
    byte[] bytes = read(store, key);
    if (bytes == null) {
      v.add("P1: stat finds " + key + " but open does not");
      return;
    }
    String actual = Sha256.of(bytes);
    if (!actual.equals(stored.sha256()) || bytes.length != stored.size()) {
      v.add("P1: " + key + " holds " + bytes.length + " bytes sha256 " + actual + " but its metadata says "
          + stored.size() + " bytes sha256 " + stored.sha256());
    }
    if (!payloads.contains(actual)) {
      v.add("P3: " + key + " holds bytes that are no replica's payload (" + bytes.length + " bytes sha256 " + actual + ")");
    }
    if (created.size() > 1) {
      v.add("P3: " + created.size() + " replicas got CREATED for one key: " + ids(created));
    } else if (created.size() == 1) {
      Replica c = created.get(0).replica;
      // A loser cut short between its completion and the delete of its version leaves that version current.
      boolean cutShortLoser = appliesEveryCompletion && recs.stream().anyMatch(rec -> rec.disturbed()
          && rec.attempts().stream().noneMatch(a -> "CREATED".equals(a.status())) && sha(rec.replica).equals(actual));
      if (cutShortLoser && !actual.equals(sha(c))) {
        loserOnTop.put(key, sha(c));
      } else if (!actual.equals(sha(c))) {
        v.add("P2: replica " + c.id() + " CREATED " + key + " with '" + c.payload() + "' but it now holds other bytes");
      }
    } else {
      // A writer cut short after its link but before its record leaves an object of unknown writer.
      boolean explained = recs.stream().anyMatch(rec -> rec.disturbed()
          && (stored.writer() == null || rec.replica.writerId(run.namespace()).equals(stored.writer()))
          && sha(rec.replica).equals(actual));
      if (!explained) {
        v.add("P3: nobody reported CREATED for " + key + " and its writer " + stored.writer()
            + " is no replica that died or faulted with those bytes");
      }
    }
    for (ScenarioRunner.ReplicaRecord rec : reached) {
      for (Attempt a : rec.attempts()) {
        boolean excused = a.storedSha() != null && (a.storedSha().equals(loserOnTop.get(key))
            || losersTransient(key, List.of(a.storedSha()), Map.of(key, actual)));
        if (a.result() == Attempt.Result.OK && !actual.equals(a.storedSha()) && !excused) {
          v.add("P3: replica " + rec.replica.id() + " was told " + key + " holds sha256 " + a.storedSha()
              + " but it holds " + actual);
        }
      }
    }
    String seen = run.contentByKey().get(key);
    if (seen != null && !seen.equals(actual) && !losersTransient(key, List.of(seen), Map.of(key, actual))) {
      v.add("P2: a reader saw sha256 " + seen + " at " + key + " during the run; it now holds " + actual);
    }
    checkHistory(store, key, recs, payloads, actual);
  }

  private void checkHistory(ObjectStore store, String key, List<ScenarioRunner.ReplicaRecord> recs, Set<String> payloads,
      String actual) throws IOException {
    List<KeyHistory> found = new ArrayList<>();
    store.publishHistory().orElseThrow().history(key, h -> {
      if (h.key().equals(key)) {
        found.add(h);
      }
      return true;
    });
    if (found.isEmpty()) {
      v.add("P4: no history for " + key);
      return;
    }
    KeyHistory h = found.get(0);
    Set<String> divergentShas = new HashSet<>();
    for (HistoryEntry e : h.entries()) {
      if (e.isContent() && e.sha256() != null && !payloads.contains(e.sha256())) {
        v.add("P4: history of " + key + " holds content no replica offered: " + e);
      }
      if (e.kind() == HistoryEntry.Kind.DIVERGENT_ATTEMPT) {
        divergentShas.add(e.sha256());
      }
    }
    for (ScenarioRunner.ReplicaRecord rec : recs) {
      boolean reportedDivergent = rec.attempts().stream().anyMatch(Attempt::recordedDivergence);
      if (reportedDivergent && !divergentShas.contains(sha(rec.replica))) {
        v.add("P4: replica " + rec.replica.id() + "'s DIVERGENT attempt on " + key + " is missing from the history " + h.entries());
      }
    }
    KeyVerdict verdict = KeyVerdict.of(h);
    List<ScenarioRunner.ReplicaRecord> recorded = recs.stream()
        .filter(rec -> rec.attempts().stream().anyMatch(Attempt::recordedDivergence) || diedKeepingDivergentBytes(rec, actual))
        .toList();
    if (!recorded.isEmpty() && !verdict.divergent()) {
      v.add("P8: the scan does not report " + key + " divergent although replica(s) " + ids(recorded)
          + " met other bytes there and recorded it (reported DIVERGENT, or died keeping their bytes): " + verdict);
    }
    if (payloads.size() == 1 && verdict.divergent()) {
      v.add("P4: the scan flags " + key + " although every replica offered the same bytes: " + verdict);
    }
    String creator = loserOnTop.get(key);
    if (creator != null) {
      if (h.entries().stream().noneMatch(e -> e.kind() == HistoryEntry.Kind.VERSION && creator.equals(e.sha256()))) {
        v.add("P2: the creator's version of " + key + " is not under the loser's left current: " + h.entries());
      }
      if (!verdict.divergent()) {
        v.add("P4: a loser's version of " + key + " is current over the creator's but the scan does not flag it: "
            + verdict);
      }
    }
    // A store may describe a version by ETag only where nothing needs comparing (S3: one version, no evidence).
    if (h.entries().stream().noneMatch(e -> e.kind() == HistoryEntry.Kind.VERSION
        && (actual.equals(e.sha256()) || e.sha256() == null && e.etag() != null))) {
      v.add("P4: history of " + key + " lacks the stored version: " + h.entries());
    }
  }

  /**
   * Whether {@code rec} offered bytes other than the stored ones ({@code actual}) and died at a step of
   * keeping them as evidence ({@link Scenarios.Profile#evidence()}): it had recorded the divergence
   * before (P8), though it lived to report nothing.
   */
  private boolean diedKeepingDivergentBytes(ScenarioRunner.ReplicaRecord rec, String actual) {
    List<Step> evidence = switch (run.scenario().backend()) {
      case FS -> FsBackend.PROFILE.evidence();
      case S3 -> S3Backend.PROFILE.evidence();
      case MEMORY -> List.of();
    };
    return rec.stepReached && rec.replica.fate() instanceof Fate.Dies d && evidence.contains(d.step())
        && !sha(rec.replica).equals(actual);
  }

  /** P5: a replica whose call began after another's call returned having found the key must skip. */
  private void checkSkips(String key, List<ScenarioRunner.ReplicaRecord> recs) {
    long firstKnownPublished = Long.MAX_VALUE;
    String by = null;
    for (ScenarioRunner.ReplicaRecord rec : recs) {
      for (Attempt a : rec.attempts()) {
        if (a.result() == Attempt.Result.OK && a.returnNanos() < firstKnownPublished) {
          firstKnownPublished = a.returnNanos();
          by = "replica " + rec.replica.id();
        }
      }
    }
    for (ScenarioRunner.ReplicaRecord rec : recs) {
      for (Attempt a : rec.attempts()) {
        if (a.result() == Attempt.Result.OK && a.invokeNanos() > firstKnownPublished && !"SKIPPED".equals(a.status())) {
          v.add("P5: replica " + rec.replica.id() + " began " + (a.invokeNanos() - firstKnownPublished) / 1_000_000
              + "ms after " + by + " had published " + key + " yet got " + a.status() + " instead of SKIPPED");
        }
      }
    }
  }

  private void checkListing(ObjectStore store, Set<String> keys, String when) throws IOException {
    Map<String, Integer> listed = new HashMap<>();
    store.list("", o -> {
      listed.merge(o.key(), 1, Integer::sum);
      return true;
    });
    listed.forEach((k, n) -> {
      if (n > 1) {
        v.add("P3: " + k + " listed " + n + " times " + when);
      }
      if (!keys.contains(k)) {
        v.add("C1: the listing shows " + k + ", which no replica published, " + when);
      }
    });
  }

  // --- A1: advisory claims ---

  private void checkClaims(ObjectStore store) throws IOException {
    ClaimSetup setup = run.scenario().claims();
    Optional<dev.idem.core.store.Claims> claims = store.claims();
    Map<String, ScenarioRunner.ReplicaRecord> byWriter = new HashMap<>();
    for (ScenarioRunner.ReplicaRecord rec : run.replicas()) {
      byWriter.put(rec.replica.writerId(run.namespace()), rec);
    }
    for (ScenarioRunner.ReplicaRecord rec : run.replicas()) {
      Replica r = rec.replica;
      String who = "replica " + r.id();
      long ownStall = r.fate() instanceof Fate.Stalls st ? st.millis() : 0;
      for (Attempt a : rec.attempts()) {
        Attempt.ClaimSeen c = a.claim();
        if (c == null) {
          continue;
        }
        long slack = setup.pollMs() + CLAIM_WAIT_SLACK_MS + c.delayMs() + ownStall;
        if (c.waitMs() > setup.waitMs() + slack) {
          v.add("A1: " + who + " waited " + c.waitMs() + "ms for another writer's claim, past its bound of " + setup.waitMs()
              + "ms (allowed: the bound, one poll of " + setup.pollMs() + "ms, " + CLAIM_WAIT_SLACK_MS + "ms of slack"
              + (c.delayMs() + ownStall > 0 ? ", " + (c.delayMs() + ownStall) + "ms of its own delays" : "") + "; it got " + a + ")");
        }
        if (c.reportedWaitMs() > setup.waitMs() + slack) {
          v.add("A1: " + who + "'s claim report says it waited " + c.reportedWaitMs() + "ms, past its bound of " + setup.waitMs() + "ms");
        }
        if (a.result() != Attempt.Result.OK || c.status() == null) {
          continue;
        }
        boolean skipped = "SKIPPED".equals(a.status());
        boolean agrees = switch (c.status()) {
          case Attempt.ClaimSeen.NONE, "WAITED_SKIPPED" -> skipped;
          default -> !skipped;
        };
        if (!agrees) {
          v.add("A1: " + who + " got " + a.status() + " with claim status " + c.status()
              + " (no report only for a key published at the first look; WAITED_SKIPPED only with SKIPPED; the rest ran the task)");
        }
        boolean off = !setup.enabled() || r.claimFate().kind() == ClaimFate.Kind.OFF;
        if (!c.status().equals(Attempt.ClaimSeen.NONE) && off != c.status().equals("OFF")) {
          v.add("A1: " + who + (off ? " has claims off" : " has claims on") + " but its claim report says " + c.status());
        }
        if (!off && !c.status().equals(Attempt.ClaimSeen.NONE) && claims.isEmpty() != c.status().equals("UNSUPPORTED")) {
          v.add("A1: " + who + "'s claim report says " + c.status() + " on a store " + (claims.isEmpty() ? "without" : "with") + " claims");
        }
        if (c.claimant() != null && !byWriter.containsKey(c.claimant()) && !c.claimant().equals(ClaimSetup.FORGER)) {
          v.add("A1: " + who + "'s claim report names " + c.claimant() + ", a writer that never claimed");
        }
      }
    }
    if (claims.isEmpty()) {
      return;
    }
    for (dev.idem.core.store.Claim c : claims.get().listClaims("")) {
      ScenarioRunner.ReplicaRecord rec = byWriter.get(c.writer());
      if (c.writer().equals(ClaimSetup.FORGER)) {
        continue;
      }
      if (rec == null) {
        v.add("A1: a claim on " + c.key() + " by " + c.writer() + ", a writer of no replica, is in the store after the run");
      } else if (!rec.disturbed() && !rec.replica.claimFate().mayLeaveClaim()) {
        v.add("A1: replica " + rec.replica.id() + "'s claim on " + c.key() + " is left behind although its publish ended"
            + " and nothing failed its release");
      }
    }
  }

  // --- pointer ---

  private void checkPointer(ObjectStore store, int pipeline, Map<String, String> storedSha, Map<String, Pointer> finals)
      throws IOException {
    String name = Replica.pipelineName(run.namespace(), pipeline);
    List<ScenarioRunner.ReplicaRecord> recs = run.replicas().stream().filter(r -> r.replica.pipeline() == pipeline).toList();
    Pointer.Position completed = null;
    for (ScenarioRunner.ReplicaRecord rec : recs) {
      boolean done = rec.attempts().stream().anyMatch(a -> a.result() == Attempt.Result.OK && COMPLETED.contains(a.advance()));
      if (done && (completed == null || position(rec.replica).compareTo(completed) > 0)) {
        completed = position(rec.replica);
      }
    }
    Optional<PointerState> state = store.readPointer(name);
    Pointer.Position highestSeen = null;
    for (PointerFollower f : run.readers()) {
      Pointer.Position h = f.highest().get(name);
      if (h != null && (highestSeen == null || h.compareTo(highestSeen) > 0)) {
        highestSeen = h;
      }
    }
    if (state.isEmpty()) {
      if (completed != null) {
        v.add("G3: " + name + " has no pointer although an advance to " + completed + " completed");
      }
      if (highestSeen != null) {
        v.add("G2: " + name + " has no pointer although a reader saw " + highestSeen);
      }
      return;
    }
    Pointer p = state.get().pointer();
    finals.put(name, p);
    if (p.windowStart() >= Replica.FUTURE_WINDOW) {
      v.add("G5: " + name + "'s pointer moved to " + p.position() + ", a window that has not closed");
    }
    if (completed != null && p.position().compareTo(completed) < 0) {
      v.add("G3: " + name + "'s pointer stands at " + p.position() + ", behind the completed advance to " + completed);
    }
    if (highestSeen != null && p.position().compareTo(highestSeen) < 0) {
      v.add("G2: " + name + "'s pointer went back to " + p.position() + " after a reader saw " + highestSeen);
    }
    List<ScenarioRunner.ReplicaRecord> atPointer = recs.stream().filter(r -> key(r.replica).equals(p.key())).toList();
    if (atPointer.isEmpty()) {
      v.add("G1: " + name + "'s pointer names " + p.key() + ", which no replica published");
      return;
    }
    if (!p.position().equals(position(atPointer.get(0).replica))) {
      v.add("G2: " + name + "'s pointer names " + p.key() + " with position " + p.position() + ", not its spec's "
          + position(atPointer.get(0).replica));
    }
    if (completed != null && p.position().compareTo(completed) > 0 && atPointer.stream().noneMatch(ScenarioRunner.ReplicaRecord::disturbed)) {
      v.add("G2: " + name + "'s pointer stands at " + p.position() + ", beyond every completed advance (" + completed
          + "), and no replica of that generation was cut short");
    }
    String sha = storedSha.get(p.key());
    if (sha == null) {
      v.add("G1: " + name + "'s pointer names " + p.key() + ", which is not in the store");
    } else if (!sha.equals(p.sha256()) && !p.sha256().equals(loserOnTop.get(p.key()))) {
      v.add("G1: " + name + "'s pointer says sha256 " + p.sha256() + " for " + p.key() + ", which holds " + sha);
    }
  }

  // --- C1 ---

  private void checkLeftoversAndSweep(ObjectStore store, Set<String> keys, Map<String, Pointer> finals) throws IOException {
    List<String> leftovers = backend.leftovers();
    for (String l : leftovers) {
      if (!backend.documentedTemporary(l)) {
        v.add("C1: leftover of an undocumented form: " + l);
      }
    }
    boolean disturbed = run.replicas().stream().anyMatch(ScenarioRunner.ReplicaRecord::disturbed);
    if (!disturbed && !leftovers.isEmpty()) {
      v.add("C1: leftovers although every replica finished cleanly: " + leftovers);
    }
    store.leftoverSweep().orElseThrow().sweep(Duration.ZERO, false);
    List<String> after = backend.leftovers();
    if (!after.isEmpty()) {
      v.add("C1: sweep left " + after);
    }
    checkListing(store, keys, "after sweep");
    for (Map.Entry<String, Pointer> e : finals.entrySet()) {
      Optional<PointerState> now = store.readPointer(e.getKey());
      if (now.isEmpty() || !now.get().pointer().equals(e.getValue())) {
        v.add("C1: sweep changed " + e.getKey() + "'s pointer from " + e.getValue().position() + " to "
            + now.map(s -> s.pointer().position().toString()).orElse("nothing"));
        continue;
      }
      byte[] b = read(store, e.getValue().key());
      boolean loserKept = e.getValue().sha256().equals(loserOnTop.get(e.getValue().key()));
      if (b == null || !Sha256.of(b).equals(e.getValue().sha256()) && !loserKept) {
        v.add("C1: after sweep the generation " + e.getValue().key() + " is missing or changed");
      }
    }
  }

  // --- G4 ---

  private void checkFreshWriter() throws IOException {
    try (ObjectStore store = backend.observer()) {
      for (int p = 0; p < run.scenario().pipelines(); p++) {
        String name = Replica.pipelineName(run.namespace(), p);
        RunSpec spec = RunSpec.of(name, new Window(Replica.BASE_WINDOW + 3600, Replica.WINDOW_SECONDS), 9);
        String key = spec.outputKey().toString();
        long t0 = System.nanoTime();
        store.putIfAbsent(key, Payload.ofBytes(new byte[] {42}), "fresh-writer");
        ObjectInfo info = store.stat(key).orElseThrow();
        Pointer next = Pointer.to(info, Replica.WINDOW_SECONDS, 9, "fresh-writer", Instant.now());
        AdvanceReport r = new PointerAdvancer(store, 1, 0).advance(next);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        if (r.status() != AdvanceStatus.ADVANCED || ms > 5_000) {
          v.add("G4: a fresh writer could not advance " + name + " at once: " + r.status() + " after " + ms + "ms");
        }
      }
    }
  }

  private static byte[] read(ObjectStore store, String key) throws IOException {
    Optional<InputStream> in = store.open(key);
    if (in.isEmpty()) {
      return null;
    }
    try (InputStream s = in.get()) {
      return s.readAllBytes();
    }
  }

  private static String ids(List<ScenarioRunner.ReplicaRecord> recs) {
    return recs.stream().map(r -> String.valueOf(r.replica.id())).collect(Collectors.joining(", "));
  }
}
