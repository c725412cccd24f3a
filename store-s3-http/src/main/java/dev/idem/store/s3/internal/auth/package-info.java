/**
 * Authentication for the S3 store: where AWS credentials come from and how a request is
 * signed with them.
 *
 * <p>Two halves, independent of each other:
 *
 * <ul>
 *   <li>{@link dev.idem.store.s3.internal.auth.CredentialChain} finds credentials in the AWS default
 *       order (environment, profile files, web identity, container endpoint, EC2 IMDSv2),
 *       caches them and refreshes temporary ones before they expire.
 *   <li>{@link dev.idem.store.s3.internal.auth.SigV4Signer} computes the AWS Signature Version 4
 *       headers for one request, one small method per step of the specification.
 * </ul>
 *
 * <p>Invariants every class here keeps:
 *
 * <ul>
 *   <li>No secret access key, session token, web identity token, container authorization
 *       token or derived signing key ever appears in a {@code toString()}, an exception
 *       message or a log line. Nothing in this package logs.
 *   <li>Errors are {@link dev.idem.store.s3.CredentialsException}s with a one-line
 *       message that names the source that failed; a source that is configured but broken
 *       is an error, never silently skipped.
 *   <li>Every class is immutable or documents exactly what is synchronized; time comes from
 *       an injected UTC {@link java.time.Clock}, so tests are deterministic.
 *   <li>Only the JDK ({@code java.net.http}), Caffeine and the store's own XML parser ({@code
 *       dev.idem.store.s3.internal.xml}) are used.
 * </ul>
 */
package dev.idem.store.s3.internal.auth;
