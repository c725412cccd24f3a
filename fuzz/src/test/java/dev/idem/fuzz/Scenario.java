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
 */
public record Scenario(Backend.Kind backend, List<Replica> replicas, int readers) {
  public Scenario {
    replicas = List.copyOf(replicas);
  }

  int pipelines() {
    return replicas.stream().mapToInt(Replica::pipeline).max().orElse(0) + 1;
  }

  @Override
  public String toString() {
    return backend.name().toLowerCase(java.util.Locale.ROOT) + " store, " + readers + " reader"
        + (readers == 1 ? "" : "s") + " following the pointer:\n"
        + replicas.stream().map(r -> "  " + r).collect(Collectors.joining("\n"));
  }
}
