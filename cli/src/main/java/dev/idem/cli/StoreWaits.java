package dev.idem.cli;

import dev.idem.core.store.Deadline;
import java.time.Duration;
import java.util.Objects;

/**
 * How long a command waits on its store (B2): each connection and each reply (S3), and the one overall
 * deadline that every wait of the command ends by, retries, lock waits, credential fetches and the
 * request in flight included. {@link StoreOption} makes one per command from {@code --connect-timeout},
 * {@code --read-timeout} and {@code --max-time} (or their variables); {@link StoreUris} hands it to the
 * store it opens.
 *
 * @param connectTimeout how long one attempt waits for a connection
 * @param readTimeout how long one attempt waits for a reply's headers (its body gets this plus 1 s per
 *     MiB, and an upload waits this plus 1 s per MiB sent)
 * @param deadline the command's overall deadline
 */
record StoreWaits(Duration connectTimeout, Duration readTimeout, Deadline deadline) {
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  static final Duration READ_TIMEOUT = Duration.ofSeconds(60);
  /** The overall deadline of a command whose work does not grow with the store. */
  static final Duration MAX_TIME = Duration.ofMinutes(2);
  /** The overall deadline of the commands whose work grows with the store: scan and gc. */
  static final Duration MAX_TIME_WHOLE_STORE = Duration.ofHours(1);

  StoreWaits {
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(readTimeout, "readTimeout");
    Objects.requireNonNull(deadline, "deadline");
  }

  /** The defaults, with a {@link #MAX_TIME} deadline starting now. */
  static StoreWaits defaults() {
    return new StoreWaits(CONNECT_TIMEOUT, READ_TIMEOUT, Deadline.after(MAX_TIME, StoreOption.MAX_TIME));
  }
}
