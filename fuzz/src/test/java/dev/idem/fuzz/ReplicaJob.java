package dev.idem.fuzz;

import dev.idem.core.RunSpec;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.Publisher;
import dev.idem.core.store.ObjectStore;
import java.io.IOException;
import java.time.Clock;

/**
 * What one replica does, the same in a thread and in a replica process: publish through core's
 * {@link Publisher} with a task that takes {@code taskMs}; after an I/O error from an injected fault,
 * run once more, as a scheduler's retry would.
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

  private ReplicaJob() {}

  static void run(ObjectStore store, Replica replica, String namespace, Listener listener) {
    RunSpec spec = replica.spec(namespace);
    PointerAdvancer advancer = new PointerAdvancer(store, 64, 1);
    // Payload 'C' is a legitimately empty result (what --allow-empty publishes): the scenarios keep
    // exercising 0-byte objects beside non-empty ones. The default refusal of empty results (P6) is
    // pinned by PublisherTest and the CLI tests.
    Publisher publisher = Publisher.create(store, replica.writerId(namespace), Clock.systemUTC(), advancer, true)
        .withEmptyResults(true);
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
