package dev.idem.store.s3.internal.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.idem.store.s3.AwsCredentials;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs an HTTP request with AWS Signature Version 4 in the {@code Authorization} header.
 *
 * <p>Exists because the S3 store talks to S3 over plain {@code java.net.http} and every request
 * must carry a signature the server recomputes byte for byte. The spec is the S3 API
 * Reference, "Authenticating Requests: Using the Authorization Header (AWS Signature Version
 * 4)", whose steps map one-to-one onto the static methods here:
 *
 * <ol>
 *   <li>Task 1, canonical request: {@link #canonicalUri}, {@link #canonicalQueryString},
 *       {@link #canonicalHeaders}, {@link #signedHeaders}, {@link #canonicalRequest};
 *   <li>Task 2, string to sign: {@link #stringToSign} (with {@link #amzDate} and
 *       {@link #credentialScope});
 *   <li>Task 3, signature: {@link #signingKey}, {@link #signature};
 *   <li>the {@code Authorization} header itself: {@link #authorization}.
 * </ol>
 *
 * <p>Guarantees: an instance is immutable apart from a bounded, thread-safe cache of derived
 * signing keys, so one instance may sign from many threads. Time comes only from the injected
 * clock, formatted in UTC as {@code yyyyMMdd'T'HHmmss'Z'}. The {@code Host} header is signed
 * exactly as {@code java.net.http} will send it (the URI's host, plus the port only when it is
 * not the scheme's default) and is never returned, because {@code java.net.http} forbids
 * setting it. Signing keys and secrets are never logged, printed or exposed by this class.
 *
 * <p>S3 differs from other services in one step: the path is URI-encoded once, not twice, and
 * is not normalised ({@code ..} and {@code //} are kept), so {@link #canonicalUri} is S3-only.
 */
public final class SigV4Signer {

  /** The payload hash that tells S3 the body is not part of the signature. */
  public static final String UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";

  /** Lowercase hex SHA-256 of the empty body. */
  public static final String EMPTY_SHA256 =
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

  /** The only algorithm this signer produces. */
  static final String ALGORITHM = "AWS4-HMAC-SHA256";

  private static final DateTimeFormatter AMZ_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT)
          .withZone(ZoneOffset.UTC);

  /**
   * Headers left out of the signature: proxies and the HTTP client may add, drop or rewrite
   * them ({@code content-length} is computed by {@code java.net.http}, not by the caller).
   */
  private static final Set<String> UNSIGNED_HEADERS =
      Set.of("user-agent", "expect", "content-length", "connection", "x-amzn-trace-id");

  /** Headers this signer computes; a caller-supplied copy would be signed twice. */
  private static final Set<String> SIGNER_HEADERS =
      Set.of("host", "authorization", "x-amz-date", "x-amz-content-sha256",
          "x-amz-security-token");

  private static final Pattern HEX_SHA256 = Pattern.compile("[0-9a-f]{64}");
  private static final Pattern METHOD = Pattern.compile("[A-Z]+");
  private static final Pattern SCOPE_PART = Pattern.compile("[A-Za-z0-9._-]+");
  private static final Pattern SCOPE_DATE = Pattern.compile("[0-9]{8}");
  private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
  private static final Pattern LINEAR_WHITESPACE = Pattern.compile("[ \\t]+");
  private static final HexFormat HEX = HexFormat.of();
  private static final char[] UPPER_HEX = "0123456789ABCDEF".toCharArray();

  private final Clock clock;

  /**
   * Derived keys change once a day per scope, so a handful of entries covers a process;
   * maintenance runs on the caller's thread so no pool thread ever holds a key.
   */
  private final Cache<KeyScope, byte[]> signingKeys =
      Caffeine.newBuilder().maximumSize(16).executor(Runnable::run).build();

  /**
   * Creates a signer.
   *
   * @param clock the source of the request time; use a UTC clock
   */
  public SigV4Signer(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Computes the headers to add to a request so that S3 accepts it.
   *
   * @param method the HTTP method in upper case, such as {@code GET}
   * @param uri the absolute request URI, exactly as it will be sent; its raw path and raw
   *     query are canonicalised (see {@link #canonicalUri} and {@link #canonicalQueryString})
   * @param headers every other header the caller will send (names case-insensitive, values
   *     may repeat); all are signed except {@code user-agent}, {@code expect},
   *     {@code content-length}, {@code connection} and {@code x-amzn-trace-id}
   * @param payloadSha256Hex lowercase hex SHA-256 of the body, or {@link #UNSIGNED_PAYLOAD}
   * @param credentials the credentials to sign with
   * @param region the signing region, such as {@code us-east-1}
   * @param service the signing service, {@code s3} for S3
   * @return an unmodifiable map with {@code Authorization}, {@code x-amz-date},
   *     {@code x-amz-content-sha256} and, when the credentials carry a session token,
   *     {@code x-amz-security-token}
   * @throws IllegalArgumentException if an argument is malformed, or {@code headers} holds a
   *     header this signer sets ({@code host}, {@code authorization}, {@code x-amz-date},
   *     {@code x-amz-content-sha256}, {@code x-amz-security-token})
   */
  public Map<String, String> sign(
      String method,
      URI uri,
      Map<String, List<String>> headers,
      String payloadSha256Hex,
      AwsCredentials credentials,
      String region,
      String service) {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(headers, "headers");
    Objects.requireNonNull(payloadSha256Hex, "payloadSha256Hex");
    Objects.requireNonNull(credentials, "credentials");
    requireArgument(METHOD.matcher(method).matches(),
        "method must be upper-case letters, was '%s'", method);
    requirePayloadHash(payloadSha256Hex);
    requireScopePart(region, "region");
    requireScopePart(service, "service");

    Map<String, List<String>> signed = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> header : headers.entrySet()) {
      String name = Objects.requireNonNull(header.getKey(), "header name");
      String lower = name.toLowerCase(Locale.ROOT);
      requireArgument(!SIGNER_HEADERS.contains(lower),
          "header '%s' is computed by the signer; do not pass it", name);
      if (!UNSIGNED_HEADERS.contains(lower)) {
        signed.computeIfAbsent(lower, k -> new ArrayList<>())
            .addAll(Objects.requireNonNull(header.getValue(), "header values"));
      }
    }
    String amzDate = amzDate(clock.instant());
    String date = amzDate.substring(0, 8);
    signed.put("host", List.of(hostHeader(uri)));
    signed.put("x-amz-content-sha256", List.of(payloadSha256Hex));
    signed.put("x-amz-date", List.of(amzDate));
    if (credentials.sessionToken() != null) {
      signed.put("x-amz-security-token", List.of(credentials.sessionToken()));
    }

    String signedHeaders = signedHeaders(signed);
    String canonicalRequest = canonicalRequest(
        method,
        canonicalUri(uri.getRawPath()),
        canonicalQueryString(uri.getRawQuery()),
        canonicalHeaders(signed),
        signedHeaders,
        payloadSha256Hex);
    String scope = credentialScope(date, region, service);
    String stringToSign = stringToSign(amzDate, scope, canonicalRequest);
    byte[] key = signingKeys.get(
        new KeyScope(credentials.secretAccessKey(), date, region, service),
        k -> signingKey(k.secret(), k.date(), k.region(), k.service()));
    String signature = signature(key, stringToSign);

    Map<String, String> added = new LinkedHashMap<>();
    added.put("Authorization",
        authorization(credentials.accessKeyId(), scope, signedHeaders, signature));
    added.put("x-amz-date", amzDate);
    added.put("x-amz-content-sha256", payloadSha256Hex);
    if (credentials.sessionToken() != null) {
      added.put("x-amz-security-token", credentials.sessionToken());
    }
    return Collections.unmodifiableMap(added);
  }

  /**
   * The {@code Host} value {@code java.net.http} sends for {@code uri}: the host as written,
   * with {@code :port} only when the port is given and is not the scheme's default.
   *
   * @throws IllegalArgumentException if the URI is not absolute http(s) with a host
   */
  static String hostHeader(URI uri) {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    requireArgument(scheme.equals("http") || scheme.equals("https"),
        "URI must be absolute http or https, was '%s'", uri);
    requireArgument(uri.getHost() != null, "URI has no host (or an invalid one): '%s'", uri);
    int port = uri.getPort();
    boolean defaultPort = port == -1 || port == (scheme.equals("https") ? 443 : 80);
    return defaultPort ? uri.getHost() : uri.getHost() + ":" + port;
  }

  // ---- Task 1: canonical request ----

  /**
   * Canonical URI (S3 API Reference, SigV4 "Task 1: Create a Canonical Request",
   * {@code CanonicalURI}). The raw path is percent-decoded to bytes and every byte outside
   * the RFC 3986 unreserved set ({@code A-Z a-z 0-9 - . _ ~}) is encoded as {@code %XX} in
   * upper-case hex, keeping {@code /}. Unlike other services S3 encodes once and does not
   * normalise the path. An empty path is {@code /}.
   *
   * @param rawPath the URI's raw (still encoded) path, possibly with unencoded non-ASCII
   * @throws IllegalArgumentException on a malformed {@code %} escape
   */
  static String canonicalUri(String rawPath) {
    if (rawPath == null || rawPath.isEmpty()) {
      return "/";
    }
    return encodeBytes(percentDecode(rawPath, "path"), false);
  }

  /**
   * Canonical query string (S3 API Reference, SigV4 "Task 1", {@code CanonicalQueryString}).
   * Each {@code name=value} pair is split at the first {@code =} (a pair without one has an
   * empty value and becomes {@code name=}), decoded, re-encoded with {@link #uriEncode}
   * (encoding {@code /} too), and the pairs are sorted by encoded name, then encoded value.
   * A {@code +} is a literal plus and becomes {@code %2B}; build query strings with
   * {@link #uriEncode} so spaces are {@code %20} on the wire as well.
   *
   * @param rawQuery the URI's raw query, or {@code null}
   * @throws IllegalArgumentException on a malformed {@code %} escape
   */
  static String canonicalQueryString(String rawQuery) {
    if (rawQuery == null || rawQuery.isEmpty()) {
      return "";
    }
    List<String[]> pairs = new ArrayList<>();
    for (String pair : rawQuery.split("&", -1)) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      pairs.add(new String[] {
        encodeBytes(percentDecode(name, "query"), true),
        encodeBytes(percentDecode(value, "query"), true)
      });
    }
    pairs.sort((a, b) -> {
      int byName = a[0].compareTo(b[0]);
      return byName != 0 ? byName : a[1].compareTo(b[1]);
    });
    StringBuilder out = new StringBuilder();
    for (String[] pair : pairs) {
      if (out.length() > 0) {
        out.append('&');
      }
      out.append(pair[0]).append('=').append(pair[1]);
    }
    return out.toString();
  }

  /**
   * Canonical headers (S3 API Reference, SigV4 "Task 1", {@code CanonicalHeaders}): one
   * {@code name:value\n} line per header, names in lower case and sorted, each value trimmed
   * with inner runs of spaces and tabs collapsed to one space, and the values of a repeated
   * header (or of names differing only in case) joined by {@code ,} in the order given.
   *
   * @param headers every header to sign, including {@code host} and the {@code x-amz-*} ones
   * @throws IllegalArgumentException if a name is not an HTTP token
   */
  static String canonicalHeaders(Map<String, List<String>> headers) {
    StringBuilder out = new StringBuilder();
    normalizeHeaders(headers).forEach(
        (name, value) -> out.append(name).append(':').append(value).append('\n'));
    return out.toString();
  }

  /**
   * Signed headers (S3 API Reference, SigV4 "Task 1", {@code SignedHeaders}): the lower-case
   * names of {@link #canonicalHeaders}, sorted and joined by {@code ;}.
   */
  static String signedHeaders(Map<String, List<String>> headers) {
    return String.join(";", normalizeHeaders(headers).keySet());
  }

  /**
   * Canonical request (S3 API Reference, SigV4 "Task 1: Create a Canonical Request"): the
   * six parts joined by {@code \n}. {@code canonicalHeaders} already ends in {@code \n}, so
   * the result has the blank line the spec shows.
   */
  static String canonicalRequest(
      String method,
      String canonicalUri,
      String canonicalQueryString,
      String canonicalHeaders,
      String signedHeaders,
      String payloadHash) {
    return String.join("\n",
        method, canonicalUri, canonicalQueryString, canonicalHeaders, signedHeaders,
        payloadHash);
  }

  // ---- Task 2: string to sign ----

  /**
   * The request timestamp (S3 API Reference, SigV4 "Task 2", {@code TimeStamp} and the
   * {@code x-amz-date} header): ISO 8601 basic format {@code yyyyMMdd'T'HHmmss'Z'} in UTC.
   */
  static String amzDate(Instant time) {
    return AMZ_DATE.format(time);
  }

  /**
   * Credential scope (S3 API Reference, SigV4 "Task 2", {@code Scope}):
   * {@code yyyyMMdd/region/service/aws4_request}.
   */
  static String credentialScope(String date, String region, String service) {
    requireArgument(SCOPE_DATE.matcher(date).matches(), "date must be yyyyMMdd");
    return date + "/" + region + "/" + service + "/aws4_request";
  }

  /**
   * String to sign (S3 API Reference, SigV4 "Task 2: Create a String to Sign"):
   * {@code AWS4-HMAC-SHA256\n<amzDate>\n<scope>\n<hex(sha256(canonicalRequest))>}.
   */
  static String stringToSign(String amzDate, String scope, String canonicalRequest) {
    return ALGORITHM + "\n" + amzDate + "\n" + scope + "\n"
        + sha256Hex(canonicalRequest.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * String to sign from the request time (S3 API Reference, SigV4 "Task 2"); the scope date
   * is the UTC date of {@code time}.
   */
  static String stringToSign(Instant time, String region, String service,
      String canonicalRequest) {
    String amzDate = amzDate(time);
    return stringToSign(amzDate, credentialScope(amzDate.substring(0, 8), region, service),
        canonicalRequest);
  }

  // ---- Task 3: signature ----

  /**
   * Signing key (S3 API Reference, SigV4 "Task 3: Calculate Signature", {@code SigningKey}):
   * {@code HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request")}.
   * Uncached; {@link #sign} keeps derived keys in a small cache per (secret, date, region,
   * service). The result is key material: never print or log it.
   *
   * @param date the scope date, {@code yyyyMMdd}
   */
  static byte[] signingKey(String secretAccessKey, String date, String region,
      String service) {
    requireArgument(SCOPE_DATE.matcher(date).matches(), "date must be yyyyMMdd");
    byte[] kSecret = ("AWS4" + secretAccessKey).getBytes(StandardCharsets.UTF_8);
    byte[] kDate = hmacSha256(kSecret, date);
    byte[] kRegion = hmacSha256(kDate, region);
    byte[] kService = hmacSha256(kRegion, service);
    return hmacSha256(kService, "aws4_request");
  }

  /**
   * Signature (S3 API Reference, SigV4 "Task 3", {@code Signature}): lowercase hex of
   * {@code HMAC-SHA256(signingKey, stringToSign)}.
   */
  static String signature(byte[] signingKey, String stringToSign) {
    return HEX.formatHex(hmacSha256(signingKey, stringToSign));
  }

  /**
   * The {@code Authorization} header value (S3 API Reference, "Using the Authorization
   * Header"): {@code AWS4-HMAC-SHA256 Credential=<id>/<scope>,SignedHeaders=<h>,Signature=<s>}.
   */
  static String authorization(String accessKeyId, String scope, String signedHeaders,
      String signature) {
    return ALGORITHM + " Credential=" + accessKeyId + "/" + scope
        + ",SignedHeaders=" + signedHeaders + ",Signature=" + signature;
  }

  // ---- encoding helpers, public for the S3 client ----

  /**
   * {@code UriEncode} from the S3 SigV4 spec: the UTF-8 bytes of {@code value}, with every
   * byte outside {@code A-Z a-z 0-9 - . _ ~} written as {@code %XX} (upper-case hex). Use it to
   * build request URIs whose raw form is already canonical: object keys with
   * {@code keepSlash = true}, query names and values with {@code keepSlash = false}.
   *
   * @param value the decoded text
   * @param keepSlash whether {@code /} stays as is (paths) or becomes {@code %2F}
   */
  public static String uriEncode(String value, boolean keepSlash) {
    Objects.requireNonNull(value, "value");
    return encodeBytes(value.getBytes(StandardCharsets.UTF_8), !keepSlash);
  }

  /** Lowercase hex SHA-256 of {@code data}, the form {@code payloadSha256Hex} takes. */
  public static String sha256Hex(byte[] data) {
    Objects.requireNonNull(data, "data");
    try {
      return HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }

  private static String encodeBytes(byte[] bytes, boolean encodeSlash) {
    StringBuilder out = new StringBuilder(bytes.length + 16);
    for (byte b : bytes) {
      int c = b & 0xff;
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
          || c == '-' || c == '.' || c == '_' || c == '~'
          || (c == '/' && !encodeSlash)) {
        out.append((char) c);
      } else {
        out.append('%').append(UPPER_HEX[c >> 4]).append(UPPER_HEX[c & 0xf]);
      }
    }
    return out.toString();
  }

  /**
   * Decodes {@code %XX} escapes to bytes; any other character (including raw non-ASCII that
   * {@link URI}'s multi-argument constructors leave unquoted) contributes its UTF-8 bytes.
   */
  private static byte[] percentDecode(String raw, String part) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
    int i = 0;
    while (i < raw.length()) {
      char c = raw.charAt(i);
      if (c == '%') {
        int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
        int lo = hi >= 0 ? Character.digit(raw.charAt(i + 2), 16) : -1;
        requireArgument(lo >= 0, "malformed %%-escape at index %s of the URI %s", i, part);
        out.write(hi << 4 | lo);
        i += 3;
      } else {
        int cp = raw.codePointAt(i);
        byte[] utf8 = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
        out.write(utf8, 0, utf8.length);
        i += Character.charCount(cp);
      }
    }
    return out.toByteArray();
  }

  private static TreeMap<String, String> normalizeHeaders(Map<String, List<String>> headers) {
    TreeMap<String, String> out = new TreeMap<>();
    for (Map.Entry<String, List<String>> header : headers.entrySet()) {
      String name = header.getKey();
      requireArgument(name != null && HEADER_NAME.matcher(name).matches(),
          "header name is not an HTTP token: '%s'", name);
      for (String value : header.getValue()) {
        String trimmed = LINEAR_WHITESPACE.matcher(
            Objects.requireNonNull(value, "header value").strip()).replaceAll(" ");
        out.merge(name.toLowerCase(Locale.ROOT), trimmed, (a, b) -> a + "," + b);
      }
    }
    return out;
  }

  private static byte[] hmacSha256(byte[] key, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is missing from this JDK", e);
    }
  }

  private static void requirePayloadHash(String hash) {
    requireArgument(hash.equals(UNSIGNED_PAYLOAD) || HEX_SHA256.matcher(hash).matches(),
        "payloadSha256Hex must be 64 lowercase hex digits or %s", UNSIGNED_PAYLOAD);
  }

  private static void requireScopePart(String value, String what) {
    Objects.requireNonNull(value, what);
    requireArgument(SCOPE_PART.matcher(value).matches(),
        "%s must be letters, digits, '.', '_' or '-', was '%s'", what, value);
  }

  private static void requireArgument(boolean condition, String format, Object... args) {
    if (!condition) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, format, args));
    }
  }

  /** Cache key for derived signing keys; {@code toString} leaves the secret out. */
  private record KeyScope(String secret, String date, String region, String service) {
    @Override
    public String toString() {
      return "KeyScope[" + date + "/" + region + "/" + service + "]";
    }
  }
}
