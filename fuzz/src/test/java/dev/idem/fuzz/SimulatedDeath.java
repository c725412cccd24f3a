package dev.idem.fuzz;

/**
 * Thrown through a replica's thread at its death step when the backend has no processes to kill.
 * An {@link Error}, so that no store code mistakes it for an I/O failure it could handle.
 */
final class SimulatedDeath extends Error {
  private static final long serialVersionUID = 1L;

  SimulatedDeath(Step step) {
    super("replica died " + step);
  }
}
