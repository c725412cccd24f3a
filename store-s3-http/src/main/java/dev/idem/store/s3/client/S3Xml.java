package dev.idem.store.s3.client;

import static dev.idem.store.s3.xml.XmlPullParser.END_DOCUMENT;
import static dev.idem.store.s3.xml.XmlPullParser.END_ELEMENT;
import static dev.idem.store.s3.xml.XmlPullParser.START_ELEMENT;

import dev.idem.store.s3.xml.XmlPullParser;
import dev.idem.store.s3.xml.XmlSyntaxException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Reads the S3 XML replies the client needs into records, strictly: a required element that is
 * missing, a number that is not one, or a truncated listing without a continuation marker is a {@link
 * MalformedReplyException} naming the request, so a broken or hostile server produces one clear error
 * and never a {@code NullPointerException} or an endless listing loop.
 *
 * <p>Replies are read with {@link XmlPullParser} as a stream of events, a listing page straight from the
 * response body: no tree, and only the fields an entry needs become strings. Of each element the first
 * child of a given name counts, as S3 sends each once; unknown elements are skipped whole. A reply that
 * is not well-formed XML, or XML the parser does not read (a DTD, an unknown entity), is a {@link
 * MalformedReplyException}; a failure of the stream itself stays a plain {@link IOException}, which the
 * transport retries.
 *
 * <p>Listings are requested with {@code encoding-type=url}, so keys are percent-decoded here (keys may
 * hold characters XML 1.0 cannot carry), once the whole page says whether it is encoded.
 */
final class S3Xml {
  private static final String[] VERSION_FIELDS = {"Key", "VersionId", "LastModified", "IsLatest", "ETag", "Size"};
  private static final String[] OBJECT_FIELDS = {"Key", "LastModified", "ETag", "Size"};
  private static final String[] UPLOAD_FIELDS = {"Key", "UploadId", "Initiated"};
  private static final String[] PREFIX_FIELDS = {"Prefix"};
  private static final String[] VERSIONS_TOP = {"IsTruncated", "NextKeyMarker", "NextVersionIdMarker", "EncodingType"};
  private static final String[] OBJECTS_TOP = {"IsTruncated", "NextContinuationToken", "EncodingType"};
  private static final String[] UPLOADS_TOP = {"IsTruncated", "NextKeyMarker", "NextUploadIdMarker", "EncodingType"};

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
      String[] f = rootLeaves(new ByteArrayInputStream(body), "error", "Error", "Code", "Message", "RequestId");
      return f == null ? ErrorBody.NONE : new ErrorBody(emptyToNull(f[0]), emptyToNull(f[1]), emptyToNull(f[2]));
    } catch (IOException e) {
      return ErrorBody.NONE;
    }
  }

  /** Whether a 200 body is in fact an {@code <Error>} (CompleteMultipartUpload can do this). */
  static boolean isError(byte[] body) {
    try {
      return body.length > 0 && rootLeaves(new ByteArrayInputStream(body), "reply", "Error") != null;
    } catch (IOException e) {
      return false;
    }
  }

  static VersionsPage parseVersions(byte[] body, String what) throws IOException {
    return parseVersions(new ByteArrayInputStream(body), what);
  }

  /** One ListObjectVersions page, read from {@code body} as it arrives. */
  static VersionsPage parseVersions(InputStream body, String what) throws IOException {
    XmlPullParser p = new XmlPullParser(body);
    try {
      expectRoot(p, what, "ListVersionsResult");
      List<ObjectVersion> out = new ArrayList<>();
      List<String> commonPrefixes = new ArrayList<>();
      String[] top = new String[VERSIONS_TOP.length];
      String[] f = new String[VERSION_FIELDS.length];
      for (int e = p.next(); e != END_ELEMENT; e = p.next()) {
        if (e != START_ELEMENT) {
          continue;
        }
        String name = p.localName();
        boolean marker = name.equals("DeleteMarker");
        if (marker || name.equals("Version")) {
          leaves(p, VERSION_FIELDS, f);
          String key = required(f[0], name, "Key", what);
          String versionId = required(f[1], name, "VersionId", what);
          Instant modified = instant(required(f[2], name, "LastModified", what), what);
          boolean latest = "true".equals(f[3]);
          out.add(marker
              ? new ObjectVersion(key, versionId, latest, true, modified, null, 0)
              : new ObjectVersion(key, versionId, latest, false, modified,
                  unquote(required(f[4], name, "ETag", what)), number(required(f[5], name, "Size", what), what)));
        } else if (name.equals("CommonPrefixes")) {
          leaves(p, PREFIX_FIELDS, f);
          commonPrefixes.add(required(f[0], name, "Prefix", what));
        } else {
          topLevel(p, name, VERSIONS_TOP, top);
        }
      }
      end(p);
      boolean url = "url".equals(top[3]);
      boolean truncated = truncated(top[0], what);
      String nextKey = top[1];
      String nextVersion = emptyToNull(top[2]);
      if (truncated && (nextKey == null || nextKey.isEmpty())) {
        throw new MalformedReplyException(what, "listing is truncated but has no NextKeyMarker");
      }
      if (url) {
        for (int i = 0; i < out.size(); i++) {
          ObjectVersion v = out.get(i);
          String key = decode(v.key(), true, what);
          if (!key.equals(v.key())) {
            out.set(i, new ObjectVersion(key, v.versionId(), v.latest(), v.deleteMarker(), v.lastModified(),
                v.etag(), v.size()));
          }
        }
        for (int i = 0; i < commonPrefixes.size(); i++) {
          commonPrefixes.set(i, decode(commonPrefixes.get(i), true, what));
        }
      }
      return new VersionsPage(out, truncated, truncated ? decode(nextKey, url, what) : null, nextVersion,
          commonPrefixes);
    } catch (XmlSyntaxException e) {
      throw new MalformedReplyException(what, e.getMessage());
    }
  }

  static ObjectsPage parseObjects(byte[] body, String what) throws IOException {
    return parseObjects(new ByteArrayInputStream(body), what);
  }

  /** One ListObjectsV2 page, read from {@code body} as it arrives. */
  static ObjectsPage parseObjects(InputStream body, String what) throws IOException {
    XmlPullParser p = new XmlPullParser(body);
    try {
      expectRoot(p, what, "ListBucketResult");
      List<ObjectSummary> out = new ArrayList<>();
      String[] top = new String[OBJECTS_TOP.length];
      String[] f = new String[OBJECT_FIELDS.length];
      for (int e = p.next(); e != END_ELEMENT; e = p.next()) {
        if (e != START_ELEMENT) {
          continue;
        }
        String name = p.localName();
        if (name.equals("Contents")) {
          leaves(p, OBJECT_FIELDS, f);
          out.add(new ObjectSummary(required(f[0], name, "Key", what),
              instant(required(f[1], name, "LastModified", what), what), unquote(f[2]),
              number(required(f[3], name, "Size", what), what)));
        } else {
          topLevel(p, name, OBJECTS_TOP, top);
        }
      }
      end(p);
      if ("url".equals(top[2])) {
        for (int i = 0; i < out.size(); i++) {
          ObjectSummary o = out.get(i);
          out.set(i, new ObjectSummary(decode(o.key(), true, what), o.lastModified(), o.etag(), o.size()));
        }
      }
      boolean truncated = truncated(top[0], what);
      String token = emptyToNull(top[1]);
      if (truncated && token == null) {
        throw new MalformedReplyException(what, "listing is truncated but has no NextContinuationToken");
      }
      return new ObjectsPage(out, truncated, truncated ? token : null);
    } catch (XmlSyntaxException e) {
      throw new MalformedReplyException(what, e.getMessage());
    }
  }

  static UploadsPage parseUploads(byte[] body, String what) throws IOException {
    return parseUploads(new ByteArrayInputStream(body), what);
  }

  /** One ListMultipartUploads page, read from {@code body} as it arrives. */
  static UploadsPage parseUploads(InputStream body, String what) throws IOException {
    XmlPullParser p = new XmlPullParser(body);
    try {
      expectRoot(p, what, "ListMultipartUploadsResult");
      List<MultipartUpload> out = new ArrayList<>();
      String[] top = new String[UPLOADS_TOP.length];
      String[] f = new String[UPLOAD_FIELDS.length];
      for (int e = p.next(); e != END_ELEMENT; e = p.next()) {
        if (e != START_ELEMENT) {
          continue;
        }
        String name = p.localName();
        if (name.equals("Upload")) {
          leaves(p, UPLOAD_FIELDS, f);
          out.add(new MultipartUpload(required(f[0], name, "Key", what), required(f[1], name, "UploadId", what),
              instant(required(f[2], name, "Initiated", what), what)));
        } else {
          topLevel(p, name, UPLOADS_TOP, top);
        }
      }
      end(p);
      boolean url = "url".equals(top[3]);
      if (url) {
        for (int i = 0; i < out.size(); i++) {
          MultipartUpload u = out.get(i);
          out.set(i, new MultipartUpload(decode(u.key(), true, what), u.uploadId(), u.initiated()));
        }
      }
      boolean truncated = truncated(top[0], what);
      String nextKey = emptyToNull(top[1]);
      String nextUpload = emptyToNull(top[2]);
      if (truncated && nextKey == null) {
        throw new MalformedReplyException(what, "listing is truncated but has no NextKeyMarker");
      }
      return new UploadsPage(out, truncated, truncated ? decode(nextKey, url, what) : null, nextUpload);
    } catch (XmlSyntaxException e) {
      throw new MalformedReplyException(what, e.getMessage());
    }
  }

  static String parseUploadId(byte[] body, String what) throws IOException {
    String id = expectRootLeaves(body, what, "InitiateMultipartUploadResult", "UploadId")[0];
    if (id == null || id.isEmpty()) {
      throw new MalformedReplyException(what, "no UploadId");
    }
    return id;
  }

  /** The Status of a GetBucketVersioning reply; empty when versioning was never enabled. */
  static Optional<String> parseVersioning(byte[] body, String what) throws IOException {
    String status = expectRootLeaves(body, what, "VersioningConfiguration", "Status")[0];
    return status == null || status.isEmpty() ? Optional.empty() : Optional.of(status);
  }

  /** The ETag (with quotes) of a completed upload. */
  static String parseCompleteEtag(byte[] body, String what) throws IOException {
    String etag = expectRootLeaves(body, what, "CompleteMultipartUploadResult", "ETag")[0];
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

  /** Reads up to the root's start tag and checks its name. */
  private static void expectRoot(XmlPullParser p, String what, String name) throws IOException {
    p.next();
    if (!p.localName().equals(name)) {
      throw new MalformedReplyException(what, "expected <" + name + ">, got <" + p.localName() + ">");
    }
  }

  /** After the root's end tag: the rest of the input must be well-formed too (comments, whitespace). */
  private static void end(XmlPullParser p) throws IOException {
    if (p.next() != END_DOCUMENT) {
      throw new IllegalStateException("the parser returned an event after the root element");
    }
  }

  /**
   * The text of each of {@code wanted} among the root's children, or {@code null} when the root is not
   * named {@code root}; the whole input is read.
   */
  private static String[] rootLeaves(InputStream body, String what, String root, String... wanted)
      throws IOException {
    XmlPullParser p = new XmlPullParser(body);
    p.next();
    boolean match = p.localName().equals(root);
    String[] f = new String[wanted.length];
    if (match) {
      leaves(p, wanted, f);
    } else {
      p.skipElement();
    }
    end(p);
    return match ? f : null;
  }

  private static String[] expectRootLeaves(byte[] body, String what, String root, String... wanted)
      throws IOException {
    try {
      XmlPullParser p = new XmlPullParser(new ByteArrayInputStream(body));
      expectRoot(p, what, root);
      String[] f = new String[wanted.length];
      leaves(p, wanted, f);
      end(p);
      return f;
    } catch (XmlSyntaxException e) {
      throw new MalformedReplyException(what, e.getMessage());
    }
  }

  /**
   * At an element's start: reads its children up to its end tag, putting the stripped text of the first
   * child named {@code wanted[i]} in {@code into[i]} ({@code null} when there is none) and skipping
   * the rest.
   */
  private static void leaves(XmlPullParser p, String[] wanted, String[] into) throws IOException {
    Arrays.fill(into, null);
    for (int e = p.next(); e != END_ELEMENT; e = p.next()) {
      if (e == START_ELEMENT) {
        int i = indexOf(wanted, p.localName());
        if (i >= 0 && into[i] == null) {
          into[i] = p.elementText().strip();
        } else {
          p.skipElement();
        }
      }
    }
  }

  /** A child of the root other than an entry: kept when it is one of {@code wanted}, else skipped. */
  private static void topLevel(XmlPullParser p, String name, String[] wanted, String[] into) throws IOException {
    int i = indexOf(wanted, name);
    if (i >= 0 && into[i] == null) {
      into[i] = p.elementText().strip();
    } else {
      p.skipElement();
    }
  }

  private static int indexOf(String[] names, String name) {
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private static boolean truncated(String t, String what) throws MalformedReplyException {
    if (t == null) {
      return false;
    }
    if (!t.equals("true") && !t.equals("false")) {
      throw new MalformedReplyException(what, "IsTruncated is neither true nor false");
    }
    return t.equals("true");
  }

  private static String required(String v, String parent, String child, String what) throws MalformedReplyException {
    if (v == null) {
      throw new MalformedReplyException(what, "<" + parent + "> without <" + child + ">");
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

  /**
   * An ISO-8601 UTC time as S3 writes it ({@code 2024-09-10T20:27:30.000Z}, read without the cost of
   * {@link Instant#parse}, which dominated the allocation of a listing page); any other form goes to
   * {@link Instant#parse}, which reads what it reads or fails.
   */
  static Instant instant(String s, String what) throws MalformedReplyException {
    Instant fast = utcInstant(s);
    if (fast != null) {
      return fast;
    }
    try {
      return Instant.parse(s);
    } catch (DateTimeParseException e) {
      throw new MalformedReplyException(what, "not an ISO-8601 time: " + S3Exception.oneLine(s));
    }
  }

  /** {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z} with every field in range, else {@code null}. */
  static Instant utcInstant(String s) {
    int n = s.length();
    if (n < 20 || n == 21 || n > 30 || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(10) != 'T'
        || s.charAt(13) != ':' || s.charAt(16) != ':' || s.charAt(n - 1) != 'Z' || (n > 20 && s.charAt(19) != '.')) {
      return null;
    }
    int year = digits(s, 0, 4);
    int month = digits(s, 5, 2);
    int day = digits(s, 8, 2);
    int hour = digits(s, 11, 2);
    int minute = digits(s, 14, 2);
    int second = digits(s, 17, 2);
    int fraction = n > 20 ? digits(s, 20, n - 21) : 0;
    if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || minute < 0
        || minute > 59 || second < 0 || second > 59 || fraction < 0) {
      return null;
    }
    if (day > 28 && day > java.time.YearMonth.of(year, month).lengthOfMonth()) {
      return null;
    }
    for (int i = n - 21; i < 9; i++) {
      fraction *= 10;
    }
    long epochDay = java.time.LocalDate.of(year, month, day).toEpochDay();
    return Instant.ofEpochSecond(epochDay * 86_400 + hour * 3_600 + minute * 60 + second, fraction);
  }

  /** The decimal number of {@code count} ASCII digits at {@code from}, or -1. */
  private static int digits(String s, int from, int count) {
    int v = 0;
    for (int i = from; i < from + count; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
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
