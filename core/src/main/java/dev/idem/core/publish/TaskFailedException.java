package dev.idem.core.publish;

/**
 * The task that produces a payload failed (threw, or was interrupted). Nothing was published and the
 * pointer was not touched.
 */
public class TaskFailedException extends Exception {
  private static final long serialVersionUID = 1L;

  public TaskFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
