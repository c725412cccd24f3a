package dev.idem.store.s3.client;

import dev.idem.store.s3.auth.AwsCredentials;
import dev.idem.store.s3.auth.CredentialsProvider;
import dev.idem.store.s3.auth.SigV4Signer;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
import java.util.regex.Pattern;

/**
 * A small S3 client over {@code java.net.http}: the dozen S3 operations idem needs, each request
 * signed with SigV4, sent over one shared HTTP/1.1 {@link HttpClient} (connections are pooled and
 * reused), with connect and request timeouts and bounded retries.
 *
 * <h2>Protocol of one call</h2>
 *
 * <ol>
 *   <li>Build the URI: path-style ({@code endpoint/bucket/key}) or virtual-hosted ({@code
 *       bucket.host/key}); keys are percent-encoded exactly as SigV4 canonicalizes them, so the URI
 *       sent is the URI signed.
 *   <li>Resolve credentials (per attempt, so refreshed temporary credentials are used) and sign: the
 *       payload's SHA-256 is signed in {@code x-amz-content-sha256}; bodies are streamed from their
 *       source on every attempt, never buffered whole ({@link RequestBody}).
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
  private static final int MAX_ERROR_BODY = 64 * 1024;
  private static final int MAX_XML_BODY = 16 * 1024 * 1024;
  private static final long MIN_UPLOAD_BYTES_PER_SECOND = 1024 * 1024;
  private static final Pattern DNS_BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

  private final HttpClient http;
  private final URI endpoint;
  private final String basePath;
  private final String region;
  private final boolean pathStyle;
  private final CredentialsProvider credentials;
  private final SigV4Signer signer;
  private final RetryPolicy retry;
  private final Sleeper sleeper;
  private final Duration requestTimeout;
  private final Set<String> knownBuckets = ConcurrentHashMap.newKeySet();

  private S3Client(Builder b) {
    this.endpoint = b.endpoint;
    String path = b.endpoint.getRawPath() == null ? "" : b.endpoint.getRawPath();
    this.basePath = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    this.region = b.region;
    this.pathStyle = b.pathStyle;
    this.credentials = b.credentials;
    this.signer = new SigV4Signer(b.clock);
    this.retry = b.retry;
    this.sleeper = b.sleeper;
    this.requestTimeout = b.requestTimeout;
    this.http = b.http != null ? b.http : HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(b.connectTimeout)
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
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

    private Builder(URI endpoint, String region, CredentialsProvider credentials) {
      this.endpoint = requireEndpoint(endpoint);
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

    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = requirePositive(connectTimeout, "connectTimeout");
      return this;
    }

    /**
     * How long to wait for a reply's headers; uploads get one extra second per MiB of body on top, so
     * a large part on a slow link is not cut off.
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

  private static URI requireEndpoint(URI endpoint) {
    Objects.requireNonNull(endpoint, "endpoint");
    String scheme = endpoint.getScheme();
    if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
        || endpoint.getHost() == null || endpoint.getRawQuery() != null || endpoint.getRawFragment() != null
        || endpoint.getRawUserInfo() != null) {
      throw new IllegalArgumentException(
          "S3 endpoint must be http(s)://host[:port][/path] without user info, query or fragment, was "
              + endpoint);
    }
    return endpoint;
  }

  public URI endpoint() {
    return endpoint;
  }

  public String region() {
    return region;
  }

  public boolean pathStyle() {
    return pathStyle;
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
    Reply r = exchange(new Call("HEAD", bucket, key, query, Map.of(), RequestBody.empty(), Set.of(404)));
    if (r.status == 404) {
      confirmBucketAfter404(bucket, r);
      return Optional.empty();
    }
    return Optional.of(objectHead(r, "HEAD " + resource(bucket, key)));
  }

  /**
   * GetObject, streamed: the caller reads and closes the stream; nothing is buffered here.
   *
   * @return the object, or empty when there is no such key
   */
  public Optional<ObjectStream> get(String bucket, String key) throws IOException {
    Reply r = exchange(new Call("GET", bucket, key, new TreeMap<>(), Map.of(), RequestBody.empty(), Set.of(404))
        .asStream());
    if (r.status == 404) {
      confirmBucketAfter404(bucket, r);
      return Optional.empty();
    }
    return Optional.of(new ObjectStream(objectHead(r, "GET " + resource(bucket, key)), r.stream));
  }

  /**
   * GetObject of a small object read whole (pointer documents).
   *
   * @param maxBytes the largest reply accepted; larger is a {@link MalformedReplyException}
   * @return the bytes and headers, or empty when there is no such key
   */
  public Optional<ObjectBytes> getBytes(String bucket, String key, int maxBytes) throws IOException {
    Reply r = exchange(new Call("GET", bucket, key, new TreeMap<>(), Map.of(), RequestBody.empty(), Set.of(404))
        .withMaxBody(maxBytes));
    if (r.status == 404) {
      confirmBucketAfter404(bucket, r);
      return Optional.empty();
    }
    return Optional.of(new ObjectBytes(objectHead(r, "GET " + resource(bucket, key)), r.body));
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
    Map<String, String> headers = new LinkedHashMap<>(metaHeaders(metadata));
    if (condition != null) {
      headers.put(condition.header(), condition.value());
    }
    Reply r = exchange(new Call("PUT", bucket, key, new TreeMap<>(), headers, body, Set.of(404, 412)));
    return writeResult(r, bucket, key, "PUT");
  }

  /** DeleteObject (in a versioned bucket: adds a delete marker). Deleting nothing is not an error. */
  public void delete(String bucket, String key) throws IOException {
    exchange(new Call("DELETE", bucket, key, new TreeMap<>(), Map.of(), RequestBody.empty(), Set.of(404)));
  }

  // ---------------------------------------------------------------- multipart

  /** CreateMultipartUpload; returns the upload id. */
  public String createMultipartUpload(String bucket, String key, Map<String, String> metadata) throws IOException {
    Map<String, String> query = new TreeMap<>(Map.of("uploads", ""));
    Reply r = exchange(new Call("POST", bucket, key, query, metaHeaders(metadata), RequestBody.empty(), Set.of()));
    return S3Xml.parseUploadId(r.body, describe("POST", bucket, key, query));
  }

  /** UploadPart; returns the part's ETag (with quotes), as CompleteMultipartUpload must repeat it. */
  public String uploadPart(String bucket, String key, String uploadId, int partNumber, RequestBody body)
      throws IOException {
    if (partNumber < 1 || partNumber > 10_000) {
      throw new IllegalArgumentException("part number must be 1-10000, was " + partNumber);
    }
    Map<String, String> query = new TreeMap<>(Map.of("partNumber", Integer.toString(partNumber), "uploadId", uploadId));
    Reply r = exchange(new Call("PUT", bucket, key, query, Map.of(), body, Set.of()));
    return r.headers.firstValue("ETag").orElseThrow(() -> new MalformedReplyException(
        describe("PUT", bucket, key, query), "no ETag header on an uploaded part"));
  }

  /**
   * CompleteMultipartUpload, optionally with {@code If-None-Match: *}. A 200 reply whose body is an
   * {@code <Error>} (S3 does this when it fails after starting the reply) is an error, retried when
   * transient.
   *
   * @param partEtags the parts' ETags in part-number order
   * @return {@link WriteResult.Status#PRECONDITION_FAILED} when the key exists; {@link
   *     WriteResult.Status#NOT_FOUND} when the upload no longer exists (completed by an earlier attempt
   *     whose reply was lost, or aborted)
   */
  public WriteResult completeMultipartUpload(String bucket, String key, String uploadId, List<String> partEtags,
      Condition condition) throws IOException {
    StringBuilder xml = new StringBuilder("<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
    for (int i = 0; i < partEtags.size(); i++) {
      xml.append("<Part><PartNumber>").append(i + 1).append("</PartNumber><ETag>")
          .append(escapeXml(partEtags.get(i))).append("</ETag></Part>");
    }
    xml.append("</CompleteMultipartUpload>");
    Map<String, String> headers = new LinkedHashMap<>();
    if (condition != null) {
      headers.put(condition.header(), condition.value());
    }
    Map<String, String> query = new TreeMap<>(Map.of("uploadId", uploadId));
    Reply r = exchange(new Call("POST", bucket, key, query, headers,
        RequestBody.ofBytes(xml.toString().getBytes(StandardCharsets.UTF_8)), Set.of(404, 412)).withErrorIn200());
    if (r.status == 404 || r.status == 412) {
      return writeResult(r, bucket, key, "POST");
    }
    String etag = S3Xml.parseCompleteEtag(r.body, describe("POST", bucket, key, query));
    return new WriteResult(WriteResult.Status.WRITTEN, etag, r.attempts);
  }

  /** AbortMultipartUpload; an upload already gone is not an error. */
  public void abortMultipartUpload(String bucket, String key, String uploadId) throws IOException {
    exchange(new Call("DELETE", bucket, key, new TreeMap<>(Map.of("uploadId", uploadId)), Map.of(),
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
    Reply r = exchange(new Call("GET", bucket, null, query, Map.of(), RequestBody.empty(), Set.of()));
    return S3Xml.parseUploads(r.body, describe("GET", bucket, null, query));
  }

  // ---------------------------------------------------------------- listings

  /** ListObjectVersions, one page of at most {@code maxKeys} entries. */
  public VersionsPage listVersions(String bucket, String prefix, String keyMarker, String versionIdMarker,
      int maxKeys) throws IOException {
    Map<String, String> query = new TreeMap<>();
    query.put("versions", "");
    query.put("encoding-type", "url");
    query.put("max-keys", Integer.toString(requireMaxKeys(maxKeys)));
    putIf(query, "prefix", prefix);
    putIf(query, "key-marker", keyMarker);
    if (keyMarker != null) {
      putIf(query, "version-id-marker", versionIdMarker);
    }
    Reply r = exchange(new Call("GET", bucket, null, query, Map.of(), RequestBody.empty(), Set.of()));
    return S3Xml.parseVersions(r.body, describe("GET", bucket, null, query));
  }

  /** ListObjectsV2, one page of at most {@code maxKeys} objects. */
  public ObjectsPage listObjects(String bucket, String prefix, String startAfter, String continuationToken,
      int maxKeys) throws IOException {
    Map<String, String> query = new TreeMap<>();
    query.put("list-type", "2");
    query.put("encoding-type", "url");
    query.put("max-keys", Integer.toString(requireMaxKeys(maxKeys)));
    putIf(query, "prefix", prefix);
    putIf(query, "start-after", startAfter);
    putIf(query, "continuation-token", continuationToken);
    Reply r = exchange(new Call("GET", bucket, null, query, Map.of(), RequestBody.empty(), Set.of()));
    return S3Xml.parseObjects(r.body, describe("GET", bucket, null, query));
  }

  // ---------------------------------------------------------------- buckets

  /** CreateBucket (in the client's region); for tests and demos. */
  public void createBucket(String bucket) throws IOException {
    RequestBody body = region.equals("us-east-1") ? RequestBody.empty() : RequestBody.ofBytes((
        "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>"
            + escapeXml(region) + "</LocationConstraint></CreateBucketConfiguration>").getBytes(StandardCharsets.UTF_8));
    exchange(new Call("PUT", bucket, null, new TreeMap<>(), Map.of(), body, Set.of()));
    knownBuckets.add(bucket);
  }

  /** PutBucketVersioning: {@code Enabled} or {@code Suspended}. */
  public void putBucketVersioning(String bucket, boolean enabled) throws IOException {
    String xml = "<VersioningConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Status>"
        + (enabled ? "Enabled" : "Suspended") + "</Status></VersioningConfiguration>";
    exchange(new Call("PUT", bucket, null, new TreeMap<>(Map.of("versioning", "")), Map.of(),
        RequestBody.ofBytes(xml.getBytes(StandardCharsets.UTF_8)), Set.of()));
  }

  /** HeadBucket: whether the bucket exists (403 counts as existing: it is someone else's, or ours without s3:ListBucket). */
  public boolean bucketExists(String bucket) throws IOException {
    Reply r = exchange(new Call("HEAD", bucket, null, new TreeMap<>(), Map.of(), RequestBody.empty(), Set.of(403, 404)));
    boolean exists = r.status != 404;
    if (exists) {
      knownBuckets.add(bucket);
    }
    return exists;
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

  // ---------------------------------------------------------------- exchange

  /** One request as the operations describe it. */
  private record Call(String method, String bucket, String key, Map<String, String> query,
      Map<String, String> headers, RequestBody body, Set<Integer> accept, boolean stream, boolean errorIn200,
      int maxBody) {
    Call(String method, String bucket, String key, Map<String, String> query, Map<String, String> headers,
        RequestBody body, Set<Integer> accept) {
      this(method, bucket, key, query, headers, body, accept, false, false, MAX_XML_BODY);
    }

    Call asStream() {
      return new Call(method, bucket, key, query, headers, body, accept, true, errorIn200, maxBody);
    }

    Call withErrorIn200() {
      return new Call(method, bucket, key, query, headers, body, accept, stream, true, maxBody);
    }

    Call withMaxBody(int max) {
      return new Call(method, bucket, key, query, headers, body, accept, stream, errorIn200, max);
    }
  }

  /** One reply: {@code body} for buffered calls, {@code stream} for streamed successes. */
  private record Reply(int status, HttpHeaders headers, byte[] body, InputStream stream, int attempts) {}

  private Reply exchange(Call c) throws IOException {
    URI uri = uri(c.bucket, c.key, c.query);
    for (int attempt = 1; ; attempt++) {
      // Outside the retry: a credentials failure is the provider's to retry, and is reported as it is.
      HttpRequest request = request(c, uri);
      HttpResponse<InputStream> response;
      try {
        response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
      } catch (IOException e) {
        rethrowLocalBodyFailure(e);
        if (attempt < retry.maxAttempts()) {
          backoff(attempt + 1);
          continue;
        }
        throw new IOException(describe(c.method, c.bucket, c.key, c.query) + " failed: " + reason(e)
            + " (after " + attempt + (attempt == 1 ? " attempt)" : " attempts)"), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted during " + describe(c.method, c.bucket, c.key, c.query));
      }
      int status = response.statusCode();
      boolean success = status >= 200 && status < 300;
      if (success && c.stream) {
        return new Reply(status, response.headers(), null, response.body(), attempt);
      }
      byte[] body;
      try {
        body = readBounded(response.body(), success || c.accept.contains(status) ? c.maxBody : MAX_ERROR_BODY,
            !success && !c.accept.contains(status), c);
      } catch (MalformedReplyException e) {
        throw e;
      } catch (IOException e) {
        if (attempt < retry.maxAttempts()) {
          backoff(attempt + 1);
          continue;
        }
        throw new IOException(describe(c.method, c.bucket, c.key, c.query) + " failed reading the reply: "
            + reason(e) + " (after " + attempt + " attempts)", e);
      }
      if ((success && !(c.errorIn200 && S3Xml.isError(body))) || c.accept.contains(status)) {
        return new Reply(status, response.headers(), body, null, attempt);
      }
      S3Exception error = error(c, status, response.headers(), body);
      if (error.isRetryable() && attempt < retry.maxAttempts()) {
        backoff(attempt + 1);
        continue;
      }
      throw error;
    }
  }

  private HttpRequest request(Call c, URI uri) throws IOException {
    AwsCredentials creds = credentials.resolve();
    Map<String, List<String>> toSign = new LinkedHashMap<>();
    c.headers.forEach((name, value) -> toSign.put(name, List.of(value)));
    String payloadSha = c.body.length() == 0 ? SigV4Signer.EMPTY_SHA256 : c.body.sha256();
    Map<String, String> added = signer.sign(c.method, uri, toSign, payloadSha, creds, region, "s3");
    long extraSeconds = c.body.length() / MIN_UPLOAD_BYTES_PER_SECOND;
    HttpRequest.Builder b = HttpRequest.newBuilder(uri)
        .timeout(requestTimeout.plusSeconds(extraSeconds))
        .method(c.method, c.body.publisher());
    c.headers.forEach(b::header);
    added.forEach(b::header);
    return b.build();
  }

  private void backoff(int nextAttempt) throws IOException {
    try {
      sleeper.sleep(retry.delayBefore(nextAttempt));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while backing off an S3 retry");
    }
  }

  private static void rethrowLocalBodyFailure(IOException e) throws IOException {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof RequestBody.LocalBodyException local && local.getCause() instanceof IOException cause) {
        throw cause;
      }
    }
  }

  private byte[] readBounded(InputStream in, int max, boolean quiet, Call c) throws IOException {
    try (InputStream body = in) {
      byte[] bytes = body.readNBytes(max + 1);
      if (bytes.length > max) {
        if (quiet) {
          return java.util.Arrays.copyOf(bytes, max);
        }
        throw new MalformedReplyException(describe(c.method, c.bucket, c.key, c.query),
            "reply larger than " + max + " bytes");
      }
      return bytes;
    }
  }

  private S3Exception error(Call c, int status, HttpHeaders headers, byte[] body) {
    S3Xml.ErrorBody e = S3Xml.parseError(body);
    String code = e.code() != null ? e.code() : headers.firstValue("x-amz-error-code").orElse(null);
    String message = e.message();
    String requestId = e.requestId() != null ? e.requestId() : headers.firstValue("x-amz-request-id").orElse(null);
    Optional<String> bucketRegion = headers.firstValue("x-amz-bucket-region");
    if (bucketRegion.isPresent() && !bucketRegion.get().equals(region) && (status == 301 || status == 400)) {
      message = "the bucket is in region " + bucketRegion.get() + ", this client signs for " + region
          + ": set AWS_REGION=" + bucketRegion.get();
    }
    return new S3Exception(status, code, message, requestId, c.method, endpoint, resource(c.bucket, c.key));
  }

  private void confirmBucketAfter404(String bucket, Reply r) throws IOException {
    S3Xml.ErrorBody e = S3Xml.parseError(r.body);
    if ("NoSuchBucket".equals(e.code())) {
      throw new S3Exception(404, e.code(), e.message(), e.requestId(), "GET", endpoint, bucket);
    }
    if (e.code() == null && !knownBuckets.contains(bucket) && !bucketExists(bucket)) {
      throw new S3Exception(404, "NoSuchBucket", null, null, "HEAD", endpoint, bucket);
    }
  }

  private WriteResult writeResult(Reply r, String bucket, String key, String method) throws IOException {
    if (r.status == 412) {
      return new WriteResult(WriteResult.Status.PRECONDITION_FAILED, null, r.attempts);
    }
    if (r.status == 404) {
      confirmBucketAfter404(bucket, r);
      return new WriteResult(WriteResult.Status.NOT_FOUND, null, r.attempts);
    }
    String etag = r.headers.firstValue("ETag").orElseThrow(() -> new MalformedReplyException(
        method + " " + resource(bucket, key) + " at " + endpoint, "no ETag header on a successful write"));
    return new WriteResult(WriteResult.Status.WRITTEN, etag, r.attempts);
  }

  private ObjectHead objectHead(Reply r, String what) throws MalformedReplyException {
    HttpHeaders h = r.headers;
    long size;
    try {
      size = Long.parseLong(h.firstValue("Content-Length").orElseThrow(
          () -> new MalformedReplyException(what + " at " + endpoint, "no Content-Length")));
    } catch (NumberFormatException e) {
      throw new MalformedReplyException(what + " at " + endpoint, "Content-Length is not a number");
    }
    Map<String, String> meta = new HashMap<>();
    for (Map.Entry<String, List<String>> e : h.map().entrySet()) {
      String name = e.getKey().toLowerCase(Locale.ROOT);
      if (name.startsWith("x-amz-meta-") && !e.getValue().isEmpty()) {
        meta.put(name.substring("x-amz-meta-".length()), e.getValue().get(0));
      }
    }
    Instant modified = h.firstValue("Last-Modified").map(S3Client::httpDate).orElse(null);
    return new ObjectHead(size, h.firstValue("ETag").orElse(null), modified,
        h.firstValue("x-amz-version-id").orElse(null), meta);
  }

  private static Instant httpDate(String s) {
    try {
      return ZonedDateTime.parse(s, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  // ---------------------------------------------------------------- addressing

  /** The request URI; its raw path and query are already in SigV4 canonical encoding. */
  URI uri(String bucket, String key, Map<String, String> query) {
    StringBuilder b = new StringBuilder();
    b.append(endpoint.getScheme().toLowerCase(Locale.ROOT)).append("://");
    boolean virtual = !pathStyle && virtualHostable(bucket);
    if (virtual) {
      b.append(bucket).append('.');
    }
    b.append(endpoint.getRawAuthority());
    b.append(basePath);
    if (!virtual) {
      b.append('/').append(SigV4Signer.uriEncode(bucket, false));
    }
    if (key != null) {
      b.append('/').append(SigV4Signer.uriEncode(key, true));
    } else if (virtual) {
      b.append('/');
    }
    if (!query.isEmpty()) {
      b.append('?');
      boolean first = true;
      for (Map.Entry<String, String> e : new TreeMap<>(query).entrySet()) {
        if (!first) {
          b.append('&');
        }
        first = false;
        b.append(SigV4Signer.uriEncode(e.getKey(), false)).append('=')
            .append(SigV4Signer.uriEncode(e.getValue(), false));
      }
    }
    return URI.create(b.toString());
  }

  /**
   * Virtual-hosted addressing needs a DNS-compatible bucket name, and over TLS one without dots (the
   * wildcard certificate covers one label); other buckets are addressed path-style, as the AWS SDKs do.
   */
  private boolean virtualHostable(String bucket) {
    return DNS_BUCKET.matcher(bucket).matches() && !bucket.contains("..")
        && !(bucket.contains(".") && endpoint.getScheme().equalsIgnoreCase("https"));
  }

  private String describe(String method, String bucket, String key, Map<String, String> query) {
    StringBuilder b = new StringBuilder(method).append(' ').append(resource(bucket, key));
    if (!query.isEmpty()) {
      List<String> names = new ArrayList<>();
      for (Map.Entry<String, String> e : query.entrySet()) {
        names.add(e.getValue().isEmpty() || e.getKey().contains("marker") || e.getKey().contains("token")
            || e.getKey().equals("prefix") || e.getKey().equals("start-after")
            ? e.getKey() : e.getKey() + "=" + e.getValue());
      }
      b.append('?').append(String.join("&", names));
    }
    return b.append(" at ").append(endpoint).toString();
  }

  private static String resource(String bucket, String key) {
    return key == null ? bucket : bucket + "/" + key;
  }

  private static Map<String, String> metaHeaders(Map<String, String> metadata) {
    if (metadata.isEmpty()) {
      return Map.of();
    }
    Map<String, String> out = new LinkedHashMap<>();
    metadata.forEach((name, value) -> {
      for (int i = 0; i < value.length(); i++) {
        char ch = value.charAt(i);
        if (ch < 0x20 || ch > 0x7e) {
          throw new IllegalArgumentException("metadata " + name + " must be printable ASCII");
        }
      }
      out.put("x-amz-meta-" + name.toLowerCase(Locale.ROOT), value);
    });
    return Collections.unmodifiableMap(out);
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

  private static String reason(IOException e) {
    String m = e.getMessage();
    String name = e.getClass().getSimpleName();
    return m == null || m.isBlank() ? name : name + ": " + S3Exception.oneLine(m);
  }

  private static String escapeXml(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
