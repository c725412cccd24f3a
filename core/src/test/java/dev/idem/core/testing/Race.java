package dev.idem.core.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Real threads released together by one latch: how the store tests make replicas race. */
public final class Race {
  private Race() {}

  /** One racer; {@code index} tells them apart. */
  @FunctionalInterface
  public interface Racer<T> {
    T run(int index) throws Exception;
  }

  /**
   * Runs {@code n} racers on their own threads, released at once; returns their results in index
   * order, or rethrows the first failure (as the {@link java.util.concurrent.ExecutionException}).
   */
  public static <T> List<T> run(int n, Racer<T> racer) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int index = i;
        Callable<T> c = () -> {
          start.await();
          return racer.run(index);
        };
        futures.add(pool.submit(c));
      }
      start.countDown();
      List<T> out = new ArrayList<>();
      for (Future<T> f : futures) {
        out.add(f.get(120, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }
}
