package dev.idem.store.s3;

import java.io.IOException;

/**
 * No credential source yielded credentials, or a source that is configured is broken.
 *
 * <p>Exists so callers can tell "cannot authenticate" apart from other I/O failures and map
 * it to one exit code. The message is a single line that names the source
 * ({@code "environment: ..."}, {@code "web identity: ..."}) and never contains a secret,
 * session token or web identity token: the classes that throw it build messages only from
 * variable names, file paths, endpoints and HTTP status codes. Line breaks are replaced by
 * spaces so the one-line guarantee holds even for a message built from a server reply.
 */
public final class CredentialsException extends IOException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception with a message that must already be free of secrets. */
  public CredentialsException(String message) {
    super(oneLine(message));
  }

  /** Creates the exception with a cause; the cause's own message must be free of secrets. */
  public CredentialsException(String message, Throwable cause) {
    super(oneLine(message), cause);
  }

  private static String oneLine(String message) {
    return message == null ? null : message.replaceAll("[\\r\\n]+", " ").strip();
  }
}
