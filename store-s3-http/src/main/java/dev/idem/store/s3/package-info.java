/**
 * The S3 store: {@link dev.idem.store.s3.S3ObjectStore}, an {@link dev.idem.core.store.ObjectStore} over
 * any S3-compatible server, configured by an {@link dev.idem.store.s3.S3Location} ({@code
 * s3://bucket/prefix} plus the AWS environment) and {@link dev.idem.store.s3.S3StoreOptions}.
 *
 * <p>Invariants every class here keeps:
 *
 * <ul>
 *   <li>Every write is a single atomic S3 operation (PutObject or CompleteMultipartUpload), conditional
 *       wherever another writer may race: {@code If-None-Match: *} for objects, evidence and pointer-log
 *       entries, {@code If-Match} for the CAS pointer. Nothing is ever overwritten except the pointer
 *       (CAS mode) and its plain copy (LOG mode).
 *   <li>The store's own objects live under {@code PREFIX/_idem/}, which callers cannot write and which
 *       listings and history skip.
 *   <li>Listings are streamed page by page and never held whole.
 *   <li>Content identity is idem's SHA-256 (object metadata), never the ETag, except for objects idem
 *       did not write, where the scan falls back to ETags like the reference scan.
 * </ul>
 *
 * The HTTP and SigV4 layers are in {@code dev.idem.store.s3.internal.client} and {@code dev.idem.store.s3.internal.auth}.
 */
package dev.idem.store.s3;
