package dev.idem.core.publish;

import dev.idem.core.Names;
import dev.idem.core.OutputKey;
import dev.idem.core.RunSpec;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PutOutcome;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;

/**
 * Runs a scheduled task at most as often as needed and publishes its output safely. This is the class
 * an embedding job calls.
 *
 * <p>{@link #publish} does, in order:
 *
 * <ol>
 *   <li>derive the key from the spec (K1–K3);
 *   <li>if the key already holds an object, skip the task entirely (P5) and go to step 5;
 *   <li>run the task to produce the payload (only now: the expensive work runs only when needed);
 *   <li>publish create-only: CREATED, IDENTICAL or DIVERGENT (P2–P4);
 *   <li>advance the pipeline's pointer to the object now at the key, by the monotonic rule (G1–G3).
 *       This also happens on skip, so a replica that died between publishing and advancing is
 *       completed by the next one.
 * </ol>
 *
 * A failing task publishes nothing. An {@link IOException} from the store leaves the key holding
 * nothing or a complete object and the pointer whole (old or new); calling {@code publish} again is
 * safe and finishes the job.
 *
 * <p>Thread-safe if the store is (both shipped stores are).
 */
public final class Publisher {

  /** Produces the payload for a key; runs only when the key is not yet published. */
  @FunctionalInterface
  public interface Task {
    Payload produce(RunSpec spec, OutputKey key) throws Exception;
  }

  private final ObjectStore store;
  private final String writerId;
  private final Clock clock;
  private final PointerAdvancer advancer;
  private final boolean advancePointer;

  private Publisher(ObjectStore store, String writerId, Clock clock, PointerAdvancer advancer, boolean advancePointer) {
    this.store = Objects.requireNonNull(store, "store");
    this.writerId = Names.requireWriterId(writerId);
    this.clock = Objects.requireNonNull(clock, "clock");
    this.advancer = advancer;
    this.advancePointer = advancePointer;
  }

  /** A publisher that advances the pointer after each publish, with default retry settings. */
  public static Publisher create(ObjectStore store, String writerId) {
    return new Publisher(store, writerId, Clock.systemUTC(), new PointerAdvancer(store), true);
  }

  /** Full control: the clock stamps pointers of objects whose store kept no time. */
  public static Publisher create(ObjectStore store, String writerId, Clock clock, PointerAdvancer advancer, boolean advancePointer) {
    return new Publisher(store, writerId, clock, advancer, advancePointer);
  }

  public ObjectStore store() {
    return store;
  }

  public String writerId() {
    return writerId;
  }

  /**
   * Publishes the output of {@code task} for {@code spec}, running the task only if needed.
   *
   * @throws TaskFailedException the task threw; nothing was published, the pointer is untouched
   * @throws IOException the store failed; see the class comment for the state left behind
   */
  public PublishReport publish(RunSpec spec, Task task) throws IOException, TaskFailedException {
    OutputKey key = spec.outputKey();
    String k = key.toString();
    if (store.exists(k)) {
      Optional<ObjectInfo> stored = store.stat(k);
      if (stored.isPresent()) {
        return new PublishReport(key, PublishStatus.SKIPPED, stored.get(), null, advance(spec, stored.get()));
      }
      // Removed by retention between the two calls: fall through and publish it again.
    }
    Payload payload;
    try {
      payload = Objects.requireNonNull(task.produce(spec, key), "task returned no payload");
    } catch (InterruptedException | InterruptedIOException e) {
      Thread.currentThread().interrupt();
      throw new TaskFailedException("task for " + k + " was interrupted", e);
    } catch (Exception e) {
      throw new TaskFailedException("task for " + k + " failed: " + e.getMessage(), e);
    }
    return publishPayload(spec, key, payload);
  }

  /** Publishes an already produced payload (what {@code idem publish} does). */
  public PublishReport publish(RunSpec spec, Payload payload) throws IOException {
    return publishPayload(spec, spec.outputKey(), payload);
  }

  private PublishReport publishPayload(RunSpec spec, OutputKey key, Payload payload) throws IOException {
    PutOutcome put = store.putIfAbsent(key.toString(), payload, writerId);
    PublishStatus status = switch (put.status()) {
      case CREATED -> PublishStatus.CREATED;
      case IDENTICAL -> PublishStatus.IDENTICAL;
      case DIVERGENT -> PublishStatus.DIVERGENT;
    };
    // On DIVERGENT the stored object is still a complete generation for this position: advancing to it
    // completes a first writer that died before its own advance.
    return new PublishReport(key, status, put.stored(), put, advance(spec, put.stored()));
  }

  private AdvanceReport advance(RunSpec spec, ObjectInfo stored) throws IOException {
    if (!advancePointer) {
      return null;
    }
    Pointer next = Pointer.to(stored, spec.window().lengthSeconds(), spec.schemaVersion(), writerId, clock.instant());
    return advancer.advance(next, stored);
  }
}
