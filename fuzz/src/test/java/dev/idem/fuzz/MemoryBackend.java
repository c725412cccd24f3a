package dev.idem.fuzz;

import dev.idem.core.store.ObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import java.util.List;
import java.util.function.UnaryOperator;

/** core's in-memory model store; replicas are threads, faults sit at the SPI boundary. */
final class MemoryBackend implements Backend {
  private final UnaryOperator<ObjectStore> breakage;

  MemoryBackend() {
    this(UnaryOperator.identity());
  }

  /** A backend whose store is wrapped by {@code breakage}: how the checker's own tests break a contract. */
  MemoryBackend(UnaryOperator<ObjectStore> breakage) {
    this.breakage = breakage;
  }

  static final List<String> OPS = List.of("exists", "stat", "putIfAbsent", "readPointer", "compareAndSetPointer");

  @Override
  public Kind kind() {
    return Kind.MEMORY;
  }

  @Override
  public Run begin(String namespace) {
    ObjectStore store = breakage.apply(new InMemoryObjectStore());
    return new Run() {
      @Override
      public ObjectStore replicaStore(Replica replica, StepHook hook) {
        return new HookedStore(store, hook);
      }

      @Override
      public List<String> processArgs(Replica replica, StepHook parentHook) {
        throw new UnsupportedOperationException("the in-memory store lives in one JVM");
      }

      @Override
      public ObjectStore observer() {
        return new HookedStore(store, StepHook.NONE);
      }

      @Override
      public List<String> leftovers() {
        return List.of();
      }

      @Override
      public boolean documentedTemporary(String leftover) {
        return false;
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public void close() {}
}
