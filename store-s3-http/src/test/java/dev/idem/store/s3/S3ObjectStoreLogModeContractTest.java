package dev.idem.store.s3;

import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.ObjectStoreContract;
import dev.idem.store.s3.testing.S3ProxyServer;

/**
 * The store contract against a real S3 server (S3Proxy) in {@link PointerMode#LOG}, whose pointer
 * relies only on the atomic {@code If-None-Match: *}, so the concurrent-advance case runs too.
 */
class S3ObjectStoreLogModeContractTest extends ObjectStoreContract {
  @Override
  protected ObjectStore newStore() throws Exception {
    S3ProxyServer s3 = S3ProxyServer.shared();
    return S3ObjectStore.open(s3.location(s3.createBucket(true), "tenant/idem"), s3.credentials(),
        S3StoreOptions.builder().pointerMode(PointerMode.LOG).build());
  }
}
