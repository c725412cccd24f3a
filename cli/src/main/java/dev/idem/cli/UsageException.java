package dev.idem.cli;

/**
 * Bad input found after parsing (an unreadable {@code --file}, a malformed {@code --input}): exit
 * code {@link ExitCodes#USAGE}, nothing written. Checks that picocli can do itself stay in picocli.
 */
final class UsageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message);
  }

  UsageException(String message, Throwable cause) {
    super(message, cause);
  }
}
