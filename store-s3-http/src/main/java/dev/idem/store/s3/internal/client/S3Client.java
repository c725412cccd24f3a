package dev.idem.store.s3.internal.client;

import static dev.idem.store.s3.internal.client.S3Addressing.resource;

import dev.idem.core.store.Deadline;
import dev.idem.core.store.DeadlineExceededException;
import dev.idem.store.s3.CredentialsProvider;
import dev.idem.store.s3.internal.auth.CredentialChain;
import dev.idem.store.s3.internal.auth.SigV4Signer;
import dev.idem.store.s3.internal.client.S3Transport.Call;
import dev.idem.store.s3.internal.client.S3Transport.Reply;
import dev.idem.store.s3.internal.http.HttpClients;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * A small S3 client over {@code java.net.http}: the dozen S3 operations idem needs, each request
 * signed with SigV4, sent over one shared HTTP/1.1 {@link HttpClient} (connections are pooled and
 * reused), with connect and request timeouts and bounded retries, all of them ending by one overall
 * deadline when the client is given one ({@link Builder#deadline}).
 *
 * <h2>Protocol of one call</h2>
 *
 * <ol>
 *   <li>Build the URI: path-style ({@code endpoint/bucket/key}) or virtual-hosted ({@code
 *       bucket.host/key}); keys are percent-encoded exactly as SigV4 canonicalizes them, so the URI
 *       sent is the URI signed.
 *   <li>Resolve credentials (per attempt, so refreshed temporary credentials are used; a refresh in
 *       progress in another thread is waited for at most the request timeout, or the time left under
 *       a deadline) and sign: the payload's SHA-256 is signed in {@code x-amz-content-sha256} (a multipart
 *       part is {@code UNSIGNED-PAYLOAD} with its CRC32C in a signed {@code x-amz-checksum-crc32c} header
 *       instead); bodies are streamed from their source on every attempt, never buffered whole ({@link RequestBody}).
 *   <li>Send. Statuses the operation expects (404 for a HEAD, 412 for a conditional write) come back
 *       as values; any other non-2xx reply is parsed into an {@link S3Exception}.
 *   <li>Retry, with full-jitter exponential backoff ({@link RetryPolicy}), on 500/502/503/504, {@code
 *       SlowDown}, {@code RequestTimeout}, {@code InternalError}, 409 {@code
 *       ConditionalRequestConflict}, and on I/O failures (refused or reset connections, timeouts). A
 *       failure reading the local body source ({@link dev.idem.core.store.Payload.ChangedWhileReadingException}
 *       among them) is never retried.
 * </ol>
 *
 * <h2>Failure states</h2>
 *
 * A retried write may have landed on an earlier attempt whose reply was lost; {@link
 * WriteResult#attempts()} tells callers so they can recognise their own write when the retry meets a
 * failed condition. A 404 without an error code (every HEAD) is checked against the bucket once, so a
 * missing bucket is reported as such instead of as a missing key. Malformed replies raise {@link
 * MalformedReplyException}. Nothing here logs, and no message carries a secret.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class S3Client {
  private static final String CHECKSUM_ALGORITHM = "x-amz-checksum-algorithm";
  /** How long {@link #close} waits for the HTTP client's thread to end (it takes a few milliseconds). */
  private static final Duration RELEASE_WAIT = Duration.ofSeconds(1);

  private final S3Addressing addressing;
  private final String region;
  private final S3Transport transport;
  private final CredentialsProvider credentials;
  private final Set<String> knownBuckets;
  private final RequestCounter counts;
  /** The HTTP client this client built for itself, which {@link #close} releases; null when given one. */
  private final HttpClient ownHttp;
  /** Whether {@link #close} closes the credentials provider as well ({@link Builder#closesCredentials}). */
  private final boolean closesCredentials;

  private S3Client(Builder b) {
    this.addressing = new S3Addressing(b.endpoint, b.pathStyle);
    this.region = b.region;
    this.credentials = b.credentials;
    this.knownBuckets = ConcurrentHashMap.newKeySet();
    this.counts = new RequestCounter();
    URI endpoint = b.endpoint;
    Duration connectTimeout = b.connectTimeout;
    // Made on the first request, so a client never used starts no thread.
    HttpClient http = b.http != null ? b.http : HttpClients.lazily(() -> HttpClients.forEndpoint(endpoint)
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(connectTimeout)
        .followRedirects(HttpClient.Redirect.NEVER)
        .build());
    this.ownHttp = b.http != null ? null : http;
    this.closesCredentials = b.closesCredentials;
    this.transport = new S3Transport(http, addressing, region, b.credentials, new SigV4Signer(b.clock), b.retry,
        b.sleeper, b.requestTimeout, b.ticker, b.deadline, counts);
  }

  private S3Client(S3Client base, S3Transport transport) {
    this.addressing = base.addressing;
    this.region = base.region;
    this.credentials = base.credentials;
    this.knownBuckets = base.knownBuckets;
    this.counts = base.counts;
    this.ownHttp = base.ownHttp;
    this.closesCredentials = base.closesCredentials;
    this.transport = transport;
  }

  /**
   * Releases the HTTP client this client built for itself (one given to its {@link Builder} is the
   * giver's): its selector thread stops, so a process done with its stores ends without the JVM waiting
   * for that thread ({@link HttpClients#release}); and closes the credentials provider where the builder
   * said so. This client and every view of it send nothing after.
   */
  public void close() {
    try {
      if (ownHttp != null) {
        HttpClients.release(ownHttp, RELEASE_WAIT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (closesCredentials) {
        credentials.close();
      }
    }
  }

  /**
   * This client with every call made through the returned view bounded by one deadline, {@code
   * maxWait} from now (B1): retries end at it (a retry whose backoff would end past it is not begun) and
   * each request's timeout and body deadline are capped at the time left before one request timeout
   * past it. So a sequence of calls that meets a server answering 503 forever, or stalling, ends within
   * {@code maxWait} plus one request timeout, with {@link DeadlineExceededException} naming the request,
   * the deadline and what the last attempt met. With {@link Duration#ZERO} each request is sent once, as long
   * as the hard end has not passed. A client with an overall {@link Builder#deadline} ends by it as well,
   * whichever comes first. Shares this client's connections and state.
   *
   * @param maxWait {@code >= 0}
   */
  public S3Client within(Duration maxWait) {
    Objects.requireNonNull(maxWait, "maxWait");
    if (maxWait.isNegative()) {
      throw new IllegalArgumentException("maxWait must be >= 0, was " + maxWait);
    }
    return new S3Client(this, transport.within(maxWait));
  }

  /** What this client (and every view of it) has asked of its server so far. */
  public RequestCounter counts() {
    return counts;
  }

  /**
   * A builder for a client of {@code endpoint} (scheme, host, optional port and base path; no query),
   * signing for {@code region}.
   */
  public static Builder builder(URI endpoint, String region, CredentialsProvider credentials) {
    return new Builder(endpoint, region, credentials);
  }

  /** Options of a client; defaults suit AWS S3. */
  public static final class Builder {
    private final URI endpoint;
    private final String region;
    private final CredentialsProvider credentials;
    private boolean pathStyle;
    private Clock clock = Clock.systemUTC();
    private RetryPolicy retry = RetryPolicy.DEFAULT;
    private Sleeper sleeper = Sleeper.SYSTEM;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration requestTimeout = Duration.ofSeconds(60);
    private HttpClient http;
    private LongSupplier ticker = System::nanoTime;
    private Deadline deadline;
    private boolean closesCredentials;

    private Builder(URI endpoint, String region, CredentialsProvider credentials) {
      this.endpoint = S3Addressing.requireEndpoint(endpoint);
      this.region = Objects.requireNonNull(region, "region");
      this.credentials = Objects.requireNonNull(credentials, "credentials");
    }

    /** Path-style addressing ({@code endpoint/bucket/key}); off means virtual-hosted. */
    public Builder pathStyle(boolean pathStyle) {
      this.pathStyle = pathStyle;
      return this;
    }

    /** The signing clock (UTC). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public Builder retry(RetryPolicy retry) {
      this.retry = Objects.requireNonNull(retry, "retry");
      return this;
    }

    /** How backoff waits; tests pass one that records instead of sleeping. */
    public Builder sleeper(Sleeper sleeper) {
      this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
      return this;
    }

    /**
     * The monotonic time, in nanoseconds as {@link System#nanoTime}, that deadlines ({@link #within})
     * are measured on; tests pass one their {@link #sleeper} advances.
     */
    public Builder ticker(LongSupplier ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /**
     * One deadline over every request this client makes (B2): a retry whose backoff would end past it is
     * not begun, and the request in flight (connect, reply headers, body, and a credential refresh it
     * waits for) is cut at it, so no call outlives it. Giving up throws {@link DeadlineExceededException}
     * naming {@code deadline} ({@link Deadline#describe()}) and what the last attempt met. The deadline
     * is read on every request, so pausing or extending it takes effect at once.
     */
    public Builder deadline(Deadline deadline) {
      this.deadline = Objects.requireNonNull(deadline, "deadline");
      return this;
    }

    /** {@link S3Client#close} closes the credentials provider too: the client's owner made it for the client alone. */
    public Builder closesCredentials() {
      this.closesCredentials = true;
      return this;
    }

    /** How long to wait for a connection to be set up (the request timeout also bounds it). */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = requirePositive(connectTimeout, "connectTimeout");
      return this;
    }

    /**
     * How long to wait for a reply's headers; uploads get one extra second per MiB of body on top, so
     * a large part on a slow link is not cut off. Reading a reply's body has its own deadline: this
     * timeout again plus a second per MiB of the body, so a server that stalls mid-body fails the
     * request instead of hanging it.
     */
    public Builder requestTimeout(Duration requestTimeout) {
      this.requestTimeout = requirePositive(requestTimeout, "requestTimeout");
      return this;
    }

    /** A shared {@link HttpClient} (it must speak HTTP/1.1 and must not follow redirects). */
    public Builder httpClient(HttpClient http) {
      this.http = Objects.requireNonNull(http, "http");
      return this;
    }

    public S3Client build() {
      return new S3Client(this);
    }

    private static Duration requirePositive(Duration d, String what) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + " must be positive, was " + d);
      }
      return d;
    }
  }

  public URI endpoint() {
    return addressing.endpoint();
  }

  public String region() {
    return region;
  }

  public boolean pathStyle() {
    return addressing.pathStyle();
  }

  /**
   * Where this client's credentials come from, never the secret: the answering source of a {@link
   * CredentialChain} (e.g. {@code environment}), else that the embedding application supplied them.
   */
  public String credentialsSource() {
    return credentials instanceof CredentialChain chain ? chain.describeSource() : "supplied by the application";
  }

  // ---------------------------------------------------------------- objects

  /**
   * HeadObject.
   *
   * @param versionId a version to read, or {@code null} for the current one
   * @return the object's metadata, or empty when there is no such key (or version)
   * @throws S3Exception when the bucket does not exist, access is denied, or retries ran out
   */
  public Optional<ObjectHead> head(String bucket, String key, String versionId) throws IOException {
    Map<String, String> query = new TreeMap<>();
    if (versionId != null) {
      query.put("versionId", versionId);
    }
    Reply r = transport.exchange(new Call("HEAD", bucket, key, query, Map.of(), RequestBody.empty(), Set.of(404)));
    counts.head();
    if (r.status() == 404) {
      confirmBucketAfter404(bucket, r);
      return Optional.empty();
    }
    knownBuckets.add(bucket);
    return Optional.of(S3Headers.objectHead(r.headers(), "HEAD " + resource(bucket, key) + " at " + addressing.endpoint()));
  }

  /**
   * GetObject, streamed: the caller reads and closes the stream; nothing is buffered here.
   *
   * @return the object, or empty when there is no such key
   */
  public Optional<ObjectStream> get(String bucket, String key) throws IOException {
    return get(bucket, key, null);
  }

  /**
   * GetObject of one version, streamed.
   *
   * @param versionId the version to read, or {@code null} for the current one
   * @return the object, or empty when there is no such key (or version)
   */
  public Optional<ObjectStream> get(String bucket, String key, String versionId) throws IOException {
    Map<String, String> query = new TreeMap<>();
    if (versionId != null) {
      query.put("versionId", versionId);
    }
    Reply r = transport.exchange(
        new Call("GET", bucket, key, query, Map.of(), RequestBody.empty(), Set.of(404)).asStream());
    counts.get();
    if (r.status() == 404) {
      confirmBucketAfter404(bucket, r);
      return Optional.empty();
    }
    knownBuckets.add(bucket);
    return Optional.of(new ObjectStream(S3Headers.objectHead(r.headers(), "GET " + resource(bucket, key) + " at " + addressing.endpoint()), r.stream()));
  }

  /**
   * GetObject of a small object read whole (pointer documents).
   *
   * @param maxBytes the largest reply accepted; larger is a {@link MalformedReplyException}
   * @return the bytes and headers, or empty when there is no such key
   */
  public Optional<ObjectBytes> getBytes(String bucket, String key, int maxBytes) throws IOException {
    Reply r = transport.exchange(new Call("GET", bucket, key, new TreeMap<>(), Map.of(), RequestBody.empty(),
        Set.of(404)).withMaxBody(maxBytes));
    counts.get();
    if (r.status() == 404) {
      confirmBucketAfter404(bucket, r);
      return Optional.empty();
    }
    knownBuckets.add(bucket);
    return Optional.of(new ObjectBytes(S3Headers.objectHead(r.headers(), "GET " + resource(bucket, key) + " at " + addressing.endpoint()), r.body()));
  }

  /**
   * PutObject, optionally conditional.
   *
   * @param condition {@code null} for a plain write, {@link Condition#ifNoneMatch()} to create only,
   *     {@link Condition#ifMatch(String)} to replace one version only
   * @param metadata user metadata (names without {@code x-amz-meta-}; ASCII values)
   */
  public WriteResult put(String bucket, String key, RequestBody body, Condition condition, Map<String, String> metadata)
      throws IOException {
    Map<String, String> headers = new LinkedHashMap<>(S3Headers.meta(metadata));
    if (condition != null) {
      headers.put(condition.header(), condition.value());
    }
    Reply r = transport.exchange(new Call("PUT", bucket, key, new TreeMap<>(), headers, body, Set.of(404, 412)));
    return writeResult(r, bucket, key, "PUT");
  }

  /** DeleteObject (in a versioned bucket: adds a delete marker). Deleting nothing is not an error. */
  public void delete(String bucket, String key) throws IOException {
    transport.exchange(new Call("DELETE", bucket, key, new TreeMap<>(), Map.of(), RequestBody.empty(), Set.of(404)));
  }

  /**
   * DeleteObject of one version, {@code versionId} (a delete marker's too): in a versioned bucket that
   * version is gone for good, where {@link #delete} only hides it. Deleting nothing is not an error.
   */
  public void deleteVersion(String bucket, String key, String versionId) throws IOException {
    Objects.requireNonNull(versionId, "versionId");
    transport.exchange(new Call("DELETE", bucket, key, new TreeMap<>(Map.of("versionId", versionId)), Map.of(),
        RequestBody.empty(), Set.of(404)));
  }

  // ---------------------------------------------------------------- multipart

  /**
   * CreateMultipartUpload declaring {@code x-amz-checksum-algorithm: CRC32C}, so S3 verifies each part's
   * {@code x-amz-checksum-crc32c} ({@link RequestBody#ofPart}) against the bytes it receives; returns
   * the upload id.
   */
  public String createMultipartUpload(String bucket, String key, Map<String, String> metadata) throws IOException {
    Map<String, String> query = new TreeMap<>(Map.of("uploads", ""));
    Map<String, String> headers = new LinkedHashMap<>(S3Headers.meta(metadata));
    headers.put(CHECKSUM_ALGORITHM, "CRC32C");
    Reply r = transport.exchange(new Call("POST", bucket, key, query, headers, RequestBody.empty(), Set.of()));
    return S3Xml.parseUploadId(r.body(), addressing.describe("POST", bucket, key, query));
  }

  /** UploadPart; returns the part's ETag (with quotes), as CompleteMultipartUpload must repeat it. */
  public String uploadPart(String bucket, String key, String uploadId, int partNumber, RequestBody body)
      throws IOException {
    if (partNumber < 1 || partNumber > 10_000) {
      throw new IllegalArgumentException("part number must be 1-10000, was " + partNumber);
    }
    Map<String, String> query = new TreeMap<>(Map.of("partNumber", Integer.toString(partNumber), "uploadId", uploadId));
    Reply r = transport.exchange(new Call("PUT", bucket, key, query, Map.of(), body, Set.of()));
    return r.headers().firstValue("ETag").orElseThrow(() -> new MalformedReplyException(
        addressing.describe("PUT", bucket, key, query), "no ETag header on an uploaded part"));
  }

  /**
   * CompleteMultipartUpload, optionally with {@code If-None-Match: *}. A 200 reply whose body is an
   * {@code <Error>} (S3 does this when it fails after starting the reply) is an error, retried when
   * transient.
   *
   * @param partEtags the parts' ETags in part-number order
   * @return {@link WriteResult.Status#PRECONDITION_FAILED} when the key exists; {@link
   *     WriteResult.Status#NOT_FOUND} when the upload no longer exists (completed by an earlier attempt
   *     whose reply was lost, or aborted); {@link WriteResult.Status#WRITTEN} with the version created,
   *     when the server names one ({@code x-amz-version-id})
   */
  public WriteResult completeMultipartUpload(String bucket, String key, String uploadId, List<String> partEtags,
      Condition condition) throws IOException {
    return completeMultipartUpload(bucket, key, uploadId, partEtags, null, condition);
  }

  /**
   * CompleteMultipartUpload naming each part's CRC32C as it was sent ({@link RequestBody#crc32cBase64}),
   * as S3 requires of an upload whose parts carried one.
   *
   * @param partCrc32c the parts' checksums in part-number order, or {@code null} to name none
   */
  public WriteResult completeMultipartUpload(String bucket, String key, String uploadId, List<String> partEtags,
      List<String> partCrc32c, Condition condition) throws IOException {
    if (partCrc32c != null && partCrc32c.size() != partEtags.size()) {
      throw new IllegalArgumentException(partEtags.size() + " parts but " + partCrc32c.size() + " checksums");
    }
    StringBuilder xml = new StringBuilder("<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
    for (int i = 0; i < partEtags.size(); i++) {
      xml.append("<Part><PartNumber>").append(i + 1).append("</PartNumber><ETag>")
          .append(S3Headers.escapeXml(partEtags.get(i))).append("</ETag>");
      if (partCrc32c != null) {
        xml.append("<ChecksumCRC32C>").append(S3Headers.escapeXml(partCrc32c.get(i))).append("</ChecksumCRC32C>");
      }
      xml.append("</Part>");
    }
    xml.append("</CompleteMultipartUpload>");
    Map<String, String> headers = new LinkedHashMap<>();
    if (condition != null) {
      headers.put(condition.header(), condition.value());
    }
    Map<String, String> query = new TreeMap<>(Map.of("uploadId", uploadId));
    Reply r = transport.exchange(new Call("POST", bucket, key, query, headers,
        RequestBody.ofBytes(xml.toString().getBytes(StandardCharsets.UTF_8)), Set.of(404, 412)).withErrorIn200());
    if (r.status() == 404 || r.status() == 412) {
      return writeResult(r, bucket, key, "POST");
    }
    String etag = S3Xml.parseCompleteEtag(r.body(), addressing.describe("POST", bucket, key, query));
    return new WriteResult(WriteResult.Status.WRITTEN, etag, r.attempts(), S3Headers.writtenVersion(r.headers()));
  }

  /** AbortMultipartUpload; an upload already gone is not an error. */
  public void abortMultipartUpload(String bucket, String key, String uploadId) throws IOException {
    transport.exchange(new Call("DELETE", bucket, key, new TreeMap<>(Map.of("uploadId", uploadId)), Map.of(),
        RequestBody.empty(), Set.of(404)));
  }

  /** ListMultipartUploads, one page. */
  public UploadsPage listMultipartUploads(String bucket, String prefix, String keyMarker, String uploadIdMarker)
      throws IOException {
    Map<String, String> query = new TreeMap<>();
    query.put("uploads", "");
    query.put("encoding-type", "url");
    putIf(query, "prefix", prefix);
    putIf(query, "key-marker", keyMarker);
    putIf(query, "upload-id-marker", uploadIdMarker);
    String what = addressing.describe("GET", bucket, null, query);
    return transport.exchange(new Call("GET", bucket, null, query, Map.of(), RequestBody.empty(), Set.of()),
        body -> S3Xml.parseUploads(body, what));
  }

  // ---------------------------------------------------------------- listings

  /** ListObjectVersions, one page of at most {@code maxKeys} entries. */
  public VersionsPage listVersions(String bucket, String prefix, String keyMarker, String versionIdMarker,
      int maxKeys) throws IOException {
    return listVersions(bucket, prefix, null, keyMarker, versionIdMarker, maxKeys);
  }

  /**
   * ListObjectVersions with a {@code delimiter} ({@code null} for none): keys with the delimiter after
   * the prefix roll up into {@link VersionsPage#commonPrefixes()}, which count toward {@code maxKeys}. A
   * page holding more versions and delete markers than {@code maxKeys} is a {@link
   * MalformedReplyException}.
   */
  public VersionsPage listVersions(String bucket, String prefix, String delimiter, String keyMarker,
      String versionIdMarker, int maxKeys) throws IOException {
    Map<String, String> query = new TreeMap<>();
    query.put("versions", "");
    query.put("encoding-type", "url");
    query.put("max-keys", Integer.toString(requireMaxKeys(maxKeys)));
    putIf(query, "prefix", prefix);
    putIf(query, "delimiter", delimiter);
    putIf(query, "key-marker", keyMarker);
    if (keyMarker != null) {
      putIf(query, "version-id-marker", versionIdMarker);
    }
    String what = addressing.describe("GET", bucket, null, query);
    VersionsPage page = transport.exchange(new Call("GET", bucket, null, query, Map.of(), RequestBody.empty(),
        Set.of()), body -> VersionsPageReader.read(body, what));
    // Adobe S3Mock hands max-keys + 1 versions and says the listing ends while versions remain: a scan of
    // such pages would pass on part of the store, so a page longer than asked is no page. (Directories
    // are not counted: S3Proxy names every one on every delimiter page, and the walk takes each once.)
    if (page.versions().size() > maxKeys) {
      throw new MalformedReplyException(what, page.versions().size() + " versions and delete markers in a page"
          + " asked for at most " + maxKeys + " (max-keys); a server that pages ListObjectVersions so may leave"
          + " versions out of the listing");
    }
    counts.listed(page.versions().size() + page.commonPrefixes().size());
    return page;
  }

  /**
   * ListObjectsV2, one page of at most {@code maxKeys} objects, with the server's clock when it answered
   * ({@link ObjectsPage#serverTime()}, from the reply's {@code Date}).
   */
  public ObjectsPage listObjects(String bucket, String prefix, String startAfter, String continuationToken,
      int maxKeys) throws IOException {
    Map<String, String> query = new TreeMap<>();
    query.put("list-type", "2");
    query.put("encoding-type", "url");
    query.put("max-keys", Integer.toString(requireMaxKeys(maxKeys)));
    putIf(query, "prefix", prefix);
    putIf(query, "start-after", startAfter);
    putIf(query, "continuation-token", continuationToken);
    String what = addressing.describe("GET", bucket, null, query);
    List<ObjectsPage> parsed = new ArrayList<>(1);
    Reply r = transport.exchange(new Call("GET", bucket, null, query, Map.of(), RequestBody.empty(), Set.of()),
        body -> S3Xml.parseObjects(body, what), parsed::add);
    ObjectsPage page = parsed.get(0).at(r.headers().firstValue("Date").map(S3Headers::httpDate).orElse(null));
    counts.listed(page.objects().size());
    return page;
  }

  // ---------------------------------------------------------------- buckets

  /** CreateBucket (in the client's region); for tests and demos. */
  public void createBucket(String bucket) throws IOException {
    RequestBody body = region.equals("us-east-1") ? RequestBody.empty() : RequestBody.ofBytes((
        "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>"
            + S3Headers.escapeXml(region) + "</LocationConstraint></CreateBucketConfiguration>").getBytes(StandardCharsets.UTF_8));
    transport.exchange(new Call("PUT", bucket, null, new TreeMap<>(), Map.of(), body, Set.of()));
    knownBuckets.add(bucket);
  }

  /** PutBucketVersioning: {@code Enabled} or {@code Suspended}. */
  public void putBucketVersioning(String bucket, boolean enabled) throws IOException {
    String xml = "<VersioningConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Status>"
        + (enabled ? "Enabled" : "Suspended") + "</Status></VersioningConfiguration>";
    transport.exchange(new Call("PUT", bucket, null, new TreeMap<>(Map.of("versioning", "")), Map.of(),
        RequestBody.ofBytes(xml.getBytes(StandardCharsets.UTF_8)), Set.of()));
  }

  /**
   * Whether a reply from {@code bucket} already showed it exists: an object read from it, a HEAD that
   * found one, a HeadBucket, or a 404 whose body named the key, not the bucket. No request.
   */
  public boolean bucketKnown(String bucket) {
    return knownBuckets.contains(bucket);
  }

  /** HeadBucket: whether the bucket exists (403 counts as existing: it is someone else's, or ours without s3:ListBucket). */
  public boolean bucketExists(String bucket) throws IOException {
    Reply r = transport.exchange(
        new Call("HEAD", bucket, null, new TreeMap<>(), Map.of(), RequestBody.empty(), Set.of(403, 404)));
    boolean exists = r.status() != 404;
    if (exists) {
      knownBuckets.add(bucket);
    }
    return exists;
  }

  /**
   * GetBucketVersioning.
   *
   * @return {@code Enabled}, {@code Suspended}, or empty when versioning was never enabled on the bucket
   */
  public Optional<String> bucketVersioning(String bucket) throws IOException {
    Map<String, String> query = new TreeMap<>(Map.of("versioning", ""));
    Reply r = transport.exchange(new Call("GET", bucket, null, query, Map.of(), RequestBody.empty(), Set.of()));
    return S3Xml.parseVersioning(r.body(), addressing.describe("GET", bucket, null, query));
  }

  /**
   * The server's clock, from the {@code Date} header of a HeadBucket reply (one-second resolution).
   *
   * @return empty when the server sends no parseable {@code Date}
   */
  public Optional<Instant> serverTime(String bucket) throws IOException {
    Reply r = transport.exchange(
        new Call("HEAD", bucket, null, new TreeMap<>(), Map.of(), RequestBody.empty(), Set.of(403, 404)));
    return r.headers().firstValue("Date").map(S3Headers::httpDate);
  }

  // ---------------------------------------------------------------- results

  /** A streamed GetObject: headers and the open body, which the caller closes. */
  public record ObjectStream(ObjectHead head, InputStream body) {}

  /** A GetObject read whole. */
  public record ObjectBytes(ObjectHead head, byte[] bytes) {}

  /** A write precondition. */
  public record Condition(String header, String value) {
    /** {@code If-None-Match: *}: create only. */
    public static Condition ifNoneMatch() {
      return new Condition("If-None-Match", "*");
    }

    /** {@code If-Match: etag}: replace only the version with this ETag (as sent by the server, quoted). */
    public static Condition ifMatch(String etag) {
      Objects.requireNonNull(etag, "etag");
      return new Condition("If-Match", etag);
    }
  }

  // ---------------------------------------------------------------- replies

  private void confirmBucketAfter404(String bucket, Reply r) throws IOException {
    S3Xml.ErrorBody e = S3Xml.parseError(r.body());
    if ("NoSuchBucket".equals(e.code())) {
      throw new S3Exception(404, e.code(), e.message(), e.requestId(), "GET", addressing.endpoint(), bucket);
    }
    if (e.code() != null) {
      knownBuckets.add(bucket);
    } else if (!knownBuckets.contains(bucket) && !bucketExists(bucket)) {
      throw new S3Exception(404, "NoSuchBucket", null, null, "HEAD", addressing.endpoint(), bucket);
    }
  }

  private WriteResult writeResult(Reply r, String bucket, String key, String method) throws IOException {
    if (r.status() == 412) {
      return new WriteResult(WriteResult.Status.PRECONDITION_FAILED, null, r.attempts());
    }
    if (r.status() == 404) {
      confirmBucketAfter404(bucket, r);
      return new WriteResult(WriteResult.Status.NOT_FOUND, null, r.attempts());
    }
    String etag = r.headers().firstValue("ETag").orElseThrow(() -> new MalformedReplyException(
        method + " " + resource(bucket, key) + " at " + addressing.endpoint(),
        "no ETag header on a successful write"));
    return new WriteResult(WriteResult.Status.WRITTEN, etag, r.attempts(), S3Headers.writtenVersion(r.headers()));
  }

  // ---------------------------------------------------------------- request parts

  /**
   * The request URI; its raw path and query are already in SigV4 canonical encoding. On the client so
   * addressing tests check the URI a configured client sends.
   */
  URI uri(String bucket, String key, Map<String, String> query) {
    return addressing.uri(bucket, key, query);
  }

  /** Adds an optional parameter; an empty prefix or marker means the same as none. */
  private static void putIf(Map<String, String> query, String name, String value) {
    if (value != null && !value.isEmpty()) {
      query.put(name, value);
    }
  }

  private static int requireMaxKeys(int maxKeys) {
    if (maxKeys < 1 || maxKeys > 1000) {
      throw new IllegalArgumentException("max-keys must be 1-1000, was " + maxKeys);
    }
    return maxKeys;
  }
}
