package dev.idem.store.s3.internal.auth;

import dev.idem.store.s3.CredentialsException;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * One link of the {@link CredentialChain}.
 *
 * <p>Exists to make the chain's rule explicit in the type: a source that is not configured
 * answers {@link Optional#empty()} and the chain moves on; a source that is configured but
 * broken throws a {@link CredentialsException} whose message starts with {@link #name()},
 * and the chain stops there. Implementations keep no state between calls (they re-read files
 * and re-query endpoints each time), so caching lives in one place, the chain.
 */
interface CredentialSource {

  /** The name that prefixes this source's error messages, such as {@code "environment"}. */
  String name();

  /** How this source appears in the chain's "tried" list; usually {@link #name()}. */
  default String triedLabel() {
    return name();
  }

  /**
   * Loads credentials from this source.
   *
   * @return the credentials and a description of where they came from, or empty when this
   *     source is not configured (or, for IMDS on its default endpoint, not reachable)
   * @throws CredentialsException when the source is configured but broken
   * @throws IOException when interrupted ({@link java.io.InterruptedIOException})
   */
  Optional<SourcedCredentials> load() throws IOException;

  /**
   * As {@link #load()}, within {@code budget}: a source that asks an endpoint cuts its requests where
   * the budget ends and then throws {@link dev.idem.core.store.DeadlineExceededException} (the caller's
   * deadline ran out: the source is neither broken nor absent). Sources that only read files and the
   * environment need not override this.
   */
  default Optional<SourcedCredentials> load(Duration budget) throws IOException {
    return load();
  }
}
