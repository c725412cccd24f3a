package dev.idem.core;

import dev.idem.core.publish.Publisher;
import dev.idem.core.run.Runner;
import dev.idem.core.store.ObjectStore;

/**
 * Where an embedding program starts: {@code Idem.publisher(store).writer("host-a").build()} gives the
 * {@link Publisher} that runs a scheduled task at most as often as needed and publishes its output
 * create-only, advancing the pipeline's {@code latest} pointer. The store is any {@link ObjectStore}:
 * the filesystem store or the S3 store, wrapped by {@link dev.idem.core.proof.ProvenStore} so that it is
 * probed for the guarantees idem needs before its first write. {@code Idem.runner(store).writer("host-a").build()}
 * gives the {@link Runner} that wraps a publisher into the whole scheduled run, the task writing its
 * result to a stream or a file, and that drains its runs when the service stops.
 */
public final class Idem {
  private Idem() {}

  /** A publisher to configure for {@code store}; {@link Publisher.Builder#writer} is required. */
  public static Publisher.Builder publisher(ObjectStore store) {
    return new Publisher.Builder(store);
  }

  /** A runner to configure for {@code store}; {@link Runner.Builder#writer} is required. */
  public static Runner.Builder runner(ObjectStore store) {
    return new Runner.Builder(store);
  }
}
