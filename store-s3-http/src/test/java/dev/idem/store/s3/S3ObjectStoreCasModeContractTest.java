package dev.idem.store.s3;

import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.ObjectStoreContract;
import dev.idem.store.s3.testing.S3ProxyServer;

/**
 * The store contract against S3Proxy in {@link PointerMode#CAS}, in an unversioned bucket at the
 * bucket's root. S3Proxy's {@code If-Match} is not atomic under concurrent writers, so the concurrent
 * pointer case is skipped here (it runs in LOG mode); every sequential pointer case runs.
 */
class S3ObjectStoreCasModeContractTest extends ObjectStoreContract {
  @Override
  protected ObjectStore newStore() throws Exception {
    S3ProxyServer s3 = S3ProxyServer.shared();
    return S3ObjectStore.open(s3.location(s3.createBucket(false), ""), s3.credentials(), S3StoreOptions.defaults());
  }

  @Override
  protected boolean pointerCasIsAtomic() {
    return false;
  }
}
