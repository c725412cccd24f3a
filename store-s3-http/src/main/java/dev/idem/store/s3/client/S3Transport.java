package dev.idem.store.s3.client;

import dev.idem.store.s3.auth.AwsCredentials;
import dev.idem.store.s3.auth.CredentialsProvider;
import dev.idem.store.s3.auth.SigV4Signer;
import dev.idem.store.s3.http.BodyDeadline;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Sends one {@link S3Client} request: signs, sends, retries and maps errors, the second to fourth steps
 * of the client's protocol.
 *
 * <ol>
 *   <li>Resolve credentials (per attempt, so refreshed temporary credentials are used) and sign: the
 *       payload's SHA-256 is signed in {@code x-amz-content-sha256}; bodies are streamed from their
 *       source on every attempt, never buffered whole ({@link RequestBody}). Uploads get one extra
 *       second of request timeout per MiB of body.
 *   <li>Send. The headers must arrive within the request timeout, and the body, buffered or streamed,
 *       within that timeout plus a second per MiB of its length ({@link BodyDeadline}); a body that
 *       stalls fails with {@link java.net.http.HttpTimeoutException} naming the request.
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

  S3Transport(HttpClient http, S3Addressing addressing, String region, CredentialsProvider credentials,
      SigV4Signer signer, RetryPolicy retry, Sleeper sleeper, Duration requestTimeout) {
    this.http = http;
    this.addressing = addressing;
    this.region = region;
    this.credentials = credentials;
    this.signer = signer;
    this.retry = retry;
    this.sleeper = sleeper;
    this.requestTimeout = requestTimeout;
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

  Reply exchange(Call c) throws IOException {
    URI uri = addressing.uri(c.bucket, c.key, c.query);
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
        throw new IOException(describe(c) + " failed: " + reason(e)
            + " (after " + attempt + (attempt == 1 ? " attempt)" : " attempts)"), e);
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
      byte[] body;
      int max = success || c.accept.contains(status) ? c.maxBody : MAX_ERROR_BODY;
      try {
        body = readBounded(BodyDeadline.wrap(response.body(), bodyDeadline(response.headers(), max), describe(c)),
            max, !success && !c.accept.contains(status), c);
      } catch (MalformedReplyException e) {
        throw e;
      } catch (IOException e) {
        if (attempt < retry.maxAttempts()) {
          backoff(attempt + 1);
          continue;
        }
        throw new IOException(describe(c) + " failed reading the reply: "
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

  /**
   * How long a reply's body may take: the request timeout plus a second per MiB of its Content-Length
   * (else of {@code unknownLength}), the same allowance uploads get.
   */
  private Duration bodyDeadline(HttpHeaders headers, long unknownLength) {
    long length = headers.firstValueAsLong("Content-Length").orElse(unknownLength);
    return BodyDeadline.forBytes(requestTimeout, length);
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
          return Arrays.copyOf(bytes, max);
        }
        throw new MalformedReplyException(describe(c), "reply larger than " + max + " bytes");
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
    return new S3Exception(status, code, message, requestId, c.method, addressing.endpoint(),
        S3Addressing.resource(c.bucket, c.key));
  }

  private String describe(Call c) {
    return addressing.describe(c.method, c.bucket, c.key, c.query);
  }

  private String reason(IOException e) {
    if (e instanceof ConnectException) {
      // java.net.http reports a refused connection with no message; say which endpoint refused.
      return "connection refused to " + addressing.endpoint();
    }
    String m = e.getMessage();
    String name = e.getClass().getSimpleName();
    return m == null || m.isBlank() ? name : name + ": " + S3Exception.oneLine(m);
  }
}
