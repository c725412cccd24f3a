/**
 * HTTP plumbing shared by the S3 client ({@code dev.idem.store.s3.internal.client}) and the credential sources
 * ({@code dev.idem.store.s3.internal.auth}): {@link dev.idem.store.s3.internal.http.BodyDeadline}, the deadline on reading
 * a reply's body that {@code java.net.http}'s own timeouts do not give.
 */
package dev.idem.store.s3.internal.http;
