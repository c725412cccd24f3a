package dev.idem.core.publish;

/**
 * The task succeeded but produced zero bytes, and the publisher was not told that an empty result is
 * a result (P6). Exists so a caller can tell "the task wrote nothing" from "the task failed": a job
 * that truncated its output or never wrote it would otherwise publish an empty generation and move the
 * pointer to it. Nothing was published and the pointer was not touched.
 */
public final class EmptyResultException extends TaskFailedException {
  private static final long serialVersionUID = 1L;

  public EmptyResultException(String message) {
    super(message, null);
  }
}
