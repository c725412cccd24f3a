package dev.idem.store.s3.internal.client;

import dev.idem.store.s3.internal.auth.SigV4Signer;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Where an {@link S3Client} request goes, and how messages name it: the first step of the client's
 * protocol.
 *
 * <p>The URI is path-style ({@code endpoint/bucket/key}) or virtual-hosted ({@code bucket.host/key});
 * keys are percent-encoded exactly as SigV4 canonicalizes them, so the URI sent is the URI signed.
 * Messages name a request by method, bucket, key and query parameter names; markers, tokens and
 * prefixes are named without their values.
 *
 * <p>Instances are immutable and thread-safe.
 */
final class S3Addressing {
  private static final Pattern DNS_BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

  private final URI endpoint;
  private final String basePath;
  private final boolean pathStyle;

  /** Addressing for {@code endpoint}, already checked by {@link #requireEndpoint}. */
  S3Addressing(URI endpoint, boolean pathStyle) {
    this.endpoint = endpoint;
    String path = endpoint.getRawPath() == null ? "" : endpoint.getRawPath();
    this.basePath = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    this.pathStyle = pathStyle;
  }

  static URI requireEndpoint(URI endpoint) {
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

  URI endpoint() {
    return endpoint;
  }

  boolean pathStyle() {
    return pathStyle;
  }

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

  /** A request as messages name it, e.g. {@code GET bkt?list-type=2&prefix at http://host}. */
  String describe(String method, String bucket, String key, Map<String, String> query) {
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

  static String resource(String bucket, String key) {
    return key == null ? bucket : bucket + "/" + key;
  }
}
