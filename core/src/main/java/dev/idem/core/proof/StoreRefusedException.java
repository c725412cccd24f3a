package dev.idem.core.proof;

import java.io.IOException;

/**
 * idem refuses to write to a store: it failed a guarantee probe, its marker names another pointer mode
 * than this process was configured with, or its marker is not one idem can read.
 *
 * <p>An {@link IOException} so that every caller that handles store failures handles this one too; the
 * CLI maps it to its own exit code. Whatever raised it wrote nothing at any key (probe keys under
 * {@code _idem/probe/} are removed before it is thrown).
 */
public class StoreRefusedException extends IOException {
  private static final long serialVersionUID = 1L;

  /** {@code message} is one line naming the store and what it lacks. */
  public StoreRefusedException(String message) {
    super(message);
  }
}
