package dev.idem.store.s3.client;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the S3 XML replies the client needs into records, strictly: a required element that is
 * missing, a number that is not one, or a truncated listing without a continuation marker is a {@link
 * MalformedReplyException} naming the request, so a broken or hostile server produces one clear error
 * and never a {@code NullPointerException} or an endless listing loop.
 *
 * <p>Listings are requested with {@code encoding-type=url}, so keys are percent-decoded here (keys may
 * hold characters XML 1.0 cannot carry).
 */
final class S3Xml {
  private S3Xml() {}

  /** The code, message and request id of an {@code <Error>} body; all {@code null} when unreadable. */
  record ErrorBody(String code, String message, String requestId) {
    static final ErrorBody NONE = new ErrorBody(null, null, null);
  }

  /** Best effort: error bodies come from proxies and load balancers too, so anything goes. */
  static ErrorBody parseError(byte[] body) {
    if (body == null || body.length == 0) {
      return ErrorBody.NONE;
    }
    try {
      XmlNode root = XmlNode.parse(body, "error");
      if (!root.name().equals("Error")) {
        return ErrorBody.NONE;
      }
      return new ErrorBody(
          emptyToNull(root.childText("Code")), emptyToNull(root.childText("Message")),
          emptyToNull(root.childText("RequestId")));
    } catch (MalformedReplyException e) {
      return ErrorBody.NONE;
    }
  }

  /** Whether a 200 body is in fact an {@code <Error>} (CompleteMultipartUpload can do this). */
  static boolean isError(byte[] body) {
    try {
      return body.length > 0 && XmlNode.parse(body, "reply").name().equals("Error");
    } catch (MalformedReplyException e) {
      return false;
    }
  }

  static VersionsPage parseVersions(byte[] body, String what) throws MalformedReplyException {
    XmlNode root = expectRoot(body, what, "ListVersionsResult");
    boolean url = isUrlEncoded(root);
    List<ObjectVersion> out = new ArrayList<>();
    List<String> commonPrefixes = new ArrayList<>();
    for (XmlNode n : root.children()) {
      if (n.name().equals("CommonPrefixes")) {
        commonPrefixes.add(decode(required(n, "Prefix", what), url, what));
        continue;
      }
      boolean marker = n.name().equals("DeleteMarker");
      if (!marker && !n.name().equals("Version")) {
        continue;
      }
      String key = decode(required(n, "Key", what), url, what);
      String versionId = required(n, "VersionId", what);
      Instant modified = instant(required(n, "LastModified", what), what);
      boolean latest = "true".equals(n.childText("IsLatest"));
      if (marker) {
        out.add(new ObjectVersion(key, versionId, latest, true, modified, null, 0));
      } else {
        out.add(new ObjectVersion(key, versionId, latest, false, modified,
            unquote(required(n, "ETag", what)), number(required(n, "Size", what), what)));
      }
    }
    boolean truncated = truncated(root, what);
    String nextKey = root.childText("NextKeyMarker");
    String nextVersion = emptyToNull(root.childText("NextVersionIdMarker"));
    if (truncated && (nextKey == null || nextKey.isEmpty())) {
      throw new MalformedReplyException(what, "listing is truncated but has no NextKeyMarker");
    }
    return new VersionsPage(out, truncated, truncated ? decode(nextKey, url, what) : null, nextVersion,
        commonPrefixes);
  }

  static ObjectsPage parseObjects(byte[] body, String what) throws MalformedReplyException {
    XmlNode root = expectRoot(body, what, "ListBucketResult");
    boolean url = isUrlEncoded(root);
    List<ObjectSummary> out = new ArrayList<>();
    for (XmlNode n : root.children()) {
      if (n.name().equals("Contents")) {
        out.add(new ObjectSummary(
            decode(required(n, "Key", what), url, what), instant(required(n, "LastModified", what), what),
            unquote(n.childText("ETag")), number(required(n, "Size", what), what)));
      }
    }
    boolean truncated = truncated(root, what);
    String token = emptyToNull(root.childText("NextContinuationToken"));
    if (truncated && token == null) {
      throw new MalformedReplyException(what, "listing is truncated but has no NextContinuationToken");
    }
    return new ObjectsPage(out, truncated, truncated ? token : null);
  }

  static UploadsPage parseUploads(byte[] body, String what) throws MalformedReplyException {
    XmlNode root = expectRoot(body, what, "ListMultipartUploadsResult");
    boolean url = isUrlEncoded(root);
    List<MultipartUpload> out = new ArrayList<>();
    for (XmlNode n : root.children()) {
      if (n.name().equals("Upload")) {
        out.add(new MultipartUpload(decode(required(n, "Key", what), url, what), required(n, "UploadId", what),
            instant(required(n, "Initiated", what), what)));
      }
    }
    boolean truncated = truncated(root, what);
    String nextKey = emptyToNull(root.childText("NextKeyMarker"));
    String nextUpload = emptyToNull(root.childText("NextUploadIdMarker"));
    if (truncated && nextKey == null) {
      throw new MalformedReplyException(what, "listing is truncated but has no NextKeyMarker");
    }
    return new UploadsPage(out, truncated, truncated ? decode(nextKey, url, what) : null, nextUpload);
  }

  static String parseUploadId(byte[] body, String what) throws MalformedReplyException {
    XmlNode root = expectRoot(body, what, "InitiateMultipartUploadResult");
    String id = root.childText("UploadId");
    if (id == null || id.isEmpty()) {
      throw new MalformedReplyException(what, "no UploadId");
    }
    return id;
  }

  /** The Status of a GetBucketVersioning reply; empty when versioning was never enabled. */
  static Optional<String> parseVersioning(byte[] body, String what) throws MalformedReplyException {
    XmlNode root = expectRoot(body, what, "VersioningConfiguration");
    String status = root.childText("Status");
    return status == null || status.isEmpty() ? Optional.empty() : Optional.of(status);
  }

  /** The ETag (with quotes) of a completed upload. */
  static String parseCompleteEtag(byte[] body, String what) throws MalformedReplyException {
    XmlNode root = expectRoot(body, what, "CompleteMultipartUploadResult");
    String etag = root.childText("ETag");
    if (etag == null || etag.isEmpty()) {
      throw new MalformedReplyException(what, "no ETag");
    }
    return etag;
  }

  /** ETags arrive quoted ({@code "abc"}); listings and history carry them bare. */
  static String unquote(String etag) {
    if (etag == null) {
      return null;
    }
    String e = etag.strip();
    if (e.startsWith("W/")) {
      e = e.substring(2);
    }
    return e.length() >= 2 && e.startsWith("\"") && e.endsWith("\"") ? e.substring(1, e.length() - 1) : e;
  }

  private static XmlNode expectRoot(byte[] body, String what, String name) throws MalformedReplyException {
    XmlNode root = XmlNode.parse(body, what);
    if (!root.name().equals(name)) {
      throw new MalformedReplyException(what, "expected <" + name + ">, got <" + root.name() + ">");
    }
    return root;
  }

  private static boolean isUrlEncoded(XmlNode root) {
    return "url".equals(root.childText("EncodingType"));
  }

  private static boolean truncated(XmlNode root, String what) throws MalformedReplyException {
    String t = root.childText("IsTruncated");
    if (t == null) {
      return false;
    }
    if (!t.equals("true") && !t.equals("false")) {
      throw new MalformedReplyException(what, "IsTruncated is neither true nor false");
    }
    return t.equals("true");
  }

  private static String required(XmlNode n, String child, String what) throws MalformedReplyException {
    String v = n.childText(child);
    if (v == null) {
      throw new MalformedReplyException(what, "<" + n.name() + "> without <" + child + ">");
    }
    return v;
  }

  private static long number(String s, String what) throws MalformedReplyException {
    try {
      long v = Long.parseLong(s);
      if (v < 0) {
        throw new MalformedReplyException(what, "negative size " + v);
      }
      return v;
    } catch (NumberFormatException e) {
      throw new MalformedReplyException(what, "not a number: " + S3Exception.oneLine(s));
    }
  }

  static Instant instant(String s, String what) throws MalformedReplyException {
    try {
      return Instant.parse(s);
    } catch (DateTimeParseException e) {
      throw new MalformedReplyException(what, "not an ISO-8601 time: " + S3Exception.oneLine(s));
    }
  }

  private static String decode(String s, boolean url, String what) throws MalformedReplyException {
    if (!url) {
      return s;
    }
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new MalformedReplyException(what, "bad percent-encoding in " + S3Exception.oneLine(s));
    }
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
