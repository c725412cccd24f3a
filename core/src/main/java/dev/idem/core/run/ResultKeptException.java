package dev.idem.core.run;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The publish failed after the task succeeded, and the task's result was kept rather than deleted with
 * its spool: the work of a long task is never thrown away silently. {@link #result()} is the file; {@code
 * Publisher.publish(spec, Payload.ofFile(result))} with the same spec publishes it without running the
 * task again, and the caller deletes it (with its directory) when done. The cause is the publish's
 * failure, and says what state the store was left in: an {@link IOException} from the store (the key
 * holds nothing or a complete object, the pointer is whole), an {@link
 * dev.idem.core.publish.InsufficientSpaceException} (nothing was written), or an unexpected {@link
 * RuntimeException}.
 */
public final class ResultKeptException extends IOException {
  private static final long serialVersionUID = 1L;

  private final transient Path result;

  public ResultKeptException(Exception failure, Path result) {
    super(Objects.requireNonNull(failure, "failure").getMessage() + "; the task's result is kept at " + result
        + " (Publisher.publish(spec, Payload.ofFile(path)) with the same spec publishes it without running the task"
        + " again)", failure);
    this.result = Objects.requireNonNull(result, "result");
  }

  /** The task's result, as it wrote it. */
  public Path result() {
    return result;
  }
}
