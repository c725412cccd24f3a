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

/**
 * What one replica does, the same in a thread and in a replica process: publish through core's
 * {@link Publisher} with a task that takes {@code taskMs}; after an I/O error from an injected fault,
 * run once more, as a scheduler's retry would.
 *
 * <p>The pointer advance has a total deadline ({@link #advanceDeadline}): {@value #ADVANCE_DEADLINE_MS}
 * ms where the pointer has a lock (filesystem, in-memory), so that a replica stalled while holding the
 * lock makes the others end BUSY within it (B1) rather than wait for it; the default elsewhere (S3's
 * requests have their own timeouts, which a single injected timeout already exceeds).
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

  static void run(ObjectStore store, Replica replica, String namespace, Backend.Kind kind, Listener listener) {
    RunSpec spec = replica.spec(namespace);
    PointerAdvancer advancer = new PointerAdvancer(store, 64, 1).withDeadline(advanceDeadline(kind));
    // Payload 'C' is a legitimately empty result (what --allow-empty publishes): the scenarios keep
    // exercising 0-byte objects beside non-empty ones. The default refusal of empty results (P6) is
    // pinned by PublisherTest and the CLI tests.
    Publisher publisher = Idem.publisher(store).writer(replica.writerId(namespace)).clock(Clock.systemUTC()).pointer(advancer).allowEmptyResults().build();
    int allowed = replica.fate() instanceof Fate.Faulted ? 2 : 1;
    for (int attempt = 1; attempt <= allowed; attempt++) {
      long invoke = listener.attemptStarting();
      try {
        PublishReport report = publisher.publish(spec, (s, k) -> {
          listener.taskRan();
          Thread.sleep(replica.taskMs());
          return replica.payloadObject();
        });
        listener.attemptEnded(Attempt.of(report, invoke, System.nanoTime()));
        return;
      } catch (IOException e) {
        listener.attemptEnded(Attempt.failed(Attempt.Result.IO_ERROR, e, invoke, System.nanoTime()));
      } catch (IllegalArgumentException e) {
        listener.attemptEnded(Attempt.failed(Attempt.Result.REFUSED, e, invoke, System.nanoTime()));
        return;
      } catch (SimulatedDeath e) {
        listener.attemptEnded(Attempt.failed(Attempt.Result.DIED, e, invoke, System.nanoTime()));
        return;
      } catch (Exception | Error e) {
        listener.attemptEnded(Attempt.failed(Attempt.Result.ERROR, e, invoke, System.nanoTime()));
        return;
      }
    }
  }
}
