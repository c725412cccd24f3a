/**
 * The S3 store: {@link dev.idem.store.s3.S3ObjectStore}, an {@link dev.idem.core.store.ObjectStore} over
 * any S3-compatible server, configured by an {@link dev.idem.store.s3.S3Location} ({@code
 * s3://bucket/prefix} plus the AWS environment) and {@link dev.idem.store.s3.S3StoreOptions}.
 *
 * <p>Invariants every class here keeps:
 *
 * <ul>
 *   <li>Every write is a single atomic S3 operation (PutObject or CompleteMultipartUpload), conditional
 *       wherever another writer may race: {@code If-None-Match: *} for objects, evidence, pointer-log
 *       entries, acknowledgements and claims, {@code If-Match} for the CAS pointer. Nothing is ever overwritten except the pointer
 *       (CAS mode) and its plain copy (LOG mode).
 *   <li>The store's own objects live under {@code PREFIX/_idem/}, which callers cannot write and which
 *       listings and history skip.
 *   <li>Listings are streamed page by page and never held whole.
 *   <li>Content identity is idem's SHA-256 (object metadata), never the ETag, except for objects idem
 *       did not write, where the scan falls back to ETags like the reference scan.
 * </ul>
 *
 * <p>This package is the module's API: the store, its prover, location and options, and the
 * credentials seam ({@link dev.idem.store.s3.CredentialsProvider}, {@link
 * dev.idem.store.s3.CredentialsProvider#standard} for the AWS default chain). Everything under {@code
 * dev.idem.store.s3.internal} implements it and is not exported.
 *
 * <h2>Reading map</h2>
 *
 * A publish, from the call to the bytes on the wire, one file per step:
 *
 * <ol>
 *   <li><b>store</b>: {@code S3ObjectStore.putIfAbsent} checks the key ({@code KeyLayout}), chooses the
 *       publish's upload plan, hashes the payload once as the plan says ({@code ContentChecksums}), HEADs
 *       the key first where the plan says, hands the bytes to the upload, and decides CREATED, IDENTICAL
 *       or DIVERGENT from what the key holds (core's {@code PublishDecision}; divergence evidence is kept
 *       by the same plan), checking the versions under its own write where the plan says ({@code
 *       KeyLife}). The pointer ({@code CasPointers}, {@code LogPointers}), the history the scan reads
 *       ({@code HistoryWalk}), the advisory claims ({@code ClaimObjects}) and the sweep are its other
 *       paths, each in its own class here.
 *   <li><b>upload plan</b>: {@code UploadPlan} states the upload decision table in one place and is chosen
 *       once per publish from explicit inputs (size, whether the payload reads ranges, the endpoint's
 *       scheme, the server's {@code ProbeAnswers}, the options): HEAD first or not, one PUT or parts, how
 *       the body is authenticated, where part SHA-256s come from, whether versions are checked after the
 *       write. Nothing after it decides these again.
 *   <li><b>upload</b>: {@code CreateOnlyUpload} writes create-only ({@code If-None-Match: *}) as the plan
 *       says: one PUT, or a multipart upload whose parts {@code PartUploads} sends, each checked against
 *       the hash pass before it leaves.
 *   <li><b>client</b>: {@code internal.client.S3Client}, one method per S3 operation idem uses, with
 *       request bodies from {@code RequestBody} and typed replies read by {@code S3Xml} and {@code
 *       VersionsPageReader} over the streaming parser in {@code internal.xml}.
 *   <li><b>transport</b>: {@code internal.client.S3Transport} signs, sends over {@code java.net.http}
 *       (clients from {@code internal.http.HttpClients}, reply bodies cut by {@code BodyDeadline}),
 *       retries with backoff within the deadline, and turns error replies into {@code S3Exception}.
 *   <li><b>signer</b>: {@code internal.auth.SigV4Signer}, one small method per step of Signature
 *       Version 4, with credentials from a {@link dev.idem.store.s3.CredentialsProvider} such as {@code
 *       internal.auth.CredentialChain}.
 * </ol>
 *
 * A single-PUT publish that creates its key runs through {@code S3ObjectStore}, {@code KeyLayout}, {@code
 * UploadPlan}, {@code ContentChecksums}, {@code IdemMetadata}, {@code CreateOnlyUpload}, {@code
 * RequestBody}, {@code S3Client}, {@code S3Transport} and {@code SigV4Signer}; a multipart one adds {@code
 * PartUploads}, and on its completion {@code KeyLife}.
 */
package dev.idem.store.s3;
