package dev.idem.store.s3;

import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.ObjectStoreContract;
import dev.idem.store.s3.testing.OnEachS3Server;
import dev.idem.store.s3.testing.S3Implementation;
import dev.idem.store.s3.testing.S3TestServer;
import org.junit.jupiter.params.Parameter;

/**
 * The store contract in {@link PointerMode#CAS}, in an unversioned bucket at the bucket's root, on each
 * S3 implementation. The concurrent pointer case is skipped on all of them (it runs in LOG mode): a
 * probe shows that {@code If-Match} is honoured, not that it is atomic, and none of them makes the
 * condition and the write one step. S3Proxy's is documented not to be (several writers can win); moto
 * checks the condition and stores the object in separate steps of a threaded server with no lock
 * between them; S3Mock checks it in its service layer before the store takes the object's lock. Every
 * sequential pointer case runs. The store is configured by the server's probe answers as idem writes
 * there ({@link ProbedServers}); on a server idem refuses on an unversioned bucket (moto, whose racing
 * creates can all succeed) it is the bare store, and the concurrent publish cases are refused there.
 */
@OnEachS3Server
class S3ObjectStoreCasModeContractTest extends ObjectStoreContract {
  @Parameter
  S3Implementation implementation;

  @Override
  protected ObjectStore newStore() throws Exception {
    S3TestServer s3 = implementation.shared();
    S3ObjectStore store = S3ObjectStore.open(s3.location(s3.createBucket(false), ""), s3.credentials(),
        S3StoreOptions.defaults());
    return ProbedServers.asProven(store, implementation, false);
  }

  @Override
  protected boolean pointerCasIsAtomic() {
    return false;
  }
}
