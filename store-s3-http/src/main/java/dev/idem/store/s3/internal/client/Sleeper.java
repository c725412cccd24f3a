package dev.idem.store.s3.internal.client;

import java.time.Duration;

/**
 * Waits between retries. Exists so tests can record the backoff a client chose instead of
 * waiting it out; production uses {@link #SYSTEM}.
 */
@FunctionalInterface
public interface Sleeper {

  /** Sleeps on the calling thread. */
  Sleeper SYSTEM = d -> Thread.sleep(d.toMillis());

  /** Waits {@code duration} (which may be zero); throws when the thread is interrupted. */
  void sleep(Duration duration) throws InterruptedException;
}
