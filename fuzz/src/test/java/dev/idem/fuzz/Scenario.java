package dev.idem.fuzz;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One overlapping deployment: replicas of one or two pipelines, and readers that follow the pointer
 * while they run. Prints as a short story, which is what a shrunk failure shows.
 *
 * @param backend the store it runs against
 * @param replicas 2 to 8 replicas, numbered from 1
 * @param readers reader threads following every pipeline's pointer during the run
 * @param hazard what is wrong with the store before the replicas start
 * @param claims how the replicas use advisory claims, and what another writer left on the first key
 */
public record Scenario(Backend.Kind backend, List<Replica> replicas, int readers, Hazard hazard, ClaimSetup claims) {
  public Scenario {
    replicas = List.copyOf(replicas);
    java.util.Objects.requireNonNull(hazard, "hazard");
    java.util.Objects.requireNonNull(claims, "claims");
  }

  public Scenario(Backend.Kind backend, List<Replica> replicas, int readers, Hazard hazard) {
    this(backend, replicas, readers, hazard, ClaimSetup.OFF);
  }

  public Scenario(Backend.Kind backend, List<Replica> replicas, int readers) {
    this(backend, replicas, readers, Hazard.NONE);
  }

  /**
   * Something wrong with the store that the replicas meet: most must refuse the store, writing nothing
   * (and nothing outside the store); a server that applies every multipart completion must be lived
   * with instead ({@link #APPLIES_EVERY_COMPLETION}).
   */
  public enum Hazard {
    NONE(""),
    /** A symbolic link pre-placed as pipeline p0's directory, pointing outside the root (S2). */
    LINK_AT_PIPELINE("a symbolic link pre-placed as p0's directory points outside the root"),
    /** A symbolic link pre-placed as p0's directory of the common window (S2). */
    LINK_AT_WINDOW("a symbolic link pre-placed as p0's directory of the same window points outside the root"),
    /** A symbolic link pre-placed as p0's record directory, {@code _idem/records/p0} (S2). */
    LINK_AT_RECORDS("a symbolic link pre-placed as p0's record directory points outside the root"),
    /**
     * The S3 server ignores {@code If-None-Match} (a gateway strips it), and the store has no marker yet:
     * the probe before the first write must refuse the store, and nothing is written at any key (S1).
     */
    IGNORES_IF_NONE_MATCH("the server ignores If-None-Match (a gateway strips it) and the store has no marker"),
    /**
     * The S3 server applies every CompleteMultipartUpload, {@code If-None-Match: *} or not, and keeps each
     * as a version, as moto does with concurrent completions (its probe still passes: moto refuses a
     * completion that comes after another), and lists a key's versions oldest first, as moto lists the
     * writes of one millisecond. No replica is refused: a publisher whose completion landed
     * over an earlier version must give way (P3, P7), and the checks allow what the server makes
     * visible meanwhile ({@link InvariantChecker}).
     */
    APPLIES_EVERY_COMPLETION("the server applies every multipart completion, If-None-Match or not, and keeps each as"
        + " a version, listing a key's versions oldest first (moto, under concurrent completions)");

    final String story;

    Hazard(String story) {
      this.story = story;
    }

    /**
     * Whether {@code r}'s publish goes through a hazard that must refuse it (a refused clock is refused
     * earlier; a server applying every completion refuses nobody).
     */
    boolean crosses(Replica r) {
      if (this == NONE || this == APPLIES_EVERY_COMPLETION || r.fate() instanceof Fate.ClockAhead) {
        return false;
      }
      if (this == IGNORES_IF_NONE_MATCH) {
        return true;
      }
      if (r.pipeline() != 0) {
        return false;
      }
      return this != LINK_AT_WINDOW || !r.nextWindow();
    }

    /** What the error of a replica refused by this hazard says. */
    String refusal() {
      return this == IGNORES_IF_NONE_MATCH ? "StoreRefusedException" : "symbolic link";
    }

    /** The path of the link under the root, for {@code namespace}'s pipeline p0. */
    String linkPath(String namespace) {
      String p0 = Replica.pipelineName(namespace, 0);
      return switch (this) {
        case NONE, IGNORES_IF_NONE_MATCH, APPLIES_EVERY_COMPLETION -> throw new IllegalStateException("no link");
        case LINK_AT_PIPELINE -> p0;
        case LINK_AT_WINDOW -> p0 + "/" + Replica.BASE_WINDOW;
        case LINK_AT_RECORDS -> "_idem/records/" + p0;
      };
    }
  }

  int pipelines() {
    return replicas.stream().mapToInt(Replica::pipeline).max().orElse(0) + 1;
  }

  @Override
  public String toString() {
    return backend.name().toLowerCase(java.util.Locale.ROOT) + " store, " + readers + " reader"
        + (readers == 1 ? "" : "s") + " following the pointer" + (hazard == Hazard.NONE ? "" : "; " + hazard.story)
        + (claims.equals(ClaimSetup.OFF) ? "" : "; " + claims) + ":\n"
        + replicas.stream().map(r -> "  " + r).collect(Collectors.joining("\n"));
  }
}
