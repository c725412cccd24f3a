package dev.idem.fuzz;

import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A deliberately broken store for the checkers' own tests: its compare-and-swap reads, compares and
 * writes without a lock, like the reference sketch. Two writers with one token both win, every time:
 * the stores sharing one {@code compared} latch hold each compare-and-swap that passed its comparison
 * until two have (at most 10 s), and nothing is written before that, so the second compares against
 * the same token as the first.
 */
final class RacyCasStore extends ForwardingObjectStore {
  private final CountDownLatch compared;

  /** @param compared shared by the stores of one history, counting from 2 */
  RacyCasStore(ObjectStore delegate, CountDownLatch compared) {
    super(delegate);
    this.compared = compared;
  }

  @Override
  public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) throws IOException {
    Optional<PointerState> current = readPointer(pipeline);
    String token = current.map(PointerState::token).orElse(null);
    if (expectedToken == null ? token != null : !expectedToken.equals(token)) {
      return CasResult.CONFLICT;
    }
    compared.countDown();
    try {
      compared.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted between compare and write");
    }
    // Write whatever is there now: the comparison above is already stale.
    String now = readPointer(pipeline).map(PointerState::token).orElse(null);
    return super.compareAndSetPointer(pipeline, now, next);
  }
}
