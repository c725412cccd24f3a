package dev.idem.store.s3;

import dev.idem.store.s3.internal.client.S3Client;

/**
 * Opens an S3 store over a client a test built (its own retries, timeouts or intercepting HTTP
 * client), for the tests and tools of other modules. The client is not part of the store's API, so
 * {@link S3ObjectStore#open(S3Client, S3Location, S3StoreOptions)} is package-private; this class lives
 * in the store's package in the test jar, which shares that package on the class path.
 */
public final class S3TestStores {
  private S3TestStores() {}

  /** A store at {@code location} using {@code client}, which must address the same endpoint and region. */
  public static S3ObjectStore open(S3Client client, S3Location location, S3StoreOptions options) {
    return S3ObjectStore.open(client, location, options);
  }
}
