package dev.idem.cli;

/** No pointer for the pipeline, or no object at a key (exit {@link ExitCodes#NOT_FOUND}). */
final class NotFoundException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  NotFoundException(String message) {
    super(message);
  }
}
