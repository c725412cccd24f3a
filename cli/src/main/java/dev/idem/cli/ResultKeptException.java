package dev.idem.cli;

import java.nio.file.Path;

/**
 * {@code idem run}'s publish failed after CMD succeeded, and CMD's result was kept rather than deleted
 * with the run's temporary directory: the work of a long task is never thrown away silently. Carries
 * the failure (its cause decides the exit code, {@link ExitCodes#codeOf}) and where the result is, which
 * the error line and the {@code --json} error object ({@code kept_result}) name.
 */
final class ResultKeptException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  final transient Path kept;

  ResultKeptException(Exception failure, Path kept) {
    super(failure);
    this.kept = kept;
  }

  /** What the error line adds after the failure's own message. */
  String keptClause() {
    return "; CMD's result is kept at " + kept + " ('idem publish --file " + kept + "' with the same spec publishes"
        + " it without running CMD again)";
  }
}
