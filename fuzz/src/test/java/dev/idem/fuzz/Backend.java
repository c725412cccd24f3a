package dev.idem.fuzz;

import dev.idem.core.store.ObjectStore;
import java.io.IOException;
import java.util.List;

/**
 * A store the fuzz suite runs scenarios against, with its fault seam. One backend lives for a whole
 * property (S3Proxy starts once); each scenario run gets a fresh, empty store from {@link #begin}.
 */
interface Backend extends AutoCloseable {

  enum Kind { MEMORY, FS, S3 }

  Kind kind();

  /** A fresh, empty store for one scenario run. */
  Run begin(String namespace) throws IOException;

  @Override
  void close() throws IOException;

  /** One scenario run's store. */
  interface Run extends AutoCloseable {

    /** A store for a replica thread, with {@code hook} around every operation of its seam. */
    ObjectStore replicaStore(Replica replica, StepHook hook) throws IOException;

    /**
     * The backend's arguments for a {@link ReplicaProcess}: enough for the child to open the same
     * store. Backends whose seam is inside the store (the filesystem's {@code FsOps}) leave the fate to
     * the child; backends whose seam is outside it (the HTTP proxy in front of S3Proxy) call {@code
     * parentHook} for the child's requests.
     */
    List<String> processArgs(Replica replica, StepHook parentHook) throws IOException;

    /**
     * A store with no faults, for readers and for the checks after the run. Opened fresh, so that the
     * checks see what is durable in the backend rather than one instance's caches.
     */
    ObjectStore observer() throws IOException;

    /**
     * Leftovers of killed or faulted writers that readers must never see (temporaries, incomplete
     * uploads), as backend-specific names; empty when the backend has none.
     */
    List<String> leftovers() throws IOException;

    /**
     * Breaches of the backend's protocol seen in the order of its calls (what a power loss would
     * expose but a kill cannot); {@code excused} threads died or hit a fault.
     */
    default List<String> protocolViolations(java.util.Set<Thread> excused) {
      return List.of();
    }

    /**
     * Sets up {@code s}'s {@link Scenario.Hazard} before any replica starts; the backends that offer
     * none ignore it.
     */
    default void prepare(Scenario s) throws IOException {}

    /**
     * After the replicas ended and before the checks: what the hazard shows (for a link, whether
     * anything outside the root was touched), and the store freed of it, so that the checks that
     * follow read the store the replicas left.
     */
    default List<String> clearHazard() throws IOException {
      return List.of();
    }

    /** Whether {@code leftover} has the documented form of a temporary. */
    boolean documentedTemporary(String leftover);

    @Override
    void close() throws IOException;
  }
}
