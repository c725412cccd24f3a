package dev.idem.store.s3;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/** Waits for background requests and rethrows their failures as the {@link IOException}s they were. */
final class Futures {
  private Futures() {}

  /**
   * The future's result. Tasks wrap their {@link IOException} in {@link UncheckedIOException}; it is
   * unwrapped here. An interrupt cancels the task and raises {@link InterruptedIOException}.
   */
  static <T> T join(Future<T> f) throws IOException {
    try {
      return f.get();
    } catch (InterruptedException e) {
      f.cancel(true);
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for an S3 request");
    } catch (CancellationException e) {
      throw new InterruptedIOException("background S3 request was cancelled");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof UncheckedIOException u) {
        throw u.getCause();
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new IOException(cause);
    }
  }
}
