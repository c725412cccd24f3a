/**
 * The S3 store over {@code java.net.http} ({@link dev.idem.store.s3.S3ObjectStore}), its prover, its
 * location and options, and the credentials seam it signs with ({@link
 * dev.idem.store.s3.CredentialsProvider}).
 *
 * <p>Only {@code dev.idem.store.s3} is exported. The HTTP client, the SigV4 signer, the credential
 * sources and the XML parser live under {@code dev.idem.store.s3.internal} and are not: they implement
 * the store, their shapes follow the S3 wire protocol and change with it, and a caller reaches
 * everything they do through the store. The core is required transitively, since the store's API is the
 * core's {@link dev.idem.core.store.ObjectStore}.
 */
module dev.idem.store.s3http {
  requires transitive dev.idem.core;
  requires java.net.http;
  requires com.github.benmanes.caffeine;

  exports dev.idem.store.s3;
}
