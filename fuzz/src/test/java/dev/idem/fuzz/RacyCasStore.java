package dev.idem.fuzz;

import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.util.Optional;

/**
 * A deliberately broken store for the checkers' own tests: its compare-and-swap reads, compares and
 * writes without a lock, like the reference sketch. Two writers with one token can both win.
 */
final class RacyCasStore extends ForwardingObjectStore {
  RacyCasStore(ObjectStore delegate) {
    super(delegate);
  }

  @Override
  public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) throws IOException {
    Optional<PointerState> current = readPointer(pipeline);
    String token = current.map(PointerState::token).orElse(null);
    if (expectedToken == null ? token != null : !expectedToken.equals(token)) {
      return CasResult.CONFLICT;
    }
    Thread.yield();
    try {
      Thread.sleep(1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    // Write whatever is there now: the comparison above is already stale.
    String now = readPointer(pipeline).map(PointerState::token).orElse(null);
    return super.compareAndSetPointer(pipeline, now, next);
  }
}
