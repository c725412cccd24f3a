package dev.idem.core.scan;

import dev.idem.core.store.CasResult;
import dev.idem.core.store.Pointer;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import java.util.concurrent.atomic.AtomicInteger;

/** The in-memory store, except that every pointer compare-and-swap loses a race; counts them. */
final class AlwaysOutracedStore extends ForwardingObjectStore {
  final InMemoryObjectStore d;
  final AtomicInteger compareAndSwaps = new AtomicInteger();

  AlwaysOutracedStore() {
    this(new InMemoryObjectStore());
  }

  private AlwaysOutracedStore(InMemoryObjectStore d) {
    super(d);
    this.d = d;
  }

  @Override public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) {
    compareAndSwaps.incrementAndGet();
    return CasResult.CONFLICT;
  }
}
