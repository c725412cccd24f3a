package dev.idem.cli;

/** The pointer stayed contended past the retries (exit {@link ExitCodes#CONTENDED}); nothing was lost. */
final class ContendedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  ContendedException(String message) {
    super(message);
  }
}
