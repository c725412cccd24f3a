package dev.idem.fuzz;

import java.io.IOException;

/**
 * Called by a backend's seam around every store operation of one replica: once before the operation
 * runs and once after it returned. The fate of the replica decides what happens at its step.
 */
@FunctionalInterface
interface StepHook {
  StepHook NONE = (op, after) -> {};

  void at(String op, boolean after) throws IOException;
}
