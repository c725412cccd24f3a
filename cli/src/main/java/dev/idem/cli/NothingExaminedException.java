package dev.idem.cli;

/**
 * A scan had nothing of idem's to examine: the directory it was pointed at is not an idem store (exit
 * {@link ExitCodes#NOTHING_EXAMINED}). A gate never passes on nothing; nothing was written.
 */
final class NothingExaminedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  NothingExaminedException(String message) {
    super(message);
  }
}
