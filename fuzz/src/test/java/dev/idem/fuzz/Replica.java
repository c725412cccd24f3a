package dev.idem.fuzz;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.Payload;

/**
 * One replica of a scheduled job in an overlapping deployment.
 *
 * @param id 1-based, as the story numbers it
 * @param pipeline which of the scenario's pipelines it runs (0 or 1)
 * @param startMs delay before it starts, from the scenario's common start
 * @param taskMs how long its task works before returning the payload
 * @param payload label of the bytes its task produces; equal labels on one key mean identical bytes,
 *     different labels on one key mean a keying bug (divergent bytes)
 * @param build the old or the new build: they differ in schema version, hence in key and position
 * @param nextWindow whether it runs the next window instead of the common one
 * @param fate how its run ends
 * @param process whether it runs as a separate JVM (always so for deaths by signal)
 * @param claimFate what goes wrong with its advisory claims
 */
public record Replica(
    int id, int pipeline, int startMs, int taskMs, char payload, Build build, boolean nextWindow, Fate fate,
    boolean process, ClaimFate claimFate) {

  public Replica {
    java.util.Objects.requireNonNull(claimFate, "claimFate");
  }

  /** A replica whose claims work. */
  public Replica(int id, int pipeline, int startMs, int taskMs, char payload, Build build, boolean nextWindow, Fate fate,
      boolean process) {
    this(id, pipeline, startMs, taskMs, payload, build, nextWindow, fate, process, ClaimFate.NORMAL);
  }

  Replica withClaimFate(ClaimFate f) {
    return new Replica(id, pipeline, startMs, taskMs, payload, build, nextWindow, fate, process, f);
  }

  /** Window start shared by every scenario; keys are kept apart by the per-run pipeline names. */
  static final long BASE_WINDOW = 1_726_000_000L;
  static final long WINDOW_SECONDS = 60;
  /**
   * The window a replica whose clock runs ahead computes: 2100-01-01, which has not closed, fixed so
   * that the runner and the checker derive the same key.
   */
  static final long FUTURE_WINDOW = 4_102_444_800L;

  public enum Build {
    OLD(3), NEW(4);

    final int schema;

    Build(int schema) {
      this.schema = schema;
    }
  }

  /** The job's spec; {@code namespace} keeps one scenario run's pipelines apart from another's. */
  RunSpec spec(String namespace) {
    return RunSpec.of(pipelineName(namespace, pipeline), window(), build.schema);
  }

  Window window() {
    if (fate instanceof Fate.ClockAhead) {
      return new Window(FUTURE_WINDOW + (nextWindow ? WINDOW_SECONDS : 0), WINDOW_SECONDS);
    }
    return new Window(BASE_WINDOW + (nextWindow ? WINDOW_SECONDS : 0), WINDOW_SECONDS);
  }

  static String pipelineName(String namespace, int pipeline) {
    return namespace + "-p" + pipeline;
  }

  String writerId(String namespace) {
    return namespace + "-r" + id;
  }

  byte[] bytes() {
    return Payloads.bytes(payload);
  }

  Payload payloadObject() {
    return Payload.ofBytes(bytes());
  }

  /** One line of the scenario's story. */
  @Override
  public String toString() {
    return "replica " + id + " (" + build.name().toLowerCase(java.util.Locale.ROOT) + " build, schema " + build.schema
        + (process ? ", own JVM" : ", thread") + ") starts at +" + startMs + "ms, runs " + taskMs
        + "ms, publishes '" + payload + "' (" + Payloads.bytes(payload).length + " bytes) for p" + pipeline
        + (nextWindow ? ", next window" : ", same window") + "; " + fate
        + (claimFate.equals(ClaimFate.NORMAL) ? "" : "; " + claimFate);
  }
}
