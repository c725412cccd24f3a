package dev.idem.fuzz;

import dev.idem.core.Idem;
import dev.idem.core.RunSpec;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.Publisher;
import dev.idem.core.store.ObjectStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * What one replica does, the same in a thread and in a replica process: publish through core's
 * {@link Publisher} with a task that takes {@code taskMs}; after an I/O error from an injected fault,
 * run once more, as a scheduler's retry would.
 *
 * <p>The pointer advance has a total deadline ({@link #advanceDeadline}): {@value #ADVANCE_DEADLINE_MS}
 * ms where the pointer has a lock (filesystem, in-memory), so that a replica stalled while holding the
 * lock makes the others end BUSY within it (B1) rather than wait for it; the default elsewhere (S3's
 * requests have their own timeouts, which a single injected timeout already exceeds).
 *
 * <p>Claims are as the scenario's {@link ClaimSetup} says (off for a replica whose {@link ClaimFate} says
 * so), through a {@link ClaimSeam} that injects the replica's claim fate and measures its waits.
 */
final class ReplicaJob {

  /** Receives the job's events as they happen. */
  interface Listener {
    /** The task began to run (so the key was not yet published when the replica looked: P5). */
    void taskRan();

    /** Returns the time the attempt is considered to have begun. */
    long attemptStarting();

    void attemptEnded(Attempt attempt);
  }

  /** The advance deadline on stores with a pointer lock. */
  static final long ADVANCE_DEADLINE_MS = 2_000;

  private ReplicaJob() {}

  static Duration advanceDeadline(Backend.Kind kind) {
    return kind == Backend.Kind.S3 ? Duration.ofSeconds(PointerAdvancer.DEFAULT_DEADLINE_SECONDS)
        : Duration.ofMillis(ADVANCE_DEADLINE_MS);
  }

  /**
   * Runs the replica's job.
   *
   * @param dead whether the replica has died (a thread death stands for a killed process: its claim is
   *     then left to go stale)
   */
  static void run(ObjectStore store, Replica replica, ClaimSetup claims, String namespace, Backend.Kind kind,
      Listener listener, BooleanSupplier dead) {
    ClaimSeam seam = new ClaimSeam(store, replica.claimFate(), dead);
    RunSpec spec = replica.spec(namespace);
    PointerAdvancer advancer = new PointerAdvancer(store, 64, 1).withDeadline(advanceDeadline(kind));
    // Payload 'C' is a legitimately empty result (what --allow-empty publishes): the scenarios keep
    // exercising 0-byte objects beside non-empty ones. The default refusal of empty results (P6) is
    // pinned by PublisherTest and the CLI tests.
    Publisher publisher = Idem.publisher(seam).writer(replica.writerId(namespace)).clock(Clock.systemUTC()).pointer(advancer)
        .allowEmptyResults().claims(claims.policy(replica.claimFate())).build();
    int allowed = replica.fate() instanceof Fate.Faulted ? 2 : 1;
    for (int attempt = 1; attempt <= allowed; attempt++) {
      long invoke = listener.attemptStarting();
      seam.beginAttempt();
      try {
        PublishReport report = publisher.publish(spec, (s, k) -> {
          seam.waitEnded(System.nanoTime());
          listener.taskRan();
          Thread.sleep(replica.taskMs());
          return replica.payloadObject();
        });
        long now = System.nanoTime();
        listener.attemptEnded(Attempt.of(report, invoke, now, seam.seen(true, report.claim(), now)));
        return;
      } catch (IOException e) {
        listener.attemptEnded(failed(Attempt.Result.IO_ERROR, e, invoke, seam));
      } catch (IllegalArgumentException e) {
        listener.attemptEnded(failed(Attempt.Result.REFUSED, e, invoke, seam));
        return;
      } catch (SimulatedDeath e) {
        listener.attemptEnded(failed(Attempt.Result.DIED, e, invoke, seam));
        return;
      } catch (Exception | Error e) {
        listener.attemptEnded(failed(Attempt.Result.ERROR, e, invoke, seam));
        return;
      }
    }
  }

  private static Attempt failed(Attempt.Result result, Throwable t, long invoke, ClaimSeam seam) {
    long now = System.nanoTime();
    return Attempt.failed(result, t, invoke, now).withClaim(seam.seen(false, null, now));
  }
}
