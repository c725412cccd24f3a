package dev.idem.fuzz;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * The scenario generator. Each backend has a {@link Profile}: which operations its seam sees, which
 * faults and deaths it can inject, how often a healthy replica runs in its own JVM, its critical steps
 * (where stalls and deaths are drawn more often), its pointer-lock step and its hazards. Every choice
 * shrinks toward the plain case (one pipeline, no delay, payload 'A', old build, same window,
 * finishes, first occurrence, no hazard), so a shrunk failure keeps only what matters.
 */
final class Scenarios {
  private Scenarios() {}

  /**
   * What a backend's seam offers the generator.
   *
   * @param ops operations a death or a fault before the call may hit
   * @param opsFaultAfter operations where a fault after the call returned makes sense (the effect
   *     happened, the caller sees an error)
   * @param faults injectable faults
   * @param deaths possible deaths
   * @param processPercent how often a replica with no death by signal still runs in its own JVM
   * @param deathWeight weight of a death among fates, in tens (finishes 50, faulted 30, stalls 30)
   * @param maxProcesses replica JVMs per scenario at most (JVM start-up is the budget's main cost);
   *     replicas past it finish in a thread instead
   * @param maxNth highest occurrence a step may name (a filesystem publish makes several calls of one
   *     kind, e.g. a directory fsync per new directory before the one after the link)
   * @param critical the steps between an object's write and the pointer move that names it (after the
   *     link, before its directory fsync; before the record; before the pointer rename): deaths and
   *     stalls are drawn from them more often than from the rest, since that is where a missing sync
   *     or a wrong order shows
   * @param evidence the steps of keeping a divergent attempt's bytes, after its divergence was recorded
   *     (P8): a replica whose bytes differ from the stored ones and that dies or faults at one of them has
   *     recorded the divergence already, and the scan must report the key; a fate of their own is drawn
   *     for them (empty for a store that keeps no bytes)
   * @param lockStep the step right after the pointer lock was taken, where a stall of {@value
   *     #LOCK_STALL_MS} ms outlasts every other advance's deadline, or {@code null} for a store without
   *     a pointer lock
   * @param hazards what may be wrong with the store before a scenario starts (each drawn once in about
   *     {@value #HAZARD_ODDS} scenarios)
   * @param payloads the payload labels its replicas publish ({@link Payloads}), drawn 6 : 2 : 1 : 1
   */
  record Profile(List<String> ops, List<String> opsFaultAfter, List<Fate.Fault> faults, List<Fate.Death> deaths,
      int processPercent, int deathWeight, int maxProcesses, int maxNth, List<Step> critical, List<Step> evidence,
      Step lockStep, List<Scenario.Hazard> hazards, String payloads) {}

  /** Draw weights of the payload labels, in {@link Payloads#LABELS} order: mostly small, sometimes empty or large. */
  private static final int[] PAYLOAD_WEIGHTS = {6, 2, 1, 1};

  /** The filesystem and in-memory stores' payloads: none that would take long to make durable. */
  static final String SMALL_PAYLOADS = "ABC";

  /** One scenario in about this many meets a given hazard of its profile. */
  static final int HAZARD_ODDS = 15;

  /** How long a stalled lock holder keeps the lock: beyond the advance deadline plus its slack. */
  static final int LOCK_STALL_MS = 4_000;

  static final Profile MEMORY = new Profile(MemoryBackend.OPS, MemoryBackend.OPS, List.of(Fate.Fault.IO_ERROR),
      List.of(Fate.Death.THREAD_DEATH), 0, 2, 0, 3,
      List.of(new Step("putIfAbsent", true, 1), new Step("compareAndSetPointer", false, 1)), List.of(), null, List.of(),
      SMALL_PAYLOADS);

  static Arbitrary<Scenario> scenarios(Backend.Kind kind, Profile profile) {
    Arbitrary<List<Replica>> replicas = replica(profile).list().ofMinSize(2).ofMaxSize(8)
        .map(rs -> numbered(rs, profile.maxProcesses()));
    Arbitrary<Scenario.Hazard> hazard = profile.hazards().isEmpty() ? Arbitraries.just(Scenario.Hazard.NONE)
        : Arbitraries.frequencyOf(Tuple.of(HAZARD_ODDS - profile.hazards().size(), Arbitraries.just(Scenario.Hazard.NONE)),
            Tuple.of(profile.hazards().size(), Arbitraries.of(profile.hazards())));
    return Combinators.combine(replicas, Arbitraries.integers().between(0, 2), hazard)
        .as((rs, readers, h) -> new Scenario(kind, rs, readers, h));
  }

  private static List<Replica> numbered(List<Replica> rs, int maxProcesses) {
    List<Replica> out = new ArrayList<>();
    int processes = 0;
    for (int i = 0; i < rs.size(); i++) {
      Replica r = rs.get(i);
      boolean process = r.process() && processes < maxProcesses;
      processes += process ? 1 : 0;
      Fate fate = !process && r.fate() instanceof Fate.Dies d && d.death().needsProcess() ? new Fate.Finishes() : r.fate();
      out.add(new Replica(i + 1, r.pipeline(), r.startMs(), r.taskMs(), r.payload(), r.build(), r.nextWindow(), fate, process));
    }
    return out;
  }

  static Arbitrary<Replica> replica(Profile profile) {
    Arbitrary<Integer> pipeline = Arbitraries.frequency(Tuple.of(3, 0), Tuple.of(1, 1));
    Arbitrary<Integer> start = Arbitraries.integers().between(0, 40);
    Arbitrary<Integer> task = Arbitraries.integers().between(0, 30);
    List<Tuple.Tuple2<Integer, Character>> weighted = new ArrayList<>();
    for (char label : profile.payloads().toCharArray()) {
      weighted.add(Tuple.of(PAYLOAD_WEIGHTS[Payloads.LABELS.indexOf(label)], label));
    }
    Arbitrary<Character> payload = Arbitraries.frequency(weighted);
    Arbitrary<Replica.Build> build = Arbitraries.of(Replica.Build.class);
    Arbitrary<Boolean> next = Arbitraries.frequency(Tuple.of(3, false), Tuple.of(1, true));
    Arbitrary<Boolean> ownJvm = Arbitraries.integers().between(0, 99).map(n -> n >= 100 - profile.processPercent());
    return Combinators.combine(pipeline, start, task, payload, build, next, fate(profile), ownJvm)
        .as((p, s, t, pay, b, n, f, own) -> {
          boolean bySignal = f instanceof Fate.Dies d && d.death().needsProcess();
          return new Replica(0, p, s, t, pay, b, n, f, own || bySignal);
        });
  }

  static Arbitrary<Fate> fate(Profile profile) {
    Arbitrary<Integer> nth = Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.just(1)), Tuple.of(2, Arbitraries.integers().between(1, profile.maxNth())));
    Arbitrary<Step> deathStep = Combinators.combine(Arbitraries.of(profile.ops()), Arbitraries.of(false, true), nth)
        .as((op, after, n) -> new Step(op, after, n));
    Arbitrary<Fate> dies = Combinators.combine(Arbitraries.of(profile.deaths()), deathStep).as(Fate.Dies::new);
    Arbitrary<Step> faultBefore = Combinators.combine(Arbitraries.of(profile.ops()), nth).as((op, n) -> new Step(op, false, n));
    Arbitrary<Step> faultAfter = Combinators.combine(Arbitraries.of(profile.opsFaultAfter()), nth).as((op, n) -> new Step(op, true, n));
    Arbitrary<Fate> faulted = Combinators.combine(Arbitraries.of(profile.faults()),
        Arbitraries.frequencyOf(Tuple.of(2, faultBefore), Tuple.of(1, faultAfter))).as(Fate.Faulted::new);
    // The first critical step (right after the object's link, before its directory fsync) takes half
    // of the draws: it is the narrowest window and the one a missing sync needs.
    List<Step> weighted = new ArrayList<>(profile.critical());
    for (int i = 2; i < profile.critical().size(); i++) {
      weighted.add(0, profile.critical().get(0));
    }
    Arbitrary<Step> criticalStep = Arbitraries.of(weighted);
    Arbitrary<Fate> diesCritical = Combinators.combine(Arbitraries.of(profile.deaths()), criticalStep).as(Fate.Dies::new);
    Arbitrary<Integer> millis = Arbitraries.integers().between(20, 200);
    // Longer at a critical step: the others must find the object and point at it within the stall,
    // which on a loaded machine takes a few hundred milliseconds.
    Arbitrary<Fate> stallCritical = Combinators.combine(criticalStep, Arbitraries.integers().between(50, 500))
        .as(Fate.Stalls::new);
    Arbitrary<Fate> stallAnywhere = Combinators.combine(deathStep, millis).as(Fate.Stalls::new);
    Arbitrary<Fate> stalls = Arbitraries.frequencyOf(Tuple.of(5, stallCritical), Tuple.of(2, stallAnywhere));
    // A stalled lock holder costs its scenario LOCK_STALL_MS: about one replica in 140 draws it.
    Arbitrary<Fate> lockStall = profile.lockStep() == null ? stalls
        : Arbitraries.just(new Fate.Stalls(profile.lockStep(), LOCK_STALL_MS));
    // Killed or failing while a divergent attempt's bytes are kept (P8): drawn on their own, since a step
    // drawn from every operation rarely lands on the loser of a race at the one moment it keeps its bytes.
    // (A store that keeps no bytes finishes instead.)
    Arbitrary<Fate> atEvidence = profile.evidence().isEmpty() ? Arbitraries.just(new Fate.Finishes())
        : Arbitraries.frequencyOf(
            Tuple.of(1, Combinators.combine(Arbitraries.of(profile.deaths()), Arbitraries.of(profile.evidence()))
                .as(Fate.Dies::new)),
            Tuple.of(1, Combinators.combine(Arbitraries.of(profile.faults()), Arbitraries.of(profile.evidence()))
                .as(Fate.Faulted::new)));
    return Arbitraries.frequencyOf(
        Tuple.of(50, Arbitraries.just(new Fate.Finishes())),
        Tuple.of(30, faulted),
        Tuple.of(10 * profile.deathWeight(), Arbitraries.frequencyOf(Tuple.of(1, dies), Tuple.of(1, diesCritical))),
        Tuple.of(30, stalls),
        Tuple.of(1, lockStall),
        Tuple.of(10, Arbitraries.just(new Fate.ClockAhead())),
        Tuple.of(20, atEvidence));
  }

  /** The claim scenarios' tasks: long enough for a claim to be renewed while they run (the heartbeat is a third of the ttl). */
  static final int CLAIM_TASK_MS = 400;

  /**
   * Scenarios with advisory claims at work: the replicas of {@link #scenarios}' generator (2 to 6 of
   * them, tasks up to {@value #CLAIM_TASK_MS} ms), each with a {@link ClaimFate}; in two scenarios of
   * three all racing for one key (one pipeline, one window, one build, starting within 5 ms of each
   * other); a {@link ClaimSetup} of a ttl of 150 or 300 ms, a wait bound of 0 to 3 s and a poll of 5 to 100
   * ms; and now and then a forged claim on the first replica's key ({@code forgeries}: those the backend
   * can place). Everything shrinks toward the plain case: claims working, no race, no forgery.
   */
  static Arbitrary<Scenario> claimScenarios(Backend.Kind kind, Profile profile, List<ClaimSetup.Forgery> forgeries) {
    Arbitrary<List<Replica>> replicas = replica(profile).list().ofMinSize(2).ofMaxSize(6)
        .map(rs -> numbered(rs, profile.maxProcesses()));
    Arbitrary<List<ClaimFate>> fates = claimFate().list().ofSize(6);
    Arbitrary<List<Integer>> tasks = Arbitraries.integers().between(0, CLAIM_TASK_MS).list().ofSize(6);
    Arbitrary<Boolean> racing = Arbitraries.frequency(Tuple.of(1, false), Tuple.of(2, true));
    List<Tuple.Tuple2<Integer, ClaimSetup.Forgery>> forged = new ArrayList<>();
    forged.add(Tuple.of(6, ClaimSetup.Forgery.NONE));
    for (ClaimSetup.Forgery f : forgeries) {
      forged.add(Tuple.of(f == ClaimSetup.Forgery.FRESH ? 2 : 1, f));
    }
    Arbitrary<ClaimSetup> setup = Combinators.combine(
            Arbitraries.of(300, 150),
            Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.integers().between(0, 800)), Tuple.of(1, Arbitraries.just(0)),
                Tuple.of(1, Arbitraries.integers().between(2_000, 3_000))),
            Arbitraries.integers().between(5, 100),
            Arbitraries.frequency(forged),
            Arbitraries.integers().between(100, 3_000))
        .as(ClaimSetup::new);
    return Combinators.combine(replicas, fates, tasks, racing, setup, Arbitraries.integers().between(0, 1))
        .as((rs, fs, ts, race, cs, readers) -> {
          List<Replica> out = new ArrayList<>();
          Replica first = rs.get(0);
          for (int i = 0; i < rs.size(); i++) {
            Replica r = rs.get(i);
            out.add(new Replica(r.id(), race ? 0 : r.pipeline(), race ? r.startMs() % 6 : r.startMs(), ts.get(i),
                r.payload(), race ? first.build() : r.build(), !race && r.nextWindow(), r.fate(), r.process(), fs.get(i)));
          }
          return new Scenario(kind, out, readers, Scenario.Hazard.NONE, cs);
        });
  }

  /** One replica's claim fate: mostly working claims, sometimes off, now and then each fault. */
  static Arbitrary<ClaimFate> claimFate() {
    Arbitrary<ClaimFate> skewed = Combinators.combine(Arbitraries.of(1, -1), Arbitraries.integers().between(500, 3_000))
        .as((sign, ms) -> new ClaimFate(ClaimFate.Kind.SKEWED, sign * ms));
    return Arbitraries.frequencyOf(
        Tuple.of(8, Arbitraries.just(ClaimFate.NORMAL)),
        Tuple.of(2, Arbitraries.just(new ClaimFate(ClaimFate.Kind.OFF, 0))),
        Tuple.of(1, Arbitraries.just(new ClaimFate(ClaimFate.Kind.CLAIM_FAILS, 0))),
        Tuple.of(1, Arbitraries.just(new ClaimFate(ClaimFate.Kind.CLAIM_REPLY_LOST, 0))),
        Tuple.of(1, Arbitraries.just(new ClaimFate(ClaimFate.Kind.DROPPED, 0))),
        Tuple.of(1, Arbitraries.integers().between(20, 300).map(ms -> new ClaimFate(ClaimFate.Kind.CLAIM_DELAYED, ms))),
        Tuple.of(1, Arbitraries.just(new ClaimFate(ClaimFate.Kind.RENEWALS_FAIL, 0))),
        Tuple.of(1, Arbitraries.integers().between(100, 600).map(ms -> new ClaimFate(ClaimFate.Kind.RENEWALS_DELAYED, ms))),
        Tuple.of(1, Arbitraries.integers().between(0, 200).map(ms -> new ClaimFate(ClaimFate.Kind.DELETED_UNDER_IT, ms))),
        Tuple.of(1, Arbitraries.just(new ClaimFate(ClaimFate.Kind.RELEASE_FAILS, 0))),
        Tuple.of(1, Arbitraries.just(new ClaimFate(ClaimFate.Kind.READ_FAILS, 0))),
        Tuple.of(1, skewed));
  }
}
