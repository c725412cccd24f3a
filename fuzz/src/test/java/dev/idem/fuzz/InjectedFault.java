package dev.idem.fuzz;

import java.io.IOException;

/** The I/O error a {@link FateHook} throws at a replica's fault step. */
final class InjectedFault extends IOException {
  private static final long serialVersionUID = 1L;

  InjectedFault(Step step) {
    super("injected fault " + step);
  }
}
