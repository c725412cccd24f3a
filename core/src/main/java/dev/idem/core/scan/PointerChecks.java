package dev.idem.core.scan;

import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The pointers of the pipelines a scan met, each read and checked against the object it names ({@link
 * PointerTarget}): two requests a pipeline on S3, a GET and a HEAD, which depend on each other but not
 * on any other pipeline's. So the pipelines are checked side by side, up to the scan's listing
 * parallelism, and a gate over many pipelines waits about two round trips, not two per pipeline.
 *
 * <p>Results come in the pipelines' order, whatever order the checks end in; a failure is thrown as the
 * store threw it, the first in that order, once every check has ended. Holds no thread after it
 * returns.
 */
final class PointerChecks {

  /** A pipeline's pointer, and what its object showed. */
  record Checked(String pipeline, Pointer pointer, PointerTarget target) {}

  private PointerChecks() {}

  /**
   * Reads and checks the pointer of each of {@code pipelines}, at most {@code parallelism} at once.
   *
   * @return one entry per pipeline that has a pointer, in the order of {@code pipelines}
   */
  static List<Checked> run(ObjectStore store, List<String> pipelines, int parallelism) throws IOException {
    List<Optional<Checked>> results = new ArrayList<>();
    if (parallelism <= 1 || pipelines.size() <= 1) {
      for (String pipeline : pipelines) {
        results.add(check(store, pipeline));
      }
    } else {
      ExecutorService pool = Executors.newFixedThreadPool(Math.min(parallelism, pipelines.size()), r -> {
        Thread t = new Thread(r, "idem-scan-pointers");
        t.setDaemon(true);
        return t;
      });
      try {
        List<Future<Optional<Checked>>> pending = new ArrayList<>();
        for (String pipeline : pipelines) {
          pending.add(pool.submit(() -> {
            try {
              return check(store, pipeline);
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          }));
        }
        IOException failed = null;
        for (Future<Optional<Checked>> f : pending) {
          try {
            results.add(join(f));
          } catch (IOException e) {
            failed = failed == null ? e : failed;
          }
        }
        if (failed != null) {
          throw failed;
        }
      } finally {
        pool.shutdownNow();
      }
    }
    List<Checked> out = new ArrayList<>();
    results.forEach(r -> r.ifPresent(out::add));
    return out;
  }

  private static Optional<Checked> check(ObjectStore store, String pipeline) throws IOException {
    Optional<PointerState> p = store.readPointer(pipeline);
    if (p.isEmpty()) {
      return Optional.empty();
    }
    Pointer pointer = p.get().pointer();
    return Optional.of(new Checked(pipeline, pointer, PointerTarget.check(store, pointer)));
  }

  private static <T> T join(Future<T> f) throws IOException {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while the scan read its pipelines' pointers");
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
