package dev.idem.core.store;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.testing.InMemoryObjectStore;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

/** The capability accessors' defaults: a store has a capability exactly when its class implements it. */
class ObjectStoreCapabilitiesTest {

  /** A store implementing {@link ObjectStore} alone; only its default methods may be called. */
  private static ObjectStore requiredOnly() {
    InvocationHandler h = (proxy, method, args) -> {
      if (method.isDefault()) {
        return InvocationHandler.invokeDefault(proxy, method, args);
      }
      throw new AssertionError("not asked of the store: " + method.getName());
    };
    return (ObjectStore) Proxy.newProxyInstance(ObjectStore.class.getClassLoader(), new Class<?>[] {ObjectStore.class}, h);
  }

  @Test
  void accessors_storeImplementingNoCapability_empty() {
    ObjectStore store = requiredOnly();
    assertTrue(store.publishHistory().isEmpty());
    assertTrue(store.retirementMarks().isEmpty());
    assertTrue(store.leftoverSweep().isEmpty());
    assertTrue(store.claims().isEmpty());
  }

  @Test
  void accessors_storeImplementingEveryCapability_itself() {
    InMemoryObjectStore store = new InMemoryObjectStore();
    assertSame(store, store.publishHistory().orElseThrow());
    assertSame(store, store.retirementMarks().orElseThrow());
    assertSame(store, store.leftoverSweep().orElseThrow());
  }
}
