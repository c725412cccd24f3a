package dev.idem.fuzz;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * The scenario generator. Each backend has a {@link Profile}: which operations its seam sees, which
 * faults and deaths it can inject, how often a healthy replica runs in its own JVM. Every choice
 * shrinks toward the plain case (one pipeline, no delay, payload 'A', old build, same window,
 * finishes, first occurrence), so a shrunk failure keeps only what matters.
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
   * @param deathWeight weight of a death among fates (finishes 5, faulted 3)
   * @param maxProcesses replica JVMs per scenario at most (JVM start-up is the budget's main cost);
   *     replicas past it finish in a thread instead
   * @param maxNth highest occurrence a step may name (a filesystem publish makes several calls of one
   *     kind, e.g. a directory fsync per new directory before the one after the link)
   */
  record Profile(List<String> ops, List<String> opsFaultAfter, List<Fate.Fault> faults, List<Fate.Death> deaths,
      int processPercent, int deathWeight, int maxProcesses, int maxNth) {}

  static final Profile MEMORY = new Profile(MemoryBackend.OPS, MemoryBackend.OPS, List.of(Fate.Fault.IO_ERROR),
      List.of(Fate.Death.THREAD_DEATH), 0, 2, 0, 3);

  static Arbitrary<Scenario> scenarios(Backend.Kind kind, Profile profile) {
    Arbitrary<List<Replica>> replicas = replica(profile).list().ofMinSize(2).ofMaxSize(8)
        .map(rs -> numbered(rs, profile.maxProcesses()));
    return Combinators.combine(replicas, Arbitraries.integers().between(0, 2))
        .as((rs, readers) -> new Scenario(kind, rs, readers));
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
    Arbitrary<Character> payload = Arbitraries.frequency(Tuple.of(6, 'A'), Tuple.of(2, 'B'), Tuple.of(1, 'C'));
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
    return Arbitraries.frequencyOf(
        Tuple.of(5, Arbitraries.just(new Fate.Finishes())),
        Tuple.of(3, faulted),
        Tuple.of(profile.deathWeight(), dies));
  }
}
