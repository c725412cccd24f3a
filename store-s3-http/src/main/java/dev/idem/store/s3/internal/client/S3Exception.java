package dev.idem.store.s3.internal.client;

import java.io.IOException;
import java.net.URI;
import java.util.Set;

/**
 * An S3 server answered a request with an error: the HTTP status, the S3 error code, the server's
 * message and request id, parsed from the XML error body (HEAD replies carry no body, so they have only
 * a status).
 *
 * <p>Exists so callers can branch on what went wrong ({@link #isCredentialsRejected()}, {@link
 * #isNoSuchBucket()}, {@link #status()}) and so every error reads as one plain line. The message never
 * contains credentials: it is built only from the method, the endpoint, the bucket and key, and the
 * server's code and message (S3 error messages do not echo secrets; the string-to-sign and canonical
 * request that AWS adds to {@code SignatureDoesNotMatch} are deliberately not copied).
 */
public final class S3Exception extends IOException {
  private static final long serialVersionUID = 1L;

  private static final Set<Integer> RETRYABLE_STATUS = Set.of(500, 502, 503, 504);
  private static final Set<String> RETRYABLE_CODES = Set.of(
      "SlowDown", "RequestTimeout", "InternalError", "ServiceUnavailable", "ConditionalRequestConflict",
      "OperationAborted");
  private static final int MAX_SERVER_MESSAGE = 300;

  private final int status;
  private final String code;
  private final String serverMessage;
  private final String requestId;

  /**
   * @param status the HTTP status
   * @param code the S3 error code, or {@code null} when the reply had none (HEAD, a proxy's HTML page)
   * @param serverMessage the server's message, or {@code null}
   * @param requestId the server's request id, or {@code null}
   * @param method the request's HTTP method
   * @param endpoint the endpoint the request went to
   * @param resource {@code bucket} or {@code bucket/key}
   */
  public S3Exception(int status, String code, String serverMessage, String requestId, String method,
      URI endpoint, String resource) {
    super(describe(status, code, serverMessage, requestId, method, endpoint, resource));
    this.status = status;
    this.code = code;
    this.serverMessage = serverMessage;
    this.requestId = requestId;
  }

  public int status() {
    return status;
  }

  /** The S3 error code ({@code NoSuchBucket}, {@code SlowDown}, …) or {@code null}. */
  public String code() {
    return code;
  }

  public String serverMessage() {
    return serverMessage;
  }

  public String requestId() {
    return requestId;
  }

  /** The server refused the signature or did not know the access key. */
  public boolean isCredentialsRejected() {
    return "SignatureDoesNotMatch".equals(code) || "InvalidAccessKeyId".equals(code)
        || "InvalidToken".equals(code) || "ExpiredToken".equals(code)
        || (status == 403 && code == null);
  }

  public boolean isNoSuchBucket() {
    return "NoSuchBucket".equals(code);
  }

  /** Transient: 500/502/503/504, throttling, timeouts and concurrent conditional-write conflicts (409). */
  public boolean isRetryable() {
    return RETRYABLE_STATUS.contains(status) || (code != null && RETRYABLE_CODES.contains(code));
  }

  private static String describe(int status, String code, String serverMessage, String requestId,
      String method, URI endpoint, String resource) {
    String where = method + " " + resource;
    String tail = " (HTTP " + status + (code != null ? " " + code : "")
        + (requestId != null ? ", request id " + oneLine(requestId) : "") + ")";
    String said = serverMessage == null || serverMessage.isBlank() ? "" : ": " + oneLine(serverMessage);
    if ("SignatureDoesNotMatch".equals(code)) {
      return "credentials rejected by " + endpoint + ": the signature does not match, so the secret key "
          + "is wrong for this access key id: check AWS_SECRET_ACCESS_KEY (or the profile's "
          + "aws_secret_access_key) and the clock" + tail;
    }
    if ("InvalidAccessKeyId".equals(code)) {
      return "credentials rejected by " + endpoint + ": the access key id is unknown there: check "
          + "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) and that the endpoint is the "
          + "right one" + tail;
    }
    if ("InvalidToken".equals(code) || "ExpiredToken".equals(code)) {
      return "credentials rejected by " + endpoint + ": the session token is invalid or expired: "
          + "check AWS_SESSION_TOKEN or refresh the temporary credentials" + tail;
    }
    if ("RequestTimeTooSkewed".equals(code)) {
      return "request refused by " + endpoint + ": this machine's clock is too far off the server's"
          + tail;
    }
    if ("NoSuchBucket".equals(code)) {
      return "bucket " + bucketOf(resource) + " does not exist at " + endpoint + " (" + where + ")" + tail;
    }
    if ("AccessDenied".equals(code)) {
      return "access denied by " + endpoint + " for " + where + ": the credentials are valid but lack "
          + "permission (see the IAM actions in the README)" + said + tail;
    }
    if (status == 403 && code == null) {
      return "credentials rejected or access denied by " + endpoint + " for " + where
          + ": the reply carried no error code (HEAD replies never do): check AWS_ACCESS_KEY_ID, "
          + "AWS_SECRET_ACCESS_KEY and the bucket policy" + tail;
    }
    return where + " failed at " + endpoint + said + tail;
  }

  private static String bucketOf(String resource) {
    int slash = resource.indexOf('/');
    return slash < 0 ? resource : resource.substring(0, slash);
  }

  /** Server text reduced to one bounded line, so a hostile reply cannot forge log lines. */
  static String oneLine(String s) {
    StringBuilder b = new StringBuilder(Math.min(s.length(), MAX_SERVER_MESSAGE));
    for (int i = 0; i < s.length() && b.length() < MAX_SERVER_MESSAGE; i++) {
      char c = s.charAt(i);
      b.append(Character.isISOControl(c) ? ' ' : c);
    }
    if (s.length() > MAX_SERVER_MESSAGE) {
      b.append("...");
    }
    return b.toString().strip();
  }
}
