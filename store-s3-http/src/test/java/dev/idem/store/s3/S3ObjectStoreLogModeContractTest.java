package dev.idem.store.s3;

import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.ObjectStoreContract;
import dev.idem.store.s3.testing.OnEachS3Server;
import dev.idem.store.s3.testing.S3Implementation;
import dev.idem.store.s3.testing.S3TestServer;
import org.junit.jupiter.params.Parameter;

/**
 * The store contract in {@link PointerMode#LOG} on each S3 implementation, in a versioned bucket under a
 * prefix, the store configured by the server's probe answers as idem writes there ({@link ProbedServers}):
 * on moto, whose racing creates can all succeed, every publish checks for a version under its own, so
 * the concurrent publish cases run there too. The pointer relies only on {@code If-None-Match: *}, so the
 * concurrent-advance case runs where that is atomic.
 */
@OnEachS3Server
class S3ObjectStoreLogModeContractTest extends ObjectStoreContract {
  @Parameter
  S3Implementation implementation;

  @Override
  protected ObjectStore newStore() throws Exception {
    S3TestServer s3 = implementation.shared();
    S3ObjectStore store = S3ObjectStore.open(s3.location(s3.createBucket(true), "tenant/idem"), s3.credentials(),
        S3StoreOptions.builder().pointerMode(PointerMode.LOG).build());
    return ProbedServers.asProven(store, implementation, true);
  }
}
