/**
 * A minimal S3 client over {@code java.net.http}: {@link dev.idem.store.s3.internal.client.S3Client} with the
 * operations idem needs, typed results ({@link dev.idem.store.s3.internal.client.WriteResult}, listing pages),
 * typed errors ({@link dev.idem.store.s3.internal.client.S3Exception}, {@link
 * dev.idem.store.s3.internal.client.MalformedReplyException}) and the retry policy.
 *
 * <p>Invariants: every request is signed (SigV4, {@code dev.idem.store.s3.internal.auth}); request bodies are
 * streamed with their SHA-256 known up front and verified as they are sent; XML replies are parsed with
 * DTDs and external entities disabled and size-bounded; no message or exception carries a secret; a
 * server's malformed reply is an {@link java.io.IOException} naming the request, never a
 * {@link java.lang.NullPointerException}.
 *
 * <p>Inside {@code S3Client}: the operations and what their replies mean stay in the client; {@code
 * S3Addressing} builds request URIs and names requests in messages; {@code S3Transport} signs, sends,
 * retries with backoff and turns error replies into {@link dev.idem.store.s3.internal.client.S3Exception}.
 */
package dev.idem.store.s3.internal.client;
