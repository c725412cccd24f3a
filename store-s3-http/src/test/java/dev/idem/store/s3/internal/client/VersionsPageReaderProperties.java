package dev.idem.store.s3.internal.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;

/**
 * {@link VersionsPageReader} reads every ListObjectVersions page as {@link VersionsPageOracle} (StAX and
 * the rules written out plainly) does, and refuses exactly the pages the oracle refuses. Pages are
 * random: keys of random Unicode (markup characters, surrogate pairs, spaces, {@code %} and {@code +})
 * written raw, as entities, as character references or in CDATA, or percent-encoded under {@code
 * EncodingType url}; versions and delete markers with optional fields missing, fields repeated and
 * unknown elements (nested ones too) among them; common prefixes; truncation markers present or wrong;
 * the root named as S3 names it, as S3Mock does or otherwise; whitespace, comments and line ends between
 * and around everything; a declaration and byte order mark or not; and now and then a required field or
 * {@code IsTruncated} missing, a time or size that is not one, an {@code Error} root or a ListObjects
 * entry. The reply arrives in random chunks, so every token is split across reads somewhere.
 */
class VersionsPageReaderProperties {
  /** Code points for keys: ASCII, the markup ones, {@code % +}, space, Latin, CJK, emoji, the last plane. */
  private static final int[] KEY_CHARS = {'a', 'Z', '0', '/', '-', '.', '_', ' ', '<', '>', '&', '"', '\'', '%', '+',
      ']', '\t', 0xe9, 0x4e2d, 0x1f600, 0x1d11e, 0x10ffff, 0xe000, 0xfffd, 0xff5e, 0x7f};
  private static final String[] SPACE = {"", "", "", " ", "\n", "\r\n  ", "\t", "\n    "};
  /** S3's root, Adobe S3Mock's, and one no server sends: the root's name carries no meaning. */
  private static final String[] ROOTS = {"ListVersionsResult", "ListVersionsResult", "ListBucketResult",
      "ListObjectVersionsResponse"};

  @Property(tries = 400)
  void readsWhatTheOracleReads(@ForAll long seed) throws IOException {
    Random r = new Random(seed);
    byte[] doc = page(r);
    VersionsPage expected = VersionsPageOracle.page(doc);
    Statistics.collect(expected == null ? "refused" : expected.versions().isEmpty() ? "read, empty" : "read");
    VersionsPage actual;
    try {
      actual = VersionsPageReader.read(new Chunked(doc, r), "GET bkt?versions");
    } catch (MalformedReplyException e) {
      if (expected != null) {
        fail("refused a page the oracle reads: " + e.getMessage() + "\n" + new String(doc, StandardCharsets.UTF_8));
      }
      return;
    }
    assertEquals(expected, actual, () -> new String(doc, StandardCharsets.UTF_8));
  }

  // ------------------------------------------------------------------ random pages

  /**
   * A quarter of the pages have one defect the reader must refuse (or, for a wrong field in an entry the
   * reader does not read, must not): which one, and in which entry.
   */
  private static int defect;
  private static int defectAt;

  private static byte[] page(Random r) {
    boolean url = r.nextInt(3) == 0;
    defect = r.nextInt(4) == 0 ? 1 + r.nextInt(15) : 0;
    defectAt = r.nextInt(20);
    StringBuilder s = new StringBuilder();
    if (r.nextInt(4) == 0) {
      s.append('\ufeff');
    }
    if (r.nextBoolean()) {
      s.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>").append(space(r));
    }
    String root = defect == 13 ? "Error" : ROOTS[r.nextInt(ROOTS.length)];
    s.append('<').append(root).append(" xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
    leaf(r, s, "Name", "bkt");
    leaf(r, s, "Prefix", "");
    int truncation = defect == 15 ? 0 : 1 + r.nextInt(2); // absent, true, false
    if (truncation > 0 || defect == 10) {
      leaf(r, s, "IsTruncated", defect == 10 ? "maybe" : truncation == 1 ? "true" : "false");
    }
    if (defect != 11 && r.nextInt(4) > 0) {
      s.append(space(r)).append("<NextKeyMarker>").append(text(r, key(r), url)).append("</NextKeyMarker>");
    } else if (defect == 11) {
      leaf(r, s, "IsTruncated", "true");
    }
    if (r.nextBoolean()) {
      leaf(r, s, "NextVersionIdMarker", r.nextBoolean() ? "" : "v" + r.nextInt(1000));
    }
    if (url && r.nextInt(8) > 0) {
      leaf(r, s, "EncodingType", "url");
    }
    String key = key(r);
    for (int i = r.nextInt(40); i > 0; i--) {
      if (r.nextInt(3) > 0) {
        key = key(r); // else another version of the same key
      }
      entry(r, s, key, url, i == defectAt ? defect : 0);
    }
    if (defect == 14) {
      s.append(space(r)).append("<Contents><Key>k</Key><LastModified>").append(time(r))
          .append("</LastModified><Size>1</Size></Contents>");
    }
    for (int i = r.nextInt(3); i > 0; i--) {
      s.append(space(r)).append("<CommonPrefixes>").append(space(r)).append("<Prefix>").append(text(r, key(r), url))
          .append("</Prefix>").append(space(r)).append("</CommonPrefixes>");
    }
    if (url && r.nextBoolean()) {
      leaf(r, s, "EncodingType", "url"); // S3 writes it last: the reader must decode what came before
    }
    s.append(space(r)).append("</").append(root).append('>').append(space(r));
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void entry(Random r, StringBuilder s, String key, boolean url, int broken) {
    boolean marker = r.nextInt(5) == 0;
    String name = marker ? "DeleteMarker" : "Version";
    s.append(space(r)).append('<').append(name).append('>');
    if (broken == 12 && url) {
      s.append("<Key>").append(r.nextBoolean() ? "a%G1" : r.nextBoolean() ? "a%E2%82" : "%").append("</Key>");
    } else if (broken != 1) {
      s.append(space(r)).append("<Key>").append(pad(r)).append(text(r, key, url)).append(pad(r)).append("</Key>");
    }
    if (r.nextInt(10) == 0) {
      s.append("<Key>").append(text(r, key(r), url)).append("</Key>"); // a second Key: the first counts
    }
    if (broken != 2) {
      leaf(r, s, "VersionId", "v" + r.nextInt(1_000_000) + (r.nextBoolean() ? ".\u00e9&" : ""));
    }
    if (r.nextInt(4) > 0) {
      leaf(r, s, "IsLatest", r.nextBoolean() ? "true" : r.nextBoolean() ? "false" : "TRUE");
    }
    if (broken != 3) {
      leaf(r, s, "LastModified", broken == 4 ? "2024-02-30T00:00:00.000Z" : broken == 9 ? "yesterday" : time(r));
    }
    if (r.nextBoolean()) {
      s.append(space(r)).append("<Owner><ID>").append(r.nextInt()).append("</ID><DisplayName>o&amp;p</DisplayName></Owner>");
    }
    if (!marker || r.nextInt(4) == 0) {
      if (broken != 5) {
        String etag = Long.toHexString(r.nextLong());
        leaf(r, s, "ETag", r.nextInt(5) == 0 ? "W/\"" + etag + "\"" : r.nextInt(5) == 0 ? etag : "\"" + etag + "\"");
      }
      if (broken != 6) {
        leaf(r, s, "Size", broken == 7 ? "12x" : broken == 8 ? "-5"
            : r.nextInt(30) == 0 ? "1234567890123456789" : Long.toString((long) (r.nextDouble() * 1e12)));
      }
    }
    if (r.nextBoolean()) {
      leaf(r, s, "StorageClass", "STANDARD");
    }
    if (r.nextInt(6) == 0) {
      s.append("<Checksum a=\"1\" b='&lt;'><Type>CRC32</Type><X/></Checksum>");
    }
    s.append(space(r)).append("</").append(name).append('>');
  }

  private static String time(Random r) {
    Instant t = Instant.ofEpochSecond(r.nextInt(2_000_000_000), r.nextInt(4) == 0 ? r.nextInt(1_000_000_000)
        : r.nextInt(1000) * 1_000_000L);
    String s = t.toString();
    return r.nextInt(4) == 0 || s.contains(".") ? s : s.replace("Z", ".000Z"); // mostly S3's form
  }

  private static void leaf(Random r, StringBuilder s, String name, String value) {
    s.append(space(r)).append('<').append(name).append('>').append(pad(r)).append(text(r, value, false))
        .append(pad(r)).append("</").append(name).append('>');
  }

  private static String key(Random r) {
    StringBuilder k = new StringBuilder();
    for (int n = 1 + r.nextInt(12); n > 0; n--) {
      k.appendCodePoint(KEY_CHARS[r.nextInt(KEY_CHARS.length)]);
    }
    return k.toString();
  }

  /** {@code value} as XML text: percent-encoded first when {@code url}, then each character escaped at random. */
  private static String text(Random r, String value, boolean url) {
    String v = url ? percent(r, value) : value;
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < v.length(); ) {
      int c = v.codePointAt(i);
      i += Character.charCount(c);
      int how = r.nextInt(6);
      if (c == '<' || c == '&' || (c == '>' && s.toString().endsWith("]]")) || how == 0) {
        s.append(c == '<' ? "&lt;" : c == '&' ? "&amp;" : c == '>' ? "&gt;" : c == '"' ? "&quot;"
            : c == '\'' ? "&apos;" : "&#" + c + ";");
      } else if (how == 1) {
        s.append("&#x").append(Integer.toHexString(c)).append(';');
      } else if (how == 2 && c != ']') {
        s.append("<![CDATA[").appendCodePoint(c).append("]]>");
      } else {
        s.appendCodePoint(c);
      }
    }
    return s.toString();
  }

  /** S3's {@code encoding-type=url}: every byte but unreserved ones as {@code %XX}, a space now and then as {@code +}. */
  private static String percent(Random r, String value) {
    StringBuilder s = new StringBuilder();
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' || c == '-'
          || c == '.' || c == '_') {
        s.append((char) c);
      } else if (c == ' ' && r.nextBoolean()) {
        s.append('+');
      } else {
        s.append('%').append(String.format(r.nextBoolean() ? "%02X" : "%02x", c));
      }
    }
    return s.toString();
  }

  private static String space(Random r) {
    return r.nextInt(10) == 0 ? "<!-- c -->" + SPACE[r.nextInt(SPACE.length)] : SPACE[r.nextInt(SPACE.length)];
  }

  private static String pad(Random r) {
    return r.nextInt(6) == 0 ? SPACE[r.nextInt(SPACE.length)] : "";
  }

  /** The bytes of a page, handed out in random chunks of 1 to 64 bytes (or whole, now and then). */
  private static final class Chunked extends InputStream {
    private final ByteArrayInputStream in;
    private final Random r;
    private final boolean whole;

    Chunked(byte[] doc, Random r) {
      this.in = new ByteArrayInputStream(doc);
      this.r = r;
      this.whole = r.nextInt(4) == 0;
    }

    @Override
    public int read() {
      return in.read();
    }

    @Override
    public int read(byte[] b, int off, int len) {
      return in.read(b, off, whole ? len : Math.min(len, 1 + r.nextInt(r.nextBoolean() ? 4 : 64)));
    }
  }
}
