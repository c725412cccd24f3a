package dev.idem.store.s3.internal.client;

import static dev.idem.store.s3.internal.xml.XmlPullParser.END_DOCUMENT;
import static dev.idem.store.s3.internal.xml.XmlPullParser.END_ELEMENT;
import static dev.idem.store.s3.internal.xml.XmlPullParser.START_ELEMENT;

import dev.idem.store.s3.internal.xml.XmlPullParser;
import dev.idem.store.s3.internal.xml.XmlSyntaxException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Reads one ListObjectVersions page from the reply's bytes as they arrive. It exists because the scan
 * reads every version of a store (28 MB of XML for 100,000 versions) and its time was mostly spent
 * making strings of that XML: here element names are compared as bytes, elements the page does not use
 * (StorageClass, Owner, checksums, anything new) are skipped without a string, times and sizes are read
 * from the bytes, and strings are made only for a version's key, version id and ETag. Consecutive
 * versions of one key, and ETags equal to the one before, share one string.
 *
 * <p>Guarantees, the same as {@link S3Xml}'s for the other replies: the XML is read by {@link
 * XmlPullParser} (well-formedness, UTF-8, references and nesting checked, so what is read is what an
 * XML parser reads); the root may have any name but {@code Error} (S3Mock names it {@code
 * ListBucketResult}); of each element the first child of a given name counts; leaf text is taken without
 * the XML whitespace around it; a page without {@code IsTruncated} or holding ListObjects' {@code
 * Contents}, a missing required field, a time or size that is not one, a truncated page without {@code
 * NextKeyMarker}, a percent-encoding that is not one or does not decode to UTF-8, and any XML error are a
 * {@link MalformedReplyException} naming the request, never a wrong page. Keys
 * are percent-decoded ({@code +} is a space) when the page says {@code EncodingType} {@code url},
 * wherever that element comes. Entries are given in the listing's order whatever order the reply's
 * elements come in: by key ({@link KeyOrder}), a key's latest entry first, its others as the reply
 * gives them (moto gives a page's Version elements and then its DeleteMarker elements). Memory: the parser's 8 KiB window and the page's entries; one reader
 * per reply, not thread-safe.
 */
public final class VersionsPageReader {
  private static final byte[] VERSION = ascii("Version");
  private static final byte[] DELETE_MARKER = ascii("DeleteMarker");
  private static final byte[] COMMON_PREFIXES = ascii("CommonPrefixes");
  private static final byte[] CONTENTS = ascii("Contents");
  private static final byte[] PREFIX = ascii("Prefix");
  /** An entry's fields, by index: a bit each in {@link #entry}'s mask of fields seen. */
  private static final byte[][] FIELDS = {
      ascii("Key"), ascii("VersionId"), ascii("IsLatest"), ascii("LastModified"), ascii("ETag"), ascii("Size")};
  private static final int KEY = 0;
  private static final int VERSION_ID = 1;
  private static final int IS_LATEST = 2;
  private static final int LAST_MODIFIED = 3;
  private static final int ETAG = 4;
  private static final int SIZE = 5;
  /** The page's own fields, by index into {@link #top}. */
  private static final byte[][] TOP = {
      ascii("IsTruncated"), ascii("NextKeyMarker"), ascii("NextVersionIdMarker"), ascii("EncodingType")};
  private static final byte[] TRUE = ascii("true");
  /** The listing's order: by key, and a key's latest entry (newest) before its others. */
  private static final Comparator<ObjectVersion> LISTING_ORDER = (a, b) -> {
    int byKey = a.key() == b.key() ? 0 : KeyOrder.compare(a.key(), b.key());
    return byKey != 0 ? byKey : Boolean.compare(b.latest(), a.latest());
  };

  private final XmlPullParser p;
  private final String what;
  private final String[] top = new String[TOP.length];
  /** The last key and ETag read, as bytes and as the string made of them. */
  private final Repeat keys = new Repeat();
  private final Repeat etags = new Repeat();

  private VersionsPageReader(InputStream body, String what) {
    this.p = new XmlPullParser(body);
    this.what = what;
  }

  /**
   * One ListObjectVersions page, read from {@code body} as it arrives. Public for the listing benchmark
   * (bench module, on the class path); the package is not exported.
   */
  public static VersionsPage read(InputStream body, String what) throws IOException {
    try {
      return new VersionsPageReader(body, what).page();
    } catch (XmlSyntaxException e) {
      throw new MalformedReplyException(what, e.getMessage());
    }
  }

  private VersionsPage page() throws IOException {
    String root = S3Xml.root(p, what);
    List<ObjectVersion> out = new ArrayList<>();
    List<String> commonPrefixes = new ArrayList<>();
    for (int e = p.next(); e != END_ELEMENT; e = p.next()) {
      if (e != START_ELEMENT) {
        continue;
      }
      int t;
      if (p.localNameIs(VERSION)) {
        out.add(entry(false));
      } else if (p.localNameIs(DELETE_MARKER)) {
        out.add(entry(true));
      } else if (p.localNameIs(COMMON_PREFIXES)) {
        commonPrefixes.add(prefix());
      } else if (p.localNameIs(CONTENTS)) {
        throw S3Xml.otherListing("Contents", "ListObjects", what);
      } else if ((t = p.localNameIndex(TOP)) >= 0 && top[t] == null) {
        top[t] = text();
      } else {
        p.skipElement();
      }
    }
    if (p.next() != END_DOCUMENT) {
      throw new IllegalStateException("the parser returned an event after the root element");
    }
    S3Xml.listingPage(top[0], root, "ListVersionsResult", what);
    boolean url = "url".equals(top[3]);
    boolean truncated = S3Xml.truncated(top[0], what);
    String nextKey = top[1];
    if (truncated && (nextKey == null || nextKey.isEmpty())) {
      throw new MalformedReplyException(what, "listing is truncated but has no NextKeyMarker");
    }
    if (url) {
      String raw = null;
      String decoded = null;
      for (int i = 0; i < out.size(); i++) {
        ObjectVersion v = out.get(i);
        if (v.key() != raw) { // consecutive versions of a key share its string: decode it once
          raw = v.key();
          decoded = S3Xml.decode(raw, true, what);
        }
        if (decoded != raw) {
          out.set(i, new ObjectVersion(decoded, v.versionId(), v.latest(), v.deleteMarker(), v.lastModified(),
              v.etag(), v.size()));
        }
      }
      for (int i = 0; i < commonPrefixes.size(); i++) {
        commonPrefixes.set(i, S3Xml.decode(commonPrefixes.get(i), true, what));
      }
    }
    // S3 interleaves a page's versions and delete markers in the listing's order; moto gives its Version
    // elements first and its DeleteMarker elements after them. A stable sort puts either in that order
    // (one pass over a page already in it); only where a delete marker stood among a key's older versions
    // is not in moto's reply.
    out.sort(LISTING_ORDER);
    String nextVersion = top[2] == null || top[2].isEmpty() ? null : top[2];
    return new VersionsPage(out, truncated, truncated ? S3Xml.decode(nextKey, url, what) : null, nextVersion,
        commonPrefixes);
  }

  /** At a {@code <Version>} or {@code <DeleteMarker>}: reads it whole. */
  private ObjectVersion entry(boolean marker) throws IOException {
    String element = marker ? "DeleteMarker" : "Version";
    int seen = 0;
    String key = null;
    String versionId = null;
    boolean latest = false;
    Instant modified = null;
    String etag = null;
    long size = 0;
    for (int e = p.next(); e != END_ELEMENT; e = p.next()) {
      if (e != START_ELEMENT) {
        continue;
      }
      int f = p.localNameIndex(FIELDS);
      if (f < 0 || (seen & (1 << f)) != 0 || (marker && (f == ETAG || f == SIZE))) {
        p.skipElement();
        continue;
      }
      seen |= 1 << f;
      int n = p.elementTextBytes();
      byte[] t = p.textBytes();
      int from = trimmedStart(t, n);
      int to = trimmedEnd(t, from, n);
      switch (f) {
        case KEY -> key = keys.string(t, from, to);
        case VERSION_ID -> versionId = new String(t, from, to - from, StandardCharsets.UTF_8);
        case IS_LATEST -> latest = Arrays.equals(t, from, to, TRUE, 0, TRUE.length);
        case LAST_MODIFIED -> modified = instant(t, from, to);
        case ETAG -> etag = etag(t, from, to);
        default -> size = size(t, from, to);
      }
    }
    S3Xml.required(key, element, "Key", what);
    S3Xml.required(versionId, element, "VersionId", what);
    S3Xml.required(modified, element, "LastModified", what);
    if (marker) {
      return new ObjectVersion(key, versionId, latest, true, modified, null, 0);
    }
    S3Xml.required(etag, element, "ETag", what);
    if ((seen & (1 << SIZE)) == 0) {
      S3Xml.required(null, element, "Size", what);
    }
    return new ObjectVersion(key, versionId, latest, false, modified, etag, size);
  }

  /** At a {@code <CommonPrefixes>}: its first {@code <Prefix>}. */
  private String prefix() throws IOException {
    String prefix = null;
    for (int e = p.next(); e != END_ELEMENT; e = p.next()) {
      if (e == START_ELEMENT && prefix == null && p.localNameIs(PREFIX)) {
        prefix = text();
      } else if (e == START_ELEMENT) {
        p.skipElement();
      }
    }
    return S3Xml.required(prefix, "CommonPrefixes", "Prefix", what);
  }

  /** At a leaf's start: its text without the XML whitespace around it. */
  private String text() throws IOException {
    int n = p.elementTextBytes();
    byte[] t = p.textBytes();
    int from = trimmedStart(t, n);
    return new String(t, from, trimmedEnd(t, from, n) - from, StandardCharsets.UTF_8);
  }

  /** The index of the first byte of {@code t[0, n)} that is not XML whitespace ({@code n} if none). */
  private static int trimmedStart(byte[] t, int n) {
    int from = 0;
    while (from < n && isSpace(t[from])) {
      from++;
    }
    return from;
  }

  /** One past the last byte of {@code t[from, n)} that is not XML whitespace ({@code from} if none). */
  private static int trimmedEnd(byte[] t, int from, int n) {
    int to = n;
    while (to > from && isSpace(t[to - 1])) {
      to--;
    }
    return to;
  }

  /** {@link S3Xml#unquote} on bytes: without a {@code W/} and the quotes around it. */
  private String etag(byte[] t, int from, int to) {
    if (to - from >= 2 && t[from] == 'W' && t[from + 1] == '/') {
      from += 2;
    }
    if (to - from >= 2 && t[from] == '"' && t[to - 1] == '"') {
      from++;
      to--;
    }
    return etags.string(t, from, to);
  }

  private Instant instant(byte[] t, int from, int to) throws MalformedReplyException {
    Instant fast = S3Xml.utcInstant(t, from, to);
    return fast != null ? fast : S3Xml.instant(new String(t, from, to - from, StandardCharsets.UTF_8), what);
  }

  /** A size of up to 18 digits read from the bytes; anything else as {@link S3Xml#number} reads it. */
  private long size(byte[] t, int from, int to) throws MalformedReplyException {
    long v = 0;
    boolean digits = to > from && to - from <= 18;
    for (int i = from; digits && i < to; i++) {
      int d = t[i] - '0';
      digits = d >= 0 && d <= 9;
      v = v * 10 + d;
    }
    return digits ? v : S3Xml.number(new String(t, from, to - from, StandardCharsets.UTF_8), what);
  }

  private static boolean isSpace(byte b) {
    return b == ' ' || b == '\n' || b == '\t' || b == '\r';
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /** The last value read of one field, so a repeated value costs a comparison instead of a string. */
  private static final class Repeat {
    private byte[] bytes = new byte[64];
    private int length = -1;
    private String string;

    String string(byte[] t, int from, int to) {
      int n = to - from;
      if (n == length && Arrays.equals(t, from, to, bytes, 0, n)) {
        return string;
      }
      if (n > bytes.length) {
        bytes = new byte[Math.max(n, bytes.length * 2)];
      }
      System.arraycopy(t, from, bytes, 0, n);
      length = n;
      return string = new String(t, from, n, StandardCharsets.UTF_8);
    }
  }
}
