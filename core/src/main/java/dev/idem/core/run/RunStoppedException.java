package dev.idem.core.run;

import dev.idem.core.publish.TaskFailedException;

/**
 * A run ended because its {@link Runner} was stopped: before its task started, or while its task ran
 * past the drain, when the runner interrupted the task's thread. Nothing was published by this run, the
 * pointer was not touched by it, its claim was released and its spooled result deleted. The cause is
 * what the run ended with (the task's {@link InterruptedException}, or the store's failure when the
 * interruption reached a store call made before the task); the thread's interrupt status is set.
 * A {@link TaskFailedException}, so a caller that treats every failed task alike needs nothing more.
 */
public final class RunStoppedException extends TaskFailedException {
  private static final long serialVersionUID = 1L;

  public RunStoppedException(String message, Throwable cause) {
    super(message, cause);
  }
}
