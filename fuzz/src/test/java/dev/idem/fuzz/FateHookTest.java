package dev.idem.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import net.jqwik.api.Example;

/**
 * A call's "after" carries the number its "before" was given, also when calls of one operation overlap
 * (the parts of an S3 multipart upload, each reported by its own proxy thread): a fault after part 1
 * fires on part 1's reply, whatever started since.
 */
class FateHookTest {
  private static final Fate AFTER_FIRST_PART =
      new Fate.Faulted(Fate.Fault.HTTP_500, new Step("PUT object", true, 1));

  @Example
  void overlappingCalls_theFirstCallsAfter_isTheFirst() throws Exception {
    FateHook hook = new FateHook(AFTER_FIRST_PART, step -> { });
    ExecutorService first = Executors.newSingleThreadExecutor();
    ExecutorService second = Executors.newSingleThreadExecutor();
    try {
      first.submit(() -> {
        hook.at("PUT object", false);
        return null;
      }).get();
      second.submit(() -> {
        hook.at("PUT object", false);
        return null;
      }).get();
      second.submit(() -> {
        hook.at("PUT object", true);
        return null;
      }).get();
      assertFalse(hook.fired(), "part 2's reply is not part 1's");
      CompletableFuture<Void> reply = CompletableFuture.runAsync(() -> {
        try {
          hook.at("PUT object", true);
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }, first);
      Exception e = assertThrows(Exception.class, reply::join);
      assertTrue(e.getCause() instanceof java.io.UncheckedIOException
          && e.getCause().getCause() instanceof InjectedFault, String.valueOf(e.getCause()));
      assertTrue(hook.fired());
    } finally {
      first.shutdownNow();
      second.shutdownNow();
    }
  }

  @Example
  void oneThreadOneCallAtATime_countsAsBefore() throws Exception {
    FateHook hook = new FateHook(new Fate.Faulted(Fate.Fault.HTTP_500, new Step("PUT object", true, 2)), step -> { });
    hook.at("PUT object", false);
    hook.at("PUT object", true);
    hook.at("HEAD object", false);
    hook.at("PUT object", false);
    assertFalse(hook.fired());
    assertEquals(InjectedFault.class, assertThrows(InjectedFault.class, () -> hook.at("PUT object", true)).getClass());
    assertTrue(hook.fired());
  }
}
