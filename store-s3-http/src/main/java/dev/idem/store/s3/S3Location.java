package dev.idem.store.s3;

import dev.idem.core.Names;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where an {@link S3ObjectStore} keeps its objects: a bucket, a key prefix inside it, and how to reach
 * the bucket (endpoint, signing region, path-style or virtual-hosted addressing).
 *
 * <p>Parsed from a store URI and the standard AWS environment ({@link #parse(String, Map)}):
 *
 * <pre>
 * s3://BUCKET[/PREFIX][?region=REGION&amp;addressing=path|virtual]
 * </pre>
 *
 * <ul>
 *   <li>Endpoint: {@code AWS_ENDPOINT_URL_S3}, else {@code AWS_ENDPOINT_URL}, else AWS ({@code
 *       https://s3.REGION.amazonaws.com}).
 *   <li>Region: the URI's {@code region}, else {@code AWS_REGION}, else {@code AWS_DEFAULT_REGION}, else
 *       {@code us-east-1}.
 *   <li>Addressing: the URI's {@code addressing}; by default path-style when the endpoint is overridden
 *       (MinIO, Ceph RGW and S3Proxy usually have no wildcard DNS) and virtual-hosted on AWS.
 * </ul>
 *
 * The prefix is normalised to {@code ""} or {@code "a/b/"} (one trailing slash), and every segment must
 * be a safe key segment, so the store's keys can never escape it.
 *
 * @param bucket the bucket name
 * @param prefix {@code ""} or a key prefix ending in {@code /}
 * @param endpoint the S3 endpoint
 * @param region the signing region
 * @param pathStyle whether requests address the bucket in the path rather than the host name
 */
public record S3Location(String bucket, String prefix, URI endpoint, String region, boolean pathStyle) {
  /** The region used when neither the URI nor the environment names one. */
  public static final String DEFAULT_REGION = "us-east-1";

  private static final Pattern BUCKET = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{1,254}");
  private static final Pattern REGION = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");

  public S3Location {
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(region, "region");
    if (!BUCKET.matcher(bucket).matches()) {
      throw new IllegalArgumentException(
          "bucket name must be 2-255 characters of [A-Za-z0-9._-] starting with a letter or digit, was \""
              + bucket + "\"");
    }
    if (!prefix.isEmpty()) {
      if (!prefix.endsWith("/")) {
        throw new IllegalArgumentException("prefix must be empty or end with '/', was \"" + prefix + "\"");
      }
      Names.requireSafeKey(prefix.substring(0, prefix.length() - 1));
    }
    if (!REGION.matcher(region).matches()) {
      throw new IllegalArgumentException("region must look like us-east-1, was \"" + region + "\"");
    }
    String scheme = endpoint.getScheme() == null ? "" : endpoint.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || endpoint.getHost() == null
        || endpoint.getRawQuery() != null || endpoint.getRawFragment() != null || endpoint.getRawUserInfo() != null) {
      throw new IllegalArgumentException(
          "S3 endpoint must be http(s)://host[:port][/path] without user info, query or fragment, was " + endpoint);
    }
  }

  /** Parses {@code uri} with the process environment. */
  public static S3Location parse(String uri) {
    return parse(uri, System.getenv());
  }

  /**
   * Parses a store URI ({@code s3://bucket/prefix}) with endpoint and region taken from {@code env}.
   *
   * @throws IllegalArgumentException with a one-line reason when the URI, the bucket, the prefix, a
   *     query parameter, the region or the endpoint is invalid
   */
  public static S3Location parse(String uri, Map<String, String> env) {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(env, "env");
    if (!uri.startsWith("s3://")) {
      throw new IllegalArgumentException("an S3 store URI starts with s3://, was \"" + uri + "\"");
    }
    String rest = uri.substring("s3://".length());
    Map<String, String> query = new LinkedHashMap<>();
    int q = rest.indexOf('?');
    if (q >= 0) {
      for (String pair : rest.substring(q + 1).split("&")) {
        int eq = pair.indexOf('=');
        if (pair.isEmpty() || eq <= 0) {
          throw new IllegalArgumentException("bad query parameter \"" + pair + "\" in " + uri);
        }
        String name = pair.substring(0, eq);
        if (!name.equals("region") && !name.equals("addressing")) {
          throw new IllegalArgumentException(
              "unknown parameter \"" + name + "\" in " + uri + " (known: region, addressing)");
        }
        query.put(name, pair.substring(eq + 1));
      }
      rest = rest.substring(0, q);
    }
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    String prefix = slash < 0 ? "" : stripSlashes(rest.substring(slash + 1));
    if (bucket.isEmpty()) {
      throw new IllegalArgumentException("no bucket in " + uri);
    }
    if (!prefix.isEmpty()) {
      Names.requireSafeKey(prefix);
      prefix = prefix + "/";
    }
    String region = firstSet(query.get("region"), env.get("AWS_REGION"), env.get("AWS_DEFAULT_REGION"), DEFAULT_REGION);
    String override = firstSet(env.get("AWS_ENDPOINT_URL_S3"), env.get("AWS_ENDPOINT_URL"), null, null);
    URI endpoint = override == null ? defaultEndpoint(region) : endpoint(override);
    boolean pathStyle = override != null;
    String addressing = query.get("addressing");
    if (addressing != null) {
      if (!addressing.equals("path") && !addressing.equals("virtual")) {
        throw new IllegalArgumentException("addressing must be path or virtual, was \"" + addressing + "\"");
      }
      pathStyle = addressing.equals("path");
    }
    return new S3Location(bucket, prefix, endpoint, region, pathStyle);
  }

  /** AWS's regional endpoint, {@code https://s3.REGION.amazonaws.com}. */
  public static URI defaultEndpoint(String region) {
    return URI.create("https://s3." + region + ".amazonaws.com");
  }

  /** The same location reached through another endpoint. */
  public S3Location withEndpoint(URI newEndpoint, boolean newPathStyle) {
    return new S3Location(bucket, prefix, newEndpoint, region, newPathStyle);
  }

  /** The same bucket with {@code sub} appended to the prefix ({@code sub} is one or more safe segments). */
  public S3Location resolve(String sub) {
    String s = stripSlashes(sub);
    Names.requireSafeKey(s);
    return new S3Location(bucket, prefix + s + "/", endpoint, region, pathStyle);
  }

  /** Whether the endpoint is AWS's default for the region (not an override). */
  public boolean isAws() {
    return endpoint.equals(defaultEndpoint(region));
  }

  /** {@code s3://bucket/prefix}, the form {@link #parse} reads (without the environment parts). */
  @Override
  public String toString() {
    return "s3://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix.substring(0, prefix.length() - 1));
  }

  private static URI endpoint(String s) {
    try {
      URI u = new URI(s.strip());
      if (u.getHost() == null) {
        throw new IllegalArgumentException("endpoint URL has no host: \"" + s + "\" (expected http(s)://host[:port])");
      }
      return u;
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("endpoint URL is not a URL: \"" + s + "\"", e);
    }
  }

  private static String stripSlashes(String s) {
    int start = 0;
    int end = s.length();
    while (start < end && s.charAt(start) == '/') {
      start++;
    }
    while (end > start && s.charAt(end - 1) == '/') {
      end--;
    }
    return s.substring(start, end);
  }

  private static String firstSet(String a, String b, String c, String fallback) {
    for (String s : new String[] {a, b, c}) {
      if (s != null && !s.isBlank()) {
        return s.strip();
      }
    }
    return fallback;
  }
}
