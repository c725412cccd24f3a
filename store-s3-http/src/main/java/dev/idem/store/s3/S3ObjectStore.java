package dev.idem.store.s3;

import dev.idem.core.Names;
import dev.idem.core.OutputKey;
import dev.idem.core.Sha256;
import dev.idem.core.store.Acknowledgement;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Claim;
import dev.idem.core.store.Claims;
import dev.idem.core.store.DivergenceRecord;
import dev.idem.core.store.HistoryQuery;
import dev.idem.core.store.KnownKeys;
import dev.idem.core.store.LeftoverSweep;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.store.PublishDecision;
import dev.idem.core.store.PublishHistory;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.PutStatus;
import dev.idem.core.store.Retirement;
import dev.idem.core.store.RetirementMarks;
import dev.idem.core.store.WriteProgress;
import dev.idem.store.s3.internal.client.ObjectHead;
import dev.idem.store.s3.internal.client.ObjectSummary;
import dev.idem.store.s3.internal.client.ObjectsPage;
import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.internal.client.S3Client.Condition;
import dev.idem.store.s3.internal.client.S3Client.ObjectStream;
import dev.idem.store.s3.internal.client.S3Exception;
import dev.idem.store.s3.internal.client.WriteResult;
import java.io.IOException;
import java.io.InputStream;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The idem store on S3 (AWS S3, MinIO, Ceph RGW, S3Proxy): create-only publish with conditional writes,
 * a compare-and-swap pointer, and the version history the divergence scan reads.
 *
 * <h2>Layout</h2>
 *
 * Under the location's prefix: published objects at their keys, divergence evidence under {@code
 * _idem/evidence/}, pointers under {@code _idem/pointers/}, the retirement marks gc raises under {@code
 * _idem/retired/}, operators' acknowledgements under {@code _idem/acks/}, writers' advisory claims under
 * {@code _idem/claims/} (see {@link KeyLayout}).
 *
 * <h2>Publish protocol ({@link #putIfAbsent})</h2>
 *
 * How the payload is written is decided once, before it is hashed ({@link UploadPlan}, from its size,
 * the endpoint, the options and the server's {@link ProbeAnswers}); everything below follows that plan,
 * the divergence evidence included.
 *
 * <ol>
 *   <li>At or above {@link S3StoreOptions#headFirstThreshold()} (8 MiB by default): HEAD the key first.
 *       When it holds an object, decide as after a 412 (below) and send no payload byte; when it does
 *       not, go on (a publisher racing in between is still refused by the condition).
 *   <li>Upload with {@code If-None-Match: *} ({@link CreateOnlyUpload}: one PUT, or a multipart upload
 *       with fixed part size above the threshold, its parts sent {@link
 *       S3StoreOptions#uploadParallelism()} at a time; the body authenticated as the plan's table says),
 *       tagged with {@code idem-sha256}, {@code idem-writer},
 *       {@code idem-published} and a random {@code idem-attempt}. Success: CREATED, unless the write
 *       created a version in a versioned bucket and another version sits under it in the key's life
 *       (below).
 *   <li>412: the key holds something. HEAD it. If its {@code idem-attempt} is this call's, an earlier
 *       attempt of this very call landed and only its reply was lost: CREATED. Otherwise compare its
 *       {@code idem-sha256} (computed with a GET for objects idem did not write) with the payload's:
 *       equal is IDENTICAL, different is DIVERGENT. A refused multipart upload is aborted only then, and
 *       the key is HEADed once more: a server that deletes the object at a key when an upload of the key
 *       is aborted (Adobe S3Mock) has removed a published object, and the publish fails saying so.
 *   <li>DIVERGENT, the fact before the bytes (P8, decided by {@link PublishDecision}): first the
 *       divergence marker {@code _idem/evidence/KEY!SHA256.ATTEMPT}, an empty create-only object
 *       carrying the same metadata, the attempt's size ({@code idem-size}) and the stored object's
 *       SHA-256 ({@code idem-stored-sha256}); then, unless evidence bytes are off, the attempt's bytes
 *       at {@code _idem/evidence/KEY!SHA256}, create-only (a single PUT or a multipart upload, as
 *       above), with the same metadata. The stored object is never touched (P2).
 * </ol>
 *
 * <p>One create per publish (P7): an object this publish met at the key (a 412, or the HEAD before a
 * large upload) that is gone when read is not taken for a freed key. The publish creates again only
 * where the pipeline's retirement mark covers the key's window (gc may have removed it; at most
 * {@value #MAX_REPUBLISH} rounds in all); anywhere else, and for keys outside idem's layout, which have
 * no mark, it fails with an {@link IOException} naming what happened.
 *
 * <p>A create landed over an earlier version: some servers let racing {@code If-None-Match: *} writes
 * all succeed and keep each as a version (moto: completions nearly always, PUTs of a few MiB often). When
 * the write's reply names the version it created (or, where it names none or a repeat found the upload
 * gone, a HEAD shows this call's attempt current with its version), the key's life is
 * listed ({@link KeyLife}: one
 * ListObjectVersions page when this call's version is alone in it) after every multipart completion, and
 * after a single PUT too where the store's marker records that the server let two racing creates succeed
 * ({@link UploadPlan#checksVersions}); none on an unversioned bucket, whose replies name no version (a server
 * seen to let racing creates succeed is refused there by its probe, and a publish whose reply names no
 * version on it fails). Another version in the life is judged by which versions stay there around a HEAD
 * of the key, not by the listing's order, which moto and S3Proxy do not keep in the order writes landed
 * ({@link KeyLife#settle}). A version there before this call's means it lost: its own version is deleted,
 * so the first is current again, and the publish is decided against the version the life comes down to,
 * as after a 412. Exactly one of N concurrent publishers gets CREATED because S3 applies {@code
 * If-None-Match: *} atomically, and where a server does not, because the later versions give way (P3; a
 * loser stopped between its write and that delete leaves its version current, and the scan reports two
 * contents in one life). Single PUTs on a server whose probe saw no race won
 * twice are not checked: a race not seen is no proof, but checking every publish on every server would
 * cost a listing each where S3's condition is atomic.
 *
 * <h2>Reads</h2>
 *
 * {@link #exists} answers from a bounded cache of keys this process saw exist ({@link KnownKeys}:
 * published objects only go away by retention, through {@link #delete}, which evicts them), else HEADs.
 * {@link #stat} HEADs; for an object idem did not write it GETs the whole object to hash it, so stat
 * on foreign objects costs a download. {@link #open} streams a GET.
 *
 * <h2>Pointers</h2>
 *
 * {@link PointerMode#CAS} ({@link CasPointers}) or {@link PointerMode#LOG} ({@link LogPointers}), per
 * {@link S3StoreOptions#pointerMode()}, or, when the options chose none, per the store marker ({@link
 * #followPointerMode}). The store only swaps tokens atomically; ordering is core's.
 *
 * <h2>Failure states</h2>
 *
 * Every write is one atomic S3 operation (PutObject, CompleteMultipartUpload), so a failure at any point
 * leaves each key either as it was or holding a complete object (P1). An {@link IOException} from
 * {@link #putIfAbsent} leaves the key holding nothing or this call's complete object (on a server that
 * applied this call's write over an earlier version and the check or the delete of its own version
 * failed, that object may be current over the first; the scan then finds two contents in one life); a
 * retry then returns CREATED (it recognises its own object only within one call, so across calls IDENTICAL). Once
 * a call knows the key holds other bytes, a failure to record it is not thrown: a marker that cannot be
 * written (after the client's retries: 503 SlowDown, AccessDenied on {@code _idem/evidence/}, a
 * deadline) ends DIVERGENT {@link DivergenceRecord#NOT_RECORDED}, bytes that cannot be kept after the
 * marker DIVERGENT {@link DivergenceRecord#BYTES_NOT_KEPT}, each with the failure; a process killed
 * while keeping the bytes has written the marker. A retry reports DIVERGENT again and keeps the bytes
 * then (their key is a function of the bytes, so nothing is kept twice). A key whose marker would not
 * fit in an S3 key is refused before anything is written ({@link KeyLayout#requirePublishableKey}). A
 * multipart upload is aborted on failure, or swept later if even that fails. Errors carry the endpoint,
 * bucket and key, never credentials.
 *
 * <p>Thread-safe. {@link #close()} stops the background threads used for listing read-ahead,
 * parallel HEADs and parallel parts; the HTTP client has no resources that need closing on Java 17.
 *
 * <p>It has every optional capability: {@link PublishHistory}, {@link RetirementMarks}, {@link
 * LeftoverSweep} and {@link Claims}, whose ages are judged by the server's clock ({@link ClaimObjects}).
 */
public final class S3ObjectStore implements ObjectStore, PublishHistory, RetirementMarks, LeftoverSweep, Claims {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int MAX_REPUBLISH = 3;
  /** How many times a racing loser reads the first version of the key's life before giving up ({@link #giveWayToFirst}). */
  private static final int FIRST_READS = 4;

  private final S3Client client;
  private final S3Location location;
  private final S3StoreOptions options;
  private final KeyLayout layout;
  private final CreateOnlyUpload uploader;
  /** The pointer protocol of the mode in use: the options', or the marker's ({@link #followPointerMode}). */
  private volatile PointerProtocol pointers;
  private volatile PointerMode pointerMode;
  private final HistoryWalk walk;
  private final Sweep sweep;
  private final RetirementObjects retirements;
  private final AcknowledgementObjects acks;
  private final ClaimObjects claimObjects;
  private final ExecutorService executor;
  private final KnownKeys knownKeys;
  private final PublishDecision decision;
  private final ProbeAnswers answers;

  private S3ObjectStore(S3Client client, S3Location location, S3StoreOptions options) {
    this.client = Objects.requireNonNull(client, "client");
    this.location = Objects.requireNonNull(location, "location");
    this.options = Objects.requireNonNull(options, "options");
    this.layout = new KeyLayout(location.prefix());
    this.executor = Executors.newCachedThreadPool(daemonThreads("idem-s3-" + location.bucket()));
    this.answers = ProbeAnswers.NONE;
    this.uploader = new CreateOnlyUpload(client, location.bucket(), executor);
    this.pointerMode = options.pointerMode();
    this.pointers = protocol(pointerMode);
    this.walk = new HistoryWalk(client, location.bucket(), layout, options.pageSize(), options.historyParallelism(),
        executor);
    this.retirements = new RetirementObjects(client, location.bucket(), layout, options.pageSize());
    this.acks = new AcknowledgementObjects(client, location.bucket(), layout, options.pageSize());
    this.claimObjects = new ClaimObjects(client, location.bucket(), layout, options.pageSize(), options.clock());
    this.sweep = new Sweep(client, location.bucket(), layout, options.pageSize(), options.logEntriesKept());
    this.knownKeys = new KnownKeys(options.knownKeysCacheSize());
    this.decision = options.keepEvidenceBytes() ? PublishDecision.keepingBytes() : PublishDecision.markerOnly();
  }

  private PointerProtocol protocol(PointerMode mode) {
    return mode == PointerMode.CAS
        ? new CasPointers(client, location.bucket(), layout)
        : new LogPointers(client, location.bucket(), layout, options.pageSize());
  }

  /** The pointer mode in use: the options' until {@link #followPointerMode} takes the marker's. */
  public PointerMode pointerMode() {
    return pointerMode;
  }

  /**
   * Uses {@code mode} for the pointer from now on: the store marker's, when the options chose none
   * ({@link S3StoreOptions#pointerModeChosen}). Called by the prover before the store's first pointer
   * read or write, never between them.
   */
  void followPointerMode(PointerMode mode) {
    if (mode != pointerMode) {
      pointers = protocol(mode);
      pointerMode = mode;
    }
  }

  /** {@code base} writing as {@code answers} say: everything shared but the answers. */
  private S3ObjectStore(S3ObjectStore base, ProbeAnswers answers) {
    this.client = base.client;
    this.location = base.location;
    this.options = base.options;
    this.layout = base.layout;
    this.executor = base.executor;
    this.answers = Objects.requireNonNull(answers, "answers");
    this.uploader = base.uploader;
    this.pointerMode = base.pointerMode;
    this.pointers = base.pointers;
    this.walk = base.walk;
    this.retirements = base.retirements;
    this.sweep = base.sweep;
    this.knownKeys = base.knownKeys;
    this.decision = base.decision;
    this.acks = base.acks;
    this.claimObjects = base.claimObjects;
  }

  /**
   * A store at {@code location} using {@code client} (which must address the same endpoint and region):
   * for tests, which give the client their own retries, clock or HTTP client. The options' timeouts and
   * deadline are the client's business here and are not read.
   */
  static S3ObjectStore open(S3Client client, S3Location location, S3StoreOptions options) {
    return new S3ObjectStore(client, location, options);
  }

  /**
   * A store at {@code location} whose client signs with {@code credentials} and waits as {@code options}
   * say (connect and request timeouts, an overall deadline). Opening sends no request and creates
   * nothing; prove the store ({@link S3StoreProver}) before its first write.
   */
  public static S3ObjectStore open(S3Location location, CredentialsProvider credentials, S3StoreOptions options) {
    return openWith(clientFor(location, credentials), location, options);
  }

  /**
   * As {@link #open(S3Location, CredentialsProvider, S3StoreOptions)}, the store owning {@code
   * credentials}: closing the store closes them (for {@link CredentialsProvider#standard}, releases the
   * HTTP client the chain made for STS, the container endpoint or IMDS). For a provider made for this
   * store alone, as a command-line process makes it.
   */
  public static S3ObjectStore openOwningCredentials(S3Location location, CredentialsProvider credentials,
      S3StoreOptions options) {
    return openWith(clientFor(location, credentials).closesCredentials(), location, options);
  }

  private static S3ObjectStore openWith(S3Client.Builder client, S3Location location, S3StoreOptions options) {
    options.connectTimeout().ifPresent(client::connectTimeout);
    options.requestTimeout().ifPresent(client::requestTimeout);
    options.deadline().ifPresent(client::deadline);
    return new S3ObjectStore(client.build(), location, options);
  }

  /** A client builder for {@code location}'s endpoint, region and addressing style. */
  static S3Client.Builder clientFor(S3Location location, CredentialsProvider credentials) {
    return S3Client.builder(location.endpoint(), location.region(), credentials).pathStyle(location.pathStyle());
  }

  /**
   * Whether {@code t} (one link of a cause chain) says the credentials are missing, broken or refused:
   * a {@link CredentialsException}, or a server's 403 or credential error code. Lets a caller map
   * authentication failures to one outcome without depending on the client's exception types.
   */
  public static boolean isAuthFailure(Throwable t) {
    return t instanceof CredentialsException
        || t instanceof S3Exception s3 && (s3.isCredentialsRejected() || s3.status() == 403);
  }

  public S3Location location() {
    return location;
  }

  public S3StoreOptions options() {
    return options;
  }

  /** The client, for {@link S3StoreProver}, which probes through the same endpoint and credentials. */
  S3Client client() {
    return client;
  }

  /** The store's threads, for {@link S3StoreProver}'s racing writes. */
  ExecutorService executor() {
    return executor;
  }

  /**
   * This store writing as the server's recorded answers say ({@link S3StoreProver#adopt}, from the marker
   * its writer trusts): a view sharing this store's client, threads and caches, so closing either closes
   * both. A store opened directly writes as {@link ProbeAnswers#NONE} says.
   */
  S3ObjectStore configuredBy(ProbeAnswers answers) {
    return new S3ObjectStore(this, answers);
  }

  @Override
  public String describe() {
    return location.isAws() ? location.toString() : location + " at " + location.endpoint();
  }

  /**
   * The bucket must exist: HeadBucket, unless a reply from it already showed it does (the store marker
   * read before the first write, or a HEAD that found an object). S3 decides each PUT by policy, so only a
   * PUT could prove one is allowed; the credentials are already tested by the HEAD of the skip check that
   * comes first.
   *
   * @throws S3Exception {@code NoSuchBucket} when the bucket is missing, or what the HEAD met
   */
  @Override
  public void checkWritable() throws IOException {
    if (!client.bucketKnown(location.bucket()) && !client.bucketExists(location.bucket())) {
      throw new S3Exception(404, "NoSuchBucket", null, null, "HEAD", client.endpoint(), location.bucket());
    }
  }

  // ---------------------------------------------------------------- reads

  @Override
  public boolean exists(String key) throws IOException {
    Names.requireSafeKey(key);
    if (knownKeys.contains(key)) {
      return true;
    }
    long seen = knownKeys.stamp();
    boolean found = client.head(location.bucket(), layout.object(key), null).isPresent();
    if (found) {
      knownKeys.remember(key, seen);
    }
    return found;
  }

  /** One HEAD: the {@code idem-schema} metadata the publish wrote (a listing does not carry it). */
  @Override
  public Optional<Integer> schemaOf(String key) throws IOException {
    Names.requireSafeKey(key);
    return client.head(location.bucket(), layout.object(key), null).map(IdemMetadata::schema);
  }

  /**
   * HEAD, and the SHA-256 from idem's metadata; for an object idem did not write, a GET of the whole
   * object to hash it.
   */
  @Override
  public Optional<ObjectInfo> stat(String key) throws IOException {
    Names.requireSafeKey(key);
    long seen = knownKeys.stamp();
    Optional<ObjectHead> head = client.head(location.bucket(), layout.object(key), null);
    if (head.isEmpty()) {
      knownKeys.forget(key);
      return Optional.empty();
    }
    knownKeys.remember(key, seen);
    String sha = IdemMetadata.sha256(head.get());
    if (sha == null) {
      Optional<ObjectInfo> hashed = hashByDownload(key, null);
      if (hashed.isEmpty()) {
        knownKeys.forget(key);
      }
      return hashed;
    }
    return Optional.of(IdemMetadata.info(key, sha, head.get()));
  }

  @Override
  public Optional<InputStream> open(String key) throws IOException {
    Names.requireSafeKey(key);
    return client.get(location.bucket(), layout.object(key)).map(ObjectStream::body);
  }

  // ---------------------------------------------------------------- publish

  /** Publishes as the class comment says; the key, which holds an object whatever the outcome, is remembered. */
  @Override
  public PutOutcome putIfAbsent(String key, Payload payload, String writerId) throws IOException {
    long seen = knownKeys.stamp();
    PutOutcome outcome = publish(key, payload, writerId);
    knownKeys.remember(key, seen);
    return outcome;
  }

  private PutOutcome publish(String key, Payload payload, String writerId) throws IOException {
    layout.requirePublishableKey(key);
    Names.requireWriterId(writerId);
    Objects.requireNonNull(payload, "payload");
    long size = payload.size();
    // How this payload is written, decided once: the digest carries it to the upload and to the evidence.
    UploadPlan plan = UploadPlan.choose(size, payload.readsRanges(), client.endpoint(), answers, options);
    // The one SHA-256 of the payload, with the checksums its upload checks the bytes sent against.
    payload.progress().phase(WriteProgress.Phase.HASHING);
    ContentChecksums.Digest digest = ContentChecksums.of(payload, plan, executor);
    String sha = digest.sha256();
    Instant published = options.clock().instant();
    String attempt = randomId();
    Map<String, String> meta = IdemMetadata.of(sha, writerId, published, attempt, payload.schema());
    String objectKey = layout.object(key);
    for (int round = 1; round <= MAX_REPUBLISH; round++) {
      if (plan.headFirst()) {
        // A large payload: learn whether the key is taken before sending a byte. A key taken between
        // this HEAD and the upload is still refused by If-None-Match and decided below.
        Optional<ObjectHead> existing = client.head(location.bucket(), objectKey, null);
        if (existing.isPresent()) {
          payload.progress().phase(WriteProgress.Phase.SKIPPING);
          Optional<PutOutcome> decided = decide(key, existing.get(), null, payload, digest, meta, attempt);
          if (decided.isPresent()) {
            return decided.get();
          }
          requireRetired(key, "the key held an object that was gone when read to hash it");
          continue;
        }
      }
      try (CreateOnlyUpload.Sent sent = uploader.send(objectKey, payload, digest, meta)) {
        if (sent.outcome() == CreateOnlyUpload.Outcome.CREATED) {
          PutOutcome created = new PutOutcome(PutStatus.CREATED, new ObjectInfo(key, sha, size, writerId, published),
              sha, size, null);
          return ownWrite(key, sent.versionId(), sent.retried(), created, payload, digest, meta, attempt);
        }
        // Refused: the key holds an object (its bytes were sent all the same).
        payload.progress().phase(WriteProgress.Phase.SKIPPING);
        Optional<ObjectHead> head = client.head(location.bucket(), objectKey, null);
        if (sent.retried() && head.isPresent() && !attempt.equals(head.get().meta(IdemMetadata.ATTEMPT))) {
          // A completion sent again finds its upload gone: an earlier send was applied, and another
          // write may have landed on top of it since. This call's version is then under the current one.
          String own = ownVersionInLife(objectKey, attempt);
          if (own != null) {
            sent.keep();
            PutOutcome created = new PutOutcome(PutStatus.CREATED, new ObjectInfo(key, sha, size, writerId,
                published), sha, size, null);
            return ownWrite(key, own, false, created, payload, digest, meta, attempt);
          }
        }
        Optional<PutOutcome> decided = head.isEmpty() ? Optional.empty()
            : decide(key, head.get(), null, payload, digest, meta, attempt);
        if (decided.isPresent()) {
          if (decided.get().status() == PutStatus.CREATED) {
            // This call's own object, written by an attempt whose reply was lost: it may still have
            // landed over another write's version, exactly as a completion whose reply arrived.
            sent.keep();
            return ownWrite(key, head.get().versionId(), false, decided.get(), payload, digest, meta, attempt);
          } else if (sent.abort()) {
            requireKeptAfterAbort(key, objectKey);
          }
          return decided.get();
        }
      }
      requireRetired(key, "the server refused this publish's create-only write (the key held an object), then"
          + " the object was gone");
    }
    throw new IOException("publish of " + key + " to " + describe() + " met an object that was gone when read "
        + MAX_REPUBLISH + " times in a row in a window the retirement mark covers (deleted concurrently?); nothing"
        + " was published by this call");
  }

  /**
   * The version this call's write created, learnt from the key's current version when the write's reply
   * named none because the write was sent again (S3Proxy answers a completion repeated after its first
   * reply was lost without a version): that version, when it carries this call's attempt; else null (an
   * unversioned bucket, or another write on top, which gives way to this one).
   */
  private String ownCurrentVersion(String objectKey, String attempt) throws IOException {
    return client.head(location.bucket(), objectKey, null).filter(h -> attempt.equals(h.meta(IdemMetadata.ATTEMPT)))
        .map(ObjectHead::versionId).filter(v -> !v.equals("null")).orElse(null);
  }

  /**
   * The version of the key's current life that carries this call's attempt, found by a HEAD of each
   * version, newest first (a LIST and one HEAD per version above it): where a write sent again had its
   * first send applied and another write landed on top. Null when none carries it.
   */
  private String ownVersionInLife(String objectKey, String attempt) throws IOException {
    for (String v : KeyLife.life(client, location.bucket(), objectKey, null, options.pageSize())) {
      Optional<ObjectHead> h = client.head(location.bucket(), objectKey, v);
      if (h.isPresent() && attempt.equals(h.get().meta(IdemMetadata.ATTEMPT))) {
        return v;
      }
    }
    return null;
  }

  /**
   * This call's create succeeded on a server whose marker records that it applied racing creates, and the
   * reply named no version, so nothing can show whether it landed on another publisher's object (the
   * bucket's versioning was suspended after the store was proven, say).
   */
  private IOException unversionedOnRacingServer(String key) {
    knownKeys.forget(key);
    return new IOException("publish of " + key + " to " + describe() + ": the server applied this publish's create-only"
        + " write, and its reply named no version; the store's marker records that this server lets racing"
        + " create-only writes both succeed, which only versions let a publish see, so whether this write replaced"
        + " another publish's object cannot be told (is the bucket's versioning suspended? 'idem doctor' probes it)");
  }

  /**
   * This call's write created {@code versionId} ({@code null} when the reply named none): {@code created},
   * unless the write may have landed on another ({@link UploadPlan#checksVersions}) and a version under its own
   * shows it did (then decided as {@link #firstInLife} says). A write sent more than once whose reply
   * named no version learns it from the key ({@link #ownCurrentVersion}).
   */
  private PutOutcome ownWrite(String key, String versionId, boolean retried, PutOutcome created, Payload payload,
      ContentChecksums.Digest digest, Map<String, String> meta, String attempt) throws IOException {
    UploadPlan plan = digest.plan();
    if (!plan.checksVersions()) {
      return created;
    }
    // An unversioned bucket's replies may name the literal "null" (moto): no version.
    String version = "null".equals(versionId) ? null : versionId;
    if (version == null) {
      // The reply named none: a repeated completion's reply may not (S3Proxy), nor a reply a gateway
      // rewrote; the key's HEAD shows this call's version where it is current, the key's life where
      // another write landed on top of it.
      version = ownCurrentVersion(layout.object(key), attempt);
      if (version == null && retried) {
        version = ownVersionInLife(layout.object(key), attempt);
      }
    }
    if (version == null) {
      if (plan.requiresVersion() && !retried) {
        throw unversionedOnRacingServer(key);
      }
      return created;
    }
    return firstInLife(key, version, payload, digest, meta, attempt).orElse(created);
  }

  /**
   * After this call's create-only write created {@code versionId}: whether another write's version was in
   * the key's life first, as on a server that applies racing {@code If-None-Match} writes and keeps each
   * (moto), decided by {@link KeyLife#settle} without trusting the listing's order. Then this call lost: its
   * own version is deleted, so that the first one is current again, and the publish is decided against the
   * version the life comes down to ({@link #giveWay}).
   *
   * @return empty when this call's version is the first of its life (CREATED)
   */
  private Optional<PutOutcome> firstInLife(String key, String versionId, Payload payload,
      ContentChecksums.Digest digest, Map<String, String> meta, String attempt) throws IOException {
    String objectKey = layout.object(key);
    KeyLife.Settled settled = KeyLife.settle(client, location.bucket(), objectKey, versionId, attempt,
        options.pageSize());
    if (settled.first()) {
      return Optional.empty();
    }
    try {
      client.deleteVersion(location.bucket(), objectKey, settled.own());
    } catch (IOException e) {
      throw new IOException("publish of " + key + " to " + describe() + ": the server applied this publish's"
          + " create-only write although the key held an earlier version (it does not apply If-None-Match"
          + " atomically), and removing this publish's version " + settled.own() + " failed, so its bytes may stay"
          + " current until that version is deleted: " + e.getMessage(), e);
    }
    return Optional.of(settled.byListingOrder() ? giveWayToFirst(key, settled.own(), payload, digest, meta, attempt)
        : giveWay(key, settled.own(), payload, digest, meta, attempt));
  }

  /**
   * After this call lost and removed its version {@code removed}: the publish decided against the version
   * the key's life comes down to once every loser has removed its own, read when the life lists exactly
   * one. Where it does not within {@link KeyLife#SETTLE_ROUNDS} looks (a racing writer stopped before
   * removing its version), against the first version by the listing's order ({@link #giveWayToFirst}),
   * as at once when the listing's order already decided that this call lost.
   */
  private PutOutcome giveWay(String key, String removed, Payload payload, ContentChecksums.Digest digest,
      Map<String, String> meta, String attempt) throws IOException {
    String objectKey = layout.object(key);
    for (int round = 1; round <= KeyLife.SETTLE_ROUNDS; round++) {
      List<String> life = KeyLife.life(client, location.bucket(), objectKey, null, options.pageSize());
      if (life.size() == 1) {
        Optional<ObjectHead> head = client.head(location.bucket(), objectKey, life.get(0));
        Optional<PutOutcome> decided = head.isEmpty() ? Optional.empty()
            : decide(key, head.get(), life.get(0), payload, digest, meta, attempt);
        if (decided.isPresent()) {
          return decided.get();
        }
      }
      if (round < KeyLife.SETTLE_ROUNDS) {
        KeyLife.pause(round);
      }
    }
    return giveWayToFirst(key, removed, payload, digest, meta, attempt);
  }

  /**
   * After this call removed its version {@code removed} and the key's life did not come down to one
   * version: the publish decided against the first version of the life by the listing's order. Where
   * several writes race, a listing may name as first a version that another loser removes before it is
   * read, or miss an older write not yet listed, or (S3Proxy, while it makes an older version current
   * again) list the key without any version for a moment; so the first is read, then the life listed
   * again, and the decision is made only on a version both show, at most {@value #FIRST_READS} times.
   */
  private PutOutcome giveWayToFirst(String key, String removed, Payload payload, ContentChecksums.Digest digest,
      Map<String, String> meta, String attempt) throws IOException {
    String objectKey = layout.object(key);
    Optional<String> listed = KeyLife.firstOfLife(client, location.bucket(), objectKey, options.pageSize());
    for (int read = 1; ; read++) {
      if (listed.isPresent()) {
        String first = listed.get();
        Optional<ObjectHead> head = client.head(location.bucket(), objectKey, first);
        listed = KeyLife.firstOfLife(client, location.bucket(), objectKey, options.pageSize());
        if (head.isPresent() && listed.equals(Optional.of(first))) {
          Optional<PutOutcome> decided = decide(key, head.get(), first, payload, digest, meta, attempt);
          if (decided.isPresent()) {
            return decided.get();
          }
        }
      }
      if (read == FIRST_READS) {
        throw new IOException("publish of " + key + " to " + describe() + ": the server applied this publish's"
            + " create-only write although the key held an earlier version; the first version of the key's life was"
            + (listed.isEmpty() ? " gone when read, and the key lists no version now"
                : " gone or replaced when read " + FIRST_READS + " times in a row")
            + "; this publish's version " + removed + " was removed and nothing was published by this call");
      }
      KeyLife.pause(read);
      if (listed.isEmpty()) {
        listed = KeyLife.firstOfLife(client, location.bucket(), objectKey, options.pageSize());
      }
    }
  }

  /**
   * P7: the key held an object this publish met (its create-only write was refused, or a HEAD found it),
   * and the object is gone. Another create is allowed only where the pipeline's retirement mark covers
   * the key's window, i.e. gc may have removed it; otherwise the server removed it on its own (some
   * delete the object at a key when an upload of the key is aborted) or someone deleted it, and a second
   * create could be a second CREATED over a publish that already reported one.
   *
   * @throws IOException unless the mark covers the key's window (a key not in idem's layout has no mark)
   */
  private void requireRetired(String key, String what) throws IOException {
    knownKeys.forget(key);
    if (OutputKey.looksLikeKey(key)) {
      OutputKey k = OutputKey.parse(key);
      Optional<Retirement> mark = readRetirement(k.pipeline());
      if (mark.isPresent() && mark.get().covers(k.windowStartEpochSecond())) {
        return;
      }
    }
    throw new IOException("publish of " + key + " to " + describe() + ": " + what + "; no retirement mark"
        + " covers its window, so it was not freed by gc (the server may delete the object at a key when an"
        + " upload of it is aborted, or someone deleted it); nothing was published by this call, publishing"
        + " again decides afresh");
  }

  /**
   * After aborting the upload a refused completion left open: the object this publish was decided against
   * must still be there. A server that deletes the object at a key when an upload of the key is aborted
   * (Adobe S3Mock) has just removed a published object, which no retry of this call can put back.
   */
  private void requireKeptAfterAbort(String key, String objectKey) throws IOException {
    if (client.head(location.bucket(), objectKey, null).isEmpty()) {
      knownKeys.forget(key);
      throw new IOException("publish of " + key + " to " + describe() + ": the server deleted the object at the key"
          + " when this publish aborted its refused multipart upload (it was there when the publish was decided);"
          + " this server does not keep published objects, see 'idem doctor'; nothing was published by this call");
    }
  }

  /**
   * What a publish is when the key holds {@code head}: this call's own object (an attempt whose reply
   * was lost), IDENTICAL or DIVERGENT (keeping evidence). The one decision for the refused conditional
   * write, the HEAD before a large upload and a completion that landed over an earlier version.
   *
   * @param versionId the version {@code head} describes, or {@code null} for the current one
   * @return empty when the object vanished before it could be hashed
   */
  private Optional<PutOutcome> decide(String key, ObjectHead head, String versionId, Payload payload,
      ContentChecksums.Digest digest, Map<String, String> meta, String attempt) throws IOException {
    String sha = digest.sha256();
    long size = digest.size();
    if (attempt.equals(head.meta(IdemMetadata.ATTEMPT))) {
      return Optional.of(new PutOutcome(PutStatus.CREATED, IdemMetadata.info(key, sha, head), sha, size, null));
    }
    String storedSha = IdemMetadata.sha256(head);
    ObjectInfo stored;
    if (storedSha != null) {
      stored = IdemMetadata.info(key, storedSha, head);
    } else {
      Optional<ObjectInfo> hashed = hashByDownload(key, versionId);
      if (hashed.isEmpty()) {
        knownKeys.forget(key);
        return Optional.empty();
      }
      stored = hashed.get();
    }
    return Optional.of(decision.decide(stored, sha, size, new Evidence(key, payload, digest, meta, attempt)));
  }

  /**
   * A publish's own steps when its key holds other bytes ({@link PublishDecision}): the marker, then the
   * bytes, both create-only, under {@code _idem/evidence/}; an identical attempt records nothing (the
   * object's metadata records its publish). The marker's key holds this call's attempt id, so a 412 on it
   * is an earlier try of this very request that landed; the bytes' key is their SHA-256, so a 412 there
   * is the same bytes kept before.
   */
  private final class Evidence implements PublishDecision.Steps {
    private final String key;
    private final Payload payload;
    private final ContentChecksums.Digest digest;
    private final Map<String, String> meta;
    private final String attempt;

    Evidence(String key, Payload payload, ContentChecksums.Digest digest, Map<String, String> meta, String attempt) {
      this.key = key;
      this.payload = payload;
      this.digest = digest;
      this.meta = meta;
      this.attempt = attempt;
    }

    @Override
    public void recordIdentical(ObjectInfo stored) {}

    @Override
    public void writeMarker(ObjectInfo stored, String attemptSha256, long attemptSize) throws IOException {
      WriteResult w = client.put(location.bucket(), markerKey(), RequestBody.empty(), Condition.ifNoneMatch(),
          recorded(stored));
      if (w.status() == WriteResult.Status.NOT_FOUND) {
        throw new IOException("PUT with If-None-Match answered 404");
      }
    }

    @Override
    public String keepBytes(ObjectInfo stored, String attemptSha256) throws IOException {
      String evidenceKey = KeyLayout.evidenceKey(key, attemptSha256);
      uploader.upload(layout.object(evidenceKey), payload, digest, recorded(stored));
      return evidenceKey;
    }

    private String markerKey() {
      return layout.object(KeyLayout.divergenceMarkerKey(key, digest.sha256(), attempt));
    }

    /** The publish's metadata, with the attempt's size and the stored object's SHA-256. */
    private Map<String, String> recorded(ObjectInfo stored) {
      Map<String, String> recorded = new LinkedHashMap<>(meta);
      recorded.put(IdemMetadata.SIZE, Long.toString(digest.size()));
      recorded.put(IdemMetadata.STORED_SHA256, stored.sha256());
      return recorded;
    }

    @Override
    public String marker() {
      return "the divergence marker s3://" + location.bucket() + "/" + markerKey();
    }

    @Override
    public String bytes() {
      return "the divergent bytes at s3://" + location.bucket() + "/"
          + layout.object(KeyLayout.evidenceKey(key, digest.sha256()));
    }
  }

  /**
   * GETs and hashes an object idem did not write, or one version of it ({@code versionId}; {@code null}:
   * the current one); empty when it vanished meanwhile.
   */
  private Optional<ObjectInfo> hashByDownload(String key, String versionId) throws IOException {
    Optional<ObjectStream> got = client.get(location.bucket(), layout.object(key), versionId);
    if (got.isEmpty()) {
      return Optional.empty();
    }
    ObjectHead head = got.get().head();
    try (InputStream in = got.get().body()) {
      return Optional.of(IdemMetadata.info(key, Sha256.of(in), head));
    }
  }

  // ---------------------------------------------------------------- pointer

  @Override
  public Optional<PointerState> readPointer(String pipeline) throws IOException {
    return pointers.read(Names.requirePipeline(pipeline));
  }

  /**
   * One GET of {@code _idem/pointers/PIPELINE/latest}, whichever pointer mode the store uses: in {@code
   * cas} mode the pointer itself, in {@code log} mode the copy kept in log order for readers outside idem
   * ({@link LogPointers}), which may lag the log but only names what an entry named. It needs no store
   * marker, so a skip costs one request.
   */
  @Override
  public Optional<Pointer> peekPointer(String pipeline) throws IOException {
    return new CasPointers(client, location.bucket(), layout).peek(Names.requirePipeline(pipeline));
  }

  @Override
  public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) throws IOException {
    Names.requirePipeline(pipeline);
    if (!next.pipeline().equals(pipeline)) {
      throw new IllegalArgumentException("pointer for pipeline " + next.pipeline() + " offered to " + pipeline);
    }
    return pointers.compareAndSet(client, pipeline, expectedToken, next);
  }

  /**
   * As {@link #compareAndSetPointer(String, String, Pointer)}, with every request of the swap (the
   * conditional PUT, its retries and backoffs, the re-reads and checks after it) ending by {@code
   * maxWait} plus one request timeout. S3's 409 ConditionalRequestConflict until the deadline is BUSY;
   * a deadline that runs out on 503s or a stalled server throws {@link
   * dev.idem.core.store.DeadlineExceededException} naming the request and what it last met. The pointer
   * then holds the old or the new document, whole.
   */
  @Override
  public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next, Duration maxWait)
      throws IOException {
    Names.requirePipeline(pipeline);
    if (!next.pipeline().equals(pipeline)) {
      throw new IllegalArgumentException("pointer for pipeline " + next.pipeline() + " offered to " + pipeline);
    }
    return pointers.compareAndSet(client.within(maxWait), pipeline, expectedToken, next);
  }

  /** The pipeline's mark under {@code _idem/retired/PIPELINE/} ({@link RetirementObjects}): a LIST and a GET. */
  @Override
  public Optional<Retirement> readRetirement(String pipeline) throws IOException {
    return retirements.read(Names.requirePipeline(pipeline));
  }

  /** Raises the mark forward only with create-only writes ({@link RetirementObjects}). */
  @Override
  public Retirement raiseRetirement(Retirement proposed) throws IOException {
    return retirements.raise(proposed);
  }

  /** One create-only object under {@code _idem/acks/} ({@link AcknowledgementObjects}). */
  @Override
  public void acknowledge(Acknowledgement ack) throws IOException {
    acks.write(ack);
  }

  /** A LIST under {@code _idem/acks/PREFIX} and a GET per acknowledgement ({@link AcknowledgementObjects}). */
  @Override
  public List<Acknowledgement> acknowledgements(String prefix) throws IOException {
    return acks.read(Objects.requireNonNull(prefix, "prefix"));
  }

  /** Two delimiter listings: the prefix's directories and {@code _idem/pointers/}'s ({@link AcknowledgementObjects}). */
  @Override
  public SortedSet<String> pipelines() throws IOException {
    return acks.pipelines();
  }

  // ---------------------------------------------------------------- claims (advice only: ClaimObjects)

  /**
   * Claims {@code key} unless another writer's claim there is younger than {@code ttl} by the server's
   * clock: 2 LIST and a PUT when held ({@link ClaimObjects}).
   */
  @Override
  public Claims.Claimed claim(String key, String writer, Duration expected, Duration ttl) throws IOException {
    return claimObjects.claim(key, writer, expected, ttl);
  }

  /** Writes the claim as a new entry, then deletes the old one: a PUT and a DELETE. */
  @Override
  public Claim renewClaim(Claim held) throws IOException {
    return claimObjects.renew(held);
  }

  /** A HEAD, and a DELETE when the entry is there. */
  @Override
  public boolean releaseClaim(Claim claim) throws IOException {
    return claimObjects.release(claim);
  }

  /**
   * The key's freshest claim, aged by the listing reply's {@code Date} against the entry's {@code
   * LastModified}: a LIST and a GET, none when the document was read before ({@link ClaimObjects}).
   */
  @Override
  public Optional<Claim> readClaim(String key) throws IOException {
    return claimObjects.read(key);
  }

  /** A LIST per page under {@code _idem/claims/PREFIX} and a GET per entry not read before. */
  @Override
  public List<Claim> listClaims(String prefix) throws IOException {
    return claimObjects.list(prefix);
  }

  // ---------------------------------------------------------------- history, listing, retention

  @Override
  public boolean history(String prefix, HistoryVisitor visitor) throws IOException {
    return walk.history(HistoryQuery.under(Objects.requireNonNull(prefix, "prefix")), visitor);
  }

  /** Pushes {@code query} into the listings; see {@link HistoryWalk#history}. */
  @Override
  public boolean history(HistoryQuery query, HistoryVisitor visitor) throws IOException {
    return walk.history(Objects.requireNonNull(query, "query"), visitor);
  }

  /**
   * The listing requests, entries listed, HEADs and GETs this store has made so far (retries counted
   * once): what a scan cost, for its summary and metrics, and what the scan's cost model is checked
   * against.
   */
  public RequestCounts requestCounts() {
    return client.counts().snapshot();
  }

  @Override
  public boolean list(String prefix, ListingVisitor visitor) throws IOException {
    return walk.list(Objects.requireNonNull(prefix, "prefix"), visitor);
  }

  /** HEAD, then DELETE (in a versioned bucket the DELETE adds a delete marker; history keeps the versions). */
  @Override
  public boolean delete(String key) throws IOException {
    Names.requireSafeKey(key);
    // Forget the key before and after: an exists() racing with this delete must not re-cache it for good.
    knownKeys.forget(key);
    boolean was = client.head(location.bucket(), layout.object(key), null).isPresent();
    if (was) {
      client.delete(location.bucket(), layout.object(key));
    }
    knownKeys.forget(key);
    return was;
  }

  /**
   * Deletes the key's evidence objects ({@code _idem/evidence/KEY!SHA256}, its records on this store:
   * the object's own metadata records its publish). Listed with ListObjectsV2 under {@code KEY!}, then
   * deleted one by one; in a versioned bucket the versions of the object stay (as do those of the
   * evidence, behind delete markers) and the scan reads them: remove them with a lifecycle rule on
   * noncurrent versions. A listing whose server hands out a continuation token twice fails before
   * anything is deleted ({@link ListingGuard}).
   */
  @Override
  public int deleteRecords(String key) throws IOException {
    Names.requireSafeKey(key);
    String listPrefix = layout.evidencePrefix() + key + "!";
    List<String> found = new ArrayList<>();
    String token = null;
    ListingGuard<String> guard = new ListingGuard<>("ListObjectsV2 of s3://" + location.bucket() + "/" + listPrefix);
    do {
      ObjectsPage page = client.listObjects(location.bucket(), listPrefix, null, token, options.pageSize());
      for (ObjectSummary o : page.objects()) {
        KeyLayout.Evidence e = layout.parseEvidence(o.key());
        if (e != null && e.key().equals(key)) {
          found.add(o.key());
        }
      }
      token = guard.next(page.nextContinuationToken());
    } while (token != null);
    for (String objectKey : found) {
      client.delete(location.bucket(), objectKey);
    }
    return found.size();
  }

  @Override
  public List<String> sweep(Duration grace, boolean dryRun) throws IOException {
    if (grace == null || grace.isNegative()) {
      throw new IllegalArgumentException("grace must be >= 0, was " + grace);
    }
    return sweep.run(options.clock().instant().minus(grace), dryRun);
  }

  /**
   * Stops the store's part threads and releases the HTTP client it made ({@link S3Client#close}), so a
   * process done with it ends at once; a use afterwards fails, saying the client was released. Every
   * view of this store ({@link #configuredBy}) is closed with it.
   */
  @Override
  public void close() {
    executor.shutdownNow();
    client.close();
  }

  @Override
  public String toString() {
    return "S3ObjectStore[" + describe() + ", " + pointerMode + "]";
  }

  private static String randomId() {
    byte[] b = new byte[16];
    RANDOM.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  private static ThreadFactory daemonThreads(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
