package dev.idem.store.s3.internal.client;

import dev.idem.core.store.Deadline;
import dev.idem.core.store.DeadlineExceededException;
import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsProvider;
import dev.idem.store.s3.internal.auth.SigV4Signer;
import dev.idem.store.s3.internal.http.BodyDeadline;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Sends one {@link S3Client} request: signs, sends, retries and maps errors, the second to fourth steps
 * of the client's protocol.
 *
 * <ol>
 *   <li>Resolve credentials (per attempt, so refreshed temporary credentials are used; a refresh in
 *       progress in another thread is waited for at most the request timeout, or the time left under
 *       a deadline) and sign: the payload's SHA-256 is signed in {@code x-amz-content-sha256} (a multipart
 *       part is {@code UNSIGNED-PAYLOAD} with its CRC32C in a signed {@code x-amz-checksum-crc32c} header
 *       instead); bodies are streamed from their source on every attempt, never buffered whole ({@link RequestBody}). Uploads get one extra
 *       second of request timeout per MiB of body.
 *   <li>Send. The headers must arrive within the request timeout, and the body, buffered or streamed,
 *       within that timeout plus a second per MiB of its length ({@link BodyDeadline}); a body that
 *       stalls fails with {@link java.net.http.HttpTimeoutException} naming the request.
 *       A listing's 2xx body is parsed as it arrives by the call's {@link BodyReader} (never held whole;
 *       past the call's size bound it fails as a {@link MalformedReplyException}).
 *       Statuses the {@link Call} accepts come back as a {@link Reply}; any other non-2xx reply
 *       is parsed into an {@link S3Exception}, and so is a 2xx reply whose body is an {@code <Error>}
 *       when the call says the operation can fail that way ({@link Call#withErrorIn200()}).
 *   <li>Retry, with full-jitter exponential backoff ({@link RetryPolicy}), when the {@link S3Exception}
 *       says it is retryable, and on I/O failures sending or reading the reply. A failure reading the
 *       local body source is never retried, nor is a reply larger than the call allows ({@link
 *       MalformedReplyException}).
 * </ol>
 *
 * <p>When retries run out the last failure is thrown: the {@link S3Exception}, or an {@link
 * IOException} naming the request and the number of attempts. A credentials failure is thrown as the
 * provider reported it, without a retry here.
 *
 * <p>Under a caller's deadline ({@link #within}, B1) the attempts end at the deadline too: a retry whose
 * backoff would end at or after it is not begun, and each request's timeout and body deadline are
 * capped at the time left before a hard end one request timeout past the deadline (so the request
 * started last can finish, and a stalled server costs at most the deadline plus one request timeout).
 * Under the client's overall {@link Deadline} (B2) the hard end is the deadline itself: no retry begins
 * that would end past it, and the request in flight (connect, headers, body, and a credential refresh
 * this request waits for) is cut at it. Giving up at either throws {@link DeadlineExceededException}
 * naming the deadline and carrying the last attempt's failure.
 *
 * <p>A wait that runs out on its own says which it was: {@code connect timeout} (no connection within the
 * client's connect timeout), {@code read timeout} (no reply headers within the request timeout, or a
 * body that stalled past its deadline).
 *
 * <p>Instances are immutable and thread-safe.
 */
final class S3Transport {
  private static final int MAX_ERROR_BODY = 64 * 1024;
  private static final int MAX_XML_BODY = 16 * 1024 * 1024;
  private static final long MIN_UPLOAD_BYTES_PER_SECOND = 1024 * 1024;

  private final HttpClient http;
  private final S3Addressing addressing;
  private final String region;
  private final CredentialsProvider credentials;
  private final SigV4Signer signer;
  private final RetryPolicy retry;
  private final Sleeper sleeper;
  private final Duration requestTimeout;
  private final LongSupplier ticker;
  /** The caller's deadline over every request of this transport ({@link #within}), or {@code null}. */
  private final Bound bound;
  /** The client's overall deadline (B2), or {@code null}: unbounded. */
  private final Deadline overall;
  /** Where every request sent is counted, by the class S3 bills it at. */
  private final RequestCounter counter;

  S3Transport(HttpClient http, S3Addressing addressing, String region, CredentialsProvider credentials,
      SigV4Signer signer, RetryPolicy retry, Sleeper sleeper, Duration requestTimeout, LongSupplier ticker,
      Deadline overall, RequestCounter counter) {
    this(http, addressing, region, credentials, signer, retry, sleeper, requestTimeout, ticker, null, overall,
        counter);
  }

  private S3Transport(HttpClient http, S3Addressing addressing, String region, CredentialsProvider credentials,
      SigV4Signer signer, RetryPolicy retry, Sleeper sleeper, Duration requestTimeout, LongSupplier ticker,
      Bound bound, Deadline overall, RequestCounter counter) {
    this.http = http;
    this.addressing = addressing;
    this.region = region;
    this.credentials = credentials;
    this.signer = signer;
    this.retry = retry;
    this.sleeper = sleeper;
    this.requestTimeout = requestTimeout;
    this.ticker = ticker;
    this.bound = bound;
    this.overall = overall;
    this.counter = counter;
  }

  /**
   * A caller's deadline, in {@link #ticker} nanoseconds: no retry starts at or after {@code retryUntil};
   * no request runs past {@code hardEnd}, one request timeout later, so the request started last can
   * finish.
   */
  private record Bound(Duration maxWait, long retryUntil, long hardEnd) {}

  /**
   * This transport with every later request bounded by {@code maxWait} from now (see {@link
   * S3Client#within}); an already bounded transport keeps the earlier of the two deadlines.
   */
  S3Transport within(Duration maxWait) {
    long until = ticker.getAsLong() + maxWait.toNanos();
    Bound b = new Bound(maxWait, until, until + requestTimeout.toNanos());
    if (bound != null && bound.retryUntil - until <= 0) {
      b = bound;
    }
    return new S3Transport(http, addressing, region, credentials, signer, retry, sleeper, requestTimeout, ticker, b,
        overall, counter);
  }

  /** One request as the operations describe it. */
  record Call(String method, String bucket, String key, Map<String, String> query,
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
  record Reply(int status, HttpHeaders headers, byte[] body, InputStream stream, int attempts) {}

  /**
   * Reads a 2xx reply's body as it arrives ({@code body} ends where the reply does, and fails with a
   * {@link MalformedReplyException} past the call's size bound). A {@link MalformedReplyException} is
   * the reply's fault and ends the call; any other {@link IOException} is a failed read and is retried
   * like a failed send.
   */
  interface BodyReader<T> {
    T read(InputStream body) throws IOException;
  }

  Reply exchange(Call c) throws IOException {
    return exchange(c, null, value -> { });
  }

  /** Sends {@code c} and returns what {@code reader} makes of the 2xx reply's body, read as it arrives. */
  <T> T exchange(Call c, BodyReader<T> reader) throws IOException {
    List<T> value = new ArrayList<>(1);
    exchange(c, reader, value::add);
    return value.get(0);
  }

  /**
   * Sends {@code c} and hands what {@code reader} makes of the 2xx reply's body to {@code sink}; returns
   * the reply, whose headers a caller reads beside the body's value (a listing's {@code Date}).
   */
  <T> Reply exchange(Call c, BodyReader<T> reader, Consumer<T> sink) throws IOException {
    URI uri = addressing.uri(c.bucket, c.key, c.query);
    for (int attempt = 1; ; attempt++) {
      // Outside the retry: a credentials failure is the provider's to retry, and is reported as it is.
      HttpRequest request = request(c, uri, attempt);
      HttpResponse<InputStream> response;
      counter.sent(c.method, c.key, c.query);
      try {
        response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
      } catch (IOException e) {
        rethrowLocalBodyFailure(e);
        retryOrThrow(c, attempt, new IOException(describe(c) + " failed: " + reason(e, c, request)
            + " (after " + attempt + (attempt == 1 ? " attempt)" : " attempts)"), e));
        continue;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted during " + describe(c));
      }
      int status = response.statusCode();
      boolean success = status >= 200 && status < 300;
      if (success && c.stream) {
        return new Reply(status, response.headers(), null,
            BodyDeadline.wrap(response.body(), bodyDeadline(response.headers(), 0), describe(c)), attempt);
      }
      if (success && reader != null) {
        T value;
        try (InputStream in = BodyDeadline.wrap(response.body(), bodyDeadline(response.headers(), c.maxBody),
            describe(c))) {
          value = reader.read(new Bounded(in, c.maxBody, describe(c)));
        } catch (MalformedReplyException e) {
          throw e;
        } catch (IOException e) {
          retryOrThrow(c, attempt, new IOException(describe(c) + " failed reading the reply: "
              + reason(e, c, request) + " (after " + attempt + " attempts)", e));
          continue;
        }
        sink.accept(value);
        return new Reply(status, response.headers(), null, null, attempt);
      }
      byte[] body;
      int max = success || c.accept.contains(status) ? c.maxBody : MAX_ERROR_BODY;
      try {
        body = readBounded(BodyDeadline.wrap(response.body(), bodyDeadline(response.headers(), max), describe(c)),
            max, !success && !c.accept.contains(status), c);
      } catch (MalformedReplyException e) {
        throw e;
      } catch (IOException e) {
        retryOrThrow(c, attempt, new IOException(describe(c) + " failed reading the reply: "
            + reason(e, c, request) + " (after " + attempt + " attempts)", e));
        continue;
      }
      if ((success && !(c.errorIn200 && S3Xml.isError(body))) || c.accept.contains(status)) {
        return new Reply(status, response.headers(), body, null, attempt);
      }
      S3Exception error = error(c, status, response.headers(), body);
      if (!error.isRetryable()) {
        throw error;
      }
      retryOrThrow(c, attempt, error);
    }
  }

  /**
   * Returns after the backoff before attempt {@code attempt + 1}, or throws: {@code failure} when the
   * attempts are used up, {@link DeadlineExceededException} when the retry would start at or after the
   * caller's deadline (a retry that cannot start in time is never begun).
   */
  private void retryOrThrow(Call c, int attempt, IOException failure) throws IOException {
    if (attempt >= retry.maxAttempts()) {
      throw failure;
    }
    Duration delay = retry.delayBefore(attempt + 1);
    if (overall != null && overall.nanosLeft() - delay.toNanos() <= 0) {
      throw exceeded(c, overall.describe(), attempt, failure, overall);
    }
    if (bound != null && bound.retryUntil - ticker.getAsLong() - delay.toNanos() <= 0) {
      throw exceeded(c, "the " + Deadline.format(bound.maxWait) + " deadline", attempt, failure, null);
    }
    try {
      sleeper.sleep(delay);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while backing off an S3 retry");
    }
  }

  /**
   * {@code wanted}, capped at the time left before the earliest hard end (the overall deadline, or one
   * request timeout past a {@link #within} deadline); throws when none is left, so a request is never
   * sent that could only time out.
   */
  private Duration capped(Duration wanted, Call c, int attempt) throws DeadlineExceededException {
    long left = hardLeft();
    if (left <= 0) {
      throw overall != null && overall.nanosLeft() <= 0
          ? exceeded(c, overall.describe(), attempt - 1, null, overall)
          : exceeded(c, "the " + Deadline.format(bound.maxWait) + " deadline", attempt - 1, null, null);
    }
    return left < wanted.toNanos() ? Duration.ofNanos(left) : wanted;
  }

  /** Nanoseconds before the earliest hard end; {@link Long#MAX_VALUE} when nothing bounds this transport. */
  private long hardLeft() {
    long left = Long.MAX_VALUE;
    if (bound != null) {
      left = bound.hardEnd - ticker.getAsLong();
    }
    if (overall != null) {
      left = Math.min(left, overall.nanosLeft());
    }
    return left;
  }

  private DeadlineExceededException exceeded(Call c, String deadline, int attempts, IOException last, Deadline which) {
    return new DeadlineExceededException(describe(c) + ": " + deadline + " ran out after " + attempts
        + (attempts == 1 ? " attempt" : " attempts")
        + (last == null ? ", no time left to send it" : "; last: " + lastOf(c, last)), attempts, last, which);
  }

  /** What the last attempt met, without the request and the attempt count the message already has. */
  private String lastOf(Call c, IOException last) {
    String m = String.valueOf(last.getMessage());
    String request = describe(c) + " ";
    if (m.startsWith(request)) {
      m = m.substring(request.length());
      m = m.startsWith("failed: ") ? m.substring("failed: ".length()) : m;
    }
    return m.replaceFirst(" \\(after \\d+ attempts?\\)$", "");
  }

  /**
   * How long a reply's body may take: the request timeout plus a second per MiB of its Content-Length
   * (else of {@code unknownLength}), the same allowance uploads get.
   */
  private Duration bodyDeadline(HttpHeaders headers, long unknownLength) {
    long length = headers.firstValueAsLong("Content-Length").orElse(unknownLength);
    Duration wanted = BodyDeadline.forBytes(requestTimeout, length);
    // Past the hard end the body gets the least positive wait, so its read fails at once, naming the request.
    long left = Math.max(1, hardLeft());
    return left < wanted.toNanos() ? Duration.ofNanos(left) : wanted;
  }

  private HttpRequest request(Call c, URI uri, int attempt) throws IOException {
    // A refresh in progress in another thread, or one this request starts, takes no longer than this
    // request may: a credential endpoint that never answers is cut where the request would be.
    AwsCredentials creds;
    try {
      creds = credentials.resolve(capped(requestTimeout, c, attempt));
    } catch (DeadlineExceededException e) {
      if (overall == null || !overall.passed()) {
        throw e;
      }
      throw new DeadlineExceededException(describe(c) + ": " + overall.describe() + " ran out while fetching"
          + " credentials: " + e.getMessage(), attempt - 1, e, overall);
    }
    Map<String, List<String>> toSign = new LinkedHashMap<>();
    c.headers.forEach((name, value) -> toSign.put(name, List.of(value)));
    c.body.headers().forEach((name, value) -> toSign.put(name, List.of(value)));
    String payloadSha = c.body.length() == 0 ? SigV4Signer.EMPTY_SHA256 : c.body.payloadHash();
    Map<String, String> added = signer.sign(c.method, uri, toSign, payloadSha, creds, region, "s3");
    HttpRequest.Builder b = HttpRequest.newBuilder(uri)
        .timeout(capped(timeout(c), c, attempt))
        .method(c.method, c.body.publisher());
    c.headers.forEach(b::header);
    c.body.headers().forEach(b::header);
    added.forEach(b::header);
    return b.build();
  }

  /** How long {@code c} may wait for its reply's headers: the request timeout, plus a second per MiB sent. */
  private Duration timeout(Call c) {
    return requestTimeout.plusSeconds(c.body.length() / MIN_UPLOAD_BYTES_PER_SECOND);
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
          return Arrays.copyOf(bytes, max);
        }
        throw new MalformedReplyException(describe(c), "reply larger than " + max + " bytes");
      }
      return bytes;
    }
  }

  /** A reply body that fails, naming the request, once it has given more than {@code max} bytes. */
  private static final class Bounded extends FilterInputStream {
    private final int max;
    private final String what;
    private long count;

    Bounded(InputStream in, int max, String what) {
      super(in);
      this.max = max;
      this.what = what;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        counted(1);
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = in.read(b, off, len);
      if (n > 0) {
        counted(n);
      }
      return n;
    }

    private void counted(int n) throws MalformedReplyException {
      count += n;
      if (count > max) {
        throw new MalformedReplyException(what, "reply larger than " + max + " bytes");
      }
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
    return new S3Exception(status, code, message, requestId, c.method, addressing.endpoint(),
        S3Addressing.resource(c.bucket, c.key));
  }

  private String describe(Call c) {
    return addressing.describe(c.method, c.bucket, c.key, c.query);
  }

  /** Why {@code e} ended {@code request}: which wait ran out, or what failed. */
  private String reason(IOException e, Call c, HttpRequest request) {
    if (e instanceof ConnectException) {
      // java.net.http reports a refused connection with no message; say which endpoint refused.
      return "connection refused to " + addressing.endpoint();
    }
    if (e instanceof HttpConnectTimeoutException) {
      // The request's timeout covers the connect too: name whichever of the two was shorter.
      Duration used = shorter(http.connectTimeout().orElse(null), request.timeout().orElse(null));
      return "connect timeout: no connection to " + addressing.endpoint()
          + (used == null ? "" : " within " + Deadline.format(used));
    }
    if (e instanceof HttpTimeoutException && !(e instanceof BodyDeadline.Expired)) {
      Duration used = request.timeout().orElse(timeout(c));
      return used.compareTo(timeout(c)) < 0
          ? "no reply within " + Deadline.format(used) + ", what was left of the deadline"
          : "read timeout: no reply within " + Deadline.format(used);
    }
    if (e instanceof BodyDeadline.Expired) {
      return "read timeout: " + S3Exception.oneLine(e.getMessage());
    }
    String m = e.getMessage();
    String name = e.getClass().getSimpleName();
    return m == null || m.isBlank() ? name : name + ": " + S3Exception.oneLine(m);
  }

  private static Duration shorter(Duration a, Duration b) {
    return a == null ? b : b == null || a.compareTo(b) <= 0 ? a : b;
  }
}
