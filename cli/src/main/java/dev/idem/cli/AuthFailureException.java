package dev.idem.cli;

import java.io.IOException;

/** The store refused the credentials (exit {@link ExitCodes#AUTH}). */
final class AuthFailureException extends IOException {
  private static final long serialVersionUID = 1L;

  AuthFailureException(String message, Throwable cause) {
    super(message, cause);
  }
}
