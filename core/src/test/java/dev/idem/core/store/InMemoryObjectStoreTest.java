package dev.idem.core.store;

import dev.idem.core.testing.InMemoryObjectStore;

/** The contract suite against the in-memory model, which keeps the suite itself honest. */
class InMemoryObjectStoreTest extends ObjectStoreContract {
  @Override
  protected ObjectStore newStore() {
    return new InMemoryObjectStore();
  }
}
