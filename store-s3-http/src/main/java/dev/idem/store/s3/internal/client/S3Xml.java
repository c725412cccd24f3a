package dev.idem.store.s3.internal.client;

import static dev.idem.store.s3.internal.xml.XmlPullParser.END_DOCUMENT;
import static dev.idem.store.s3.internal.xml.XmlPullParser.END_ELEMENT;
import static dev.idem.store.s3.internal.xml.XmlPullParser.START_ELEMENT;

import dev.idem.store.s3.internal.xml.XmlPullParser;
import dev.idem.store.s3.internal.xml.XmlSyntaxException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
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
 * response body: no tree, and only the fields an entry needs become strings. ListObjectVersions pages,
 * which the scan reads by the hundred, are read by {@link VersionsPageReader}, over bytes, with the
 * checks and helpers here. Of each element the first
 * child of a given name counts, as S3 sends each once; unknown elements are skipped whole. A reply that
 * is not well-formed XML, or XML the parser does not read (a DTD, an unknown entity), is a {@link
 * MalformedReplyException}; a failure of the stream itself stays a plain {@link IOException}, which the
 * transport retries.
 *
 * <p>A reply is read by the elements that carry its meaning, as the SDKs read it, whatever its root is
 * named: servers spell roots differently (moto's {@code <CompleteMultipartUploadResponse>} and {@code
 * <GetBucketVersioningResponse>}, S3Mock's {@code <ListBucketResult>} for ListObjectVersions). What is
 * no such reply is refused: a root named {@code <Error>}; a listing page without {@code <IsTruncated>}
 * (it cannot say whether the listing goes on, so reading it as the end could hide keys), or holding
 * the entries of another listing (a server that answered ListObjects to a ListObjectVersions request
 * would otherwise read as an empty bucket); a reply without the element that is its answer ({@code
 * UploadId}, {@code ETag}).
 *
 * <p>Listings are requested with {@code encoding-type=url}, so keys are percent-decoded here (keys may
 * hold characters XML 1.0 cannot carry), strictly ({@link #decode}), once the whole page says whether
 * it is encoded.
 */
final class S3Xml {
  private static final String[] OBJECT_FIELDS = {"Key", "LastModified", "ETag", "Size"};
  private static final String[] UPLOAD_FIELDS = {"Key", "UploadId", "Initiated"};
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

  static ObjectsPage parseObjects(byte[] body, String what) throws IOException {
    return parseObjects(new ByteArrayInputStream(body), what);
  }

  /** One ListObjectsV2 page, read from {@code body} as it arrives. */
  static ObjectsPage parseObjects(InputStream body, String what) throws IOException {
    XmlPullParser p = new XmlPullParser(body);
    try {
      String root = root(p, what);
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
        } else if (name.equals("Version") || name.equals("DeleteMarker")) {
          throw otherListing(name, "ListObjectVersions", what);
        } else {
          topLevel(p, name, OBJECTS_TOP, top);
        }
      }
      end(p);
      listingPage(top[0], root, "ListBucketResult", what);
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
      String root = root(p, what);
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
      listingPage(top[0], root, "ListMultipartUploadsResult", what);
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
    String id = rootLeaves(body, what, "UploadId")[0];
    if (id == null || id.isEmpty()) {
      throw new MalformedReplyException(what, "no UploadId");
    }
    return id;
  }

  /** The Status of a GetBucketVersioning reply; empty when versioning was never enabled. */
  static Optional<String> parseVersioning(byte[] body, String what) throws IOException {
    String status = rootLeaves(body, what, "Status")[0];
    return status == null || status.isEmpty() ? Optional.empty() : Optional.of(status);
  }

  /** The ETag (with quotes) of a completed upload. */
  static String parseCompleteEtag(byte[] body, String what) throws IOException {
    String etag = rootLeaves(body, what, "ETag")[0];
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

  /**
   * Reads up to the root's start tag and returns its name: any name but {@code Error}, which is read
   * whole and refused with its code and message.
   */
  static String root(XmlPullParser p, String what) throws IOException {
    p.next();
    String name = p.localName();
    if (name.equals("Error")) {
      String[] f = new String[2];
      leaves(p, new String[] {"Code", "Message"}, f);
      throw new MalformedReplyException(what, "an <Error> (" + (f[0] == null ? "no code" : S3Exception.oneLine(f[0]))
          + (f[1] == null ? "" : ": " + S3Exception.oneLine(f[1])) + ")");
    }
    return name;
  }

  /**
   * A listing page says whether the listing goes on; a reply that does not is no page of it ({@code
   * root} is its root's name, {@code expected} what S3 names it).
   */
  static void listingPage(String isTruncated, String root, String expected, String what)
      throws MalformedReplyException {
    if (isTruncated == null) {
      throw new MalformedReplyException(what, root.equals(expected) ? "<" + root + "> without <IsTruncated>"
          : "not a listing page (no <IsTruncated>): expected <" + expected + ">, got <" + root + ">");
    }
  }

  /** An entry of another listing than the one asked for: {@code entry} is its element's name. */
  static MalformedReplyException otherListing(String entry, String listing, String what) {
    return new MalformedReplyException(what, "a <" + entry + "> entry, which " + listing + " pages hold: the"
        + " server answered another request than this one");
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

  /** The text of each of {@code wanted} among the root's children ({@link #root} checks the root). */
  private static String[] rootLeaves(byte[] body, String what, String... wanted) throws IOException {
    try {
      XmlPullParser p = new XmlPullParser(new ByteArrayInputStream(body));
      root(p, what);
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

  /** The {@code IsTruncated} of a page {@link #listingPage} accepted. */
  static boolean truncated(String t, String what) throws MalformedReplyException {
    if (!t.equals("true") && !t.equals("false")) {
      throw new MalformedReplyException(what, "IsTruncated is neither true nor false");
    }
    return t.equals("true");
  }

  static <T> T required(T v, String parent, String child, String what) throws MalformedReplyException {
    if (v == null) {
      throw new MalformedReplyException(what, "<" + parent + "> without <" + child + ">");
    }
    return v;
  }

  static long number(String s, String what) throws MalformedReplyException {
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
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c > 0x7f) {
        return null;
      }
      b[i] = (byte) c;
    }
    return utcInstant(b, 0, n);
  }

  /** {@link #utcInstant(String)} of the ASCII (or UTF-8) bytes {@code s[from..to)}, read in place. */
  static Instant utcInstant(byte[] s, int from, int to) {
    int n = to - from;
    if (n < 20 || n == 21 || n > 30 || s[from + 4] != '-' || s[from + 7] != '-' || s[from + 10] != 'T'
        || s[from + 13] != ':' || s[from + 16] != ':' || s[to - 1] != 'Z' || (n > 20 && s[from + 19] != '.')) {
      return null;
    }
    int year = digits(s, from, 4);
    int month = digits(s, from + 5, 2);
    int day = digits(s, from + 8, 2);
    int hour = digits(s, from + 11, 2);
    int minute = digits(s, from + 14, 2);
    int second = digits(s, from + 17, 2);
    int fraction = n > 20 ? digits(s, from + 20, n - 21) : 0;
    if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || minute < 0
        || minute > 59 || second < 0 || second > 59 || fraction < 0) {
      return null;
    }
    boolean leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    int monthLength = month == 2 ? (leap ? 29 : 28) : month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
    if (day > monthLength) {
      return null;
    }
    for (int i = n - 21; i < 9; i++) {
      fraction *= 10;
    }
    return Instant.ofEpochSecond(epochDay(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second, fraction);
  }

  /** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (years 0 to 9999), with no objects. */
  private static long epochDay(int year, int month, int day) {
    int y = month <= 2 ? year - 1 : year; // count years from March, so a leap day ends its year
    long era = Math.floorDiv(y, 400);
    long yearOfEra = y - era * 400;
    long dayOfYear = (153L * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    return era * 146_097 + dayOfEra - 719_468;
  }

  /** The decimal number of {@code count} ASCII digits at {@code from}, or -1. */
  private static int digits(byte[] s, int from, int count) {
    int v = 0;
    for (int i = from; i < from + count; i++) {
      int d = s[i] - '0';
      if (d < 0 || d > 9) {
        return -1;
      }
      v = v * 10 + d;
    }
    return v;
  }

  /**
   * A key of a listing requested with {@code encoding-type=url}: {@code %XX} is a byte, {@code +} a
   * space, and the bytes must be UTF-8 (a key is); anything else is a {@link MalformedReplyException},
   * not a key with replacement characters. {@code s} itself when there is nothing to decode.
   */
  static String decode(String s, boolean url, String what) throws MalformedReplyException {
    if (!url || (s.indexOf('%') < 0 && s.indexOf('+') < 0)) {
      return s;
    }
    byte[] bytes = new byte[s.length() * 3];
    int n = 0;
    for (int i = 0; i < s.length(); ) {
      char c = s.charAt(i);
      if (c == '%') {
        int hi = i + 2 < s.length() ? hex(s.charAt(i + 1)) : -1;
        int lo = hi >= 0 ? hex(s.charAt(i + 2)) : -1;
        if (lo < 0) {
          throw new MalformedReplyException(what, "bad percent-encoding in " + S3Exception.oneLine(s));
        }
        bytes[n++] = (byte) (hi << 4 | lo);
        i += 3;
      } else if (c == '+' || c < 0x80) {
        bytes[n++] = (byte) (c == '+' ? ' ' : c);
        i++;
      } else {
        int cp = s.codePointAt(i);
        byte[] utf8 = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
        System.arraycopy(utf8, 0, bytes, n, utf8.length);
        n += utf8.length;
        i += Character.charCount(cp);
      }
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes, 0, n)).toString();
    } catch (CharacterCodingException e) {
      throw new MalformedReplyException(what, "percent-encoding that is not UTF-8 in " + S3Exception.oneLine(s));
    }
  }

  private static int hex(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
