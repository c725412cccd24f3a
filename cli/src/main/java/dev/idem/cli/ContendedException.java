package dev.idem.cli;

/** A pointer advance gave up at its deadline, BUSY or CONFLICT (exit {@link ExitCodes#CONTENDED}); nothing was lost. */
final class ContendedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  ContendedException(String message) {
    super(message);
  }
}
