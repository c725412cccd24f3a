package dev.idem.store.s3.internal.xml;

import java.io.IOException;
import java.io.InputStream;

/**
 * The byte level of {@link XmlPullParser}: a buffer over the reply stream that the parser's loops read
 * directly ({@link #buf} from {@link #pos} to {@link #limit}), UTF-8 decoding with XML's line-end
 * normalization and character checks, the prolog and comments (which the parser only checks and
 * skips), UTF-8 encoding, the byte classes the parser's loops test, and the position (line and byte)
 * every {@link XmlSyntaxException} names. It exists to keep the parser's grammar apart from byte handling; it holds at most 8 KiB of the
 * input and reads more only when the parser asks ({@link #ensure}), so a failed read of the stream
 * surfaces at the point where the parser needed the bytes.
 */
final class XmlInput {
  private final InputStream in;
  final byte[] buf = new byte[8192];
  int pos;
  int limit;
  private boolean eof;
  /** Bytes before {@code buf[0]}, and the line feeds among them: for positions in messages. */
  private long base;
  private long linesBefore;

  /** Bytes that stand for themselves in text: printable ASCII except {@code < & ]}, tab and line feed. */
  static final boolean[] PLAIN = new boolean[256];
  /** ASCII bytes that may start a name, and that may continue one. */
  static final boolean[] NAME_START = new boolean[128];
  static final boolean[] NAME_CHAR = new boolean[128];

  static {
    for (int b = 0; b < 128; b++) {
      PLAIN[b] = (b >= 0x20 && b != '<' && b != '&' && b != ']') || b == '\n' || b == '\t';
      NAME_START[b] = XmlInput.isNameStart(b);
      NAME_CHAR[b] = XmlInput.isNameChar(b);
    }
  }

  XmlInput(InputStream in) {
    this.in = in;
  }

  /**
   * One character at {@code pos} (there is at least one byte), decoded from UTF-8, with a line end
   * ({@code \r\n} or a lone {@code \r}) read as {@code \n}; a byte sequence that is not UTF-8 or a
   * character XML forbids fails.
   */
  int readChar() throws IOException {
    int b = buf[pos] & 0xff;
    if (b < 0x80) {
      pos++;
      if (b >= 0x20 || b == '\n' || b == '\t') {
        return b;
      }
      if (b == '\r') {
        if (ensure(1) && buf[pos] == '\n') {
          pos++;
        }
        return '\n';
      }
      pos--;
      throw error("control character U+" + Integer.toHexString(b).toUpperCase() + " not allowed in XML");
    }
    int more;
    int c;
    int min;
    if ((b & 0xE0) == 0xC0) {
      more = 1;
      c = b & 0x1F;
      min = 0x80;
    } else if ((b & 0xF0) == 0xE0) {
      more = 2;
      c = b & 0x0F;
      min = 0x800;
    } else if ((b & 0xF8) == 0xF0) {
      more = 3;
      c = b & 0x07;
      min = 0x10000;
    } else {
      throw error("invalid UTF-8");
    }
    if (!ensure(more + 1)) {
      throw error("invalid UTF-8 (input ends inside a character)");
    }
    for (int i = 1; i <= more; i++) {
      int n = buf[pos + i] & 0xff;
      if ((n & 0xC0) != 0x80) {
        throw error("invalid UTF-8");
      }
      c = (c << 6) | (n & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
      throw error("invalid UTF-8");
    }
    if (c == 0xFFFE || c == 0xFFFF) {
      throw error("character U+" + Integer.toHexString(c).toUpperCase() + " not allowed in XML");
    }
    pos += more + 1;
    return c;
  }

  /** The byte order mark and XML declaration, when there; only UTF-8 XML 1.0 passes. */
  void prolog() throws IOException {
    if (ensure(3) && (buf[pos] & 0xff) == 0xEF && (buf[pos + 1] & 0xff) == 0xBB && (buf[pos + 2] & 0xff) == 0xBF) {
      pos += 3;
    }
    if (startsWith("<?xml") && ensure(6) && isSpace(buf[pos + 5])) {
      pos += 5;
      xmlDeclaration();
    }
  }

  /** The pseudo-attributes of {@code <?xml ...?>}: version first, then encoding and standalone. */
  private void xmlDeclaration() throws IOException {
    int seen = 0;
    while (true) {
      boolean space = skipSpace();
      if (startsWith("?>")) {
        pos += 2;
        break;
      }
      if (!space) {
        throw error("whitespace expected in the XML declaration");
      }
      String name = asciiToken();
      skipSpace();
      expect('=');
      skipSpace();
      String value = quotedAscii();
      if (name.equals("version") && seen == 0) {
        if (!value.equals("1.0")) {
          throw error("XML version " + value + " is not supported (1.0 only)");
        }
        seen = 1;
      } else if (name.equals("encoding") && seen == 1) {
        if (!value.equalsIgnoreCase("UTF-8") && !value.equalsIgnoreCase("US-ASCII")) {
          throw error("encoding " + value + " is not supported (UTF-8 only)");
        }
        seen = 2;
      } else if (name.equals("standalone") && seen >= 1 && seen < 3) {
        if (!value.equals("yes") && !value.equals("no")) {
          throw error("standalone must be yes or no");
        }
        seen = 3;
      } else {
        throw error("unexpected '" + name + "' in the XML declaration");
      }
    }
    if (seen == 0) {
      throw error("XML declaration without a version");
    }
  }

  /** Reads past the comment at {@code pos} ({@code <!--}), checking its characters. */
  void comment() throws IOException {
    pos += 4; // "<!--"
    while (true) {
      if (!ensure(1)) {
        throw error("input ends inside a comment");
      }
      if (buf[pos] == '-' && startsWith("--")) {
        if (!startsWith("-->")) {
          throw error("'--' inside a comment");
        }
        pos += 3;
        return;
      }
      readChar();
    }
  }

  boolean skipSpace() throws IOException {
    boolean any = false;
    while ((pos < limit || ensure(1)) && isSpace(buf[pos])) {
      pos++;
      any = true;
    }
    return any;
  }

  void expect(char c) throws IOException {
    if (!ensure(1) || buf[pos] != c) {
      throw error("'" + c + "' expected");
    }
    pos++;
  }

  /** A short ASCII name, for the XML declaration. */
  String asciiToken() throws IOException {
    StringBuilder s = new StringBuilder(10);
    while (ensure(1) && s.length() < 16 && buf[pos] >= 'a' && buf[pos] <= 'z') {
      s.append((char) buf[pos++]);
    }
    if (s.length() == 0) {
      throw error("malformed XML declaration");
    }
    return s.toString();
  }

  /** A short quoted ASCII value, for the XML declaration. */
  String quotedAscii() throws IOException {
    if (!ensure(1) || (buf[pos] != '"' && buf[pos] != '\'')) {
      throw error("quoted value expected in the XML declaration");
    }
    byte quote = buf[pos++];
    StringBuilder s = new StringBuilder(10);
    while (ensure(1) && buf[pos] != quote && s.length() < 40 && buf[pos] > 0x20) {
      s.append((char) buf[pos++]);
    }
    if (!ensure(1) || buf[pos] != quote) {
      throw error("malformed value in the XML declaration");
    }
    pos++;
    return s.toString();
  }

  boolean startsWith(String ascii) throws IOException {
    int n = ascii.length();
    if (!ensure(n)) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      if (buf[pos + i] != ascii.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether {@code n} bytes are buffered at {@code pos}, reading more when needed; {@code n} is at most
   * {@code buf.length}.
   */
  boolean ensure(int n) throws IOException {
    if (limit - pos >= n) {
      return true;
    }
    if (eof) {
      return false;
    }
    if (pos > 0) {
      linesBefore += lineFeeds(pos);
      base += pos;
      System.arraycopy(buf, pos, buf, 0, limit - pos);
      limit -= pos;
      pos = 0;
    }
    while (limit < n) {
      int r = in.read(buf, limit, buf.length - limit);
      if (r < 0) {
        eof = true;
        return false;
      }
      limit += r;
    }
    return true;
  }

  private int lineFeeds(int end) {
    int lines = 0;
    for (int i = 0; i < end; i++) {
      if (buf[i] == '\n') {
        lines++;
      }
    }
    return lines;
  }

  XmlSyntaxException error(String reason) {
    return new XmlSyntaxException(reason, linesBefore + lineFeeds(pos) + 1, base + pos);
  }

  static boolean isSpace(byte b) {
    return b == ' ' || b == '\n' || b == '\t' || b == '\r';
  }

  static boolean isNameStart(int c) {
    if (c < 0x80) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    }
    return (c >= 0xC0 && c <= 0xD6) || (c >= 0xD8 && c <= 0xF6) || (c >= 0xF8 && c <= 0x2FF)
        || (c >= 0x370 && c <= 0x37D) || (c >= 0x37F && c <= 0x1FFF) || c == 0x200C || c == 0x200D
        || (c >= 0x2070 && c <= 0x218F) || (c >= 0x2C00 && c <= 0x2FEF) || (c >= 0x3001 && c <= 0xD7FF)
        || (c >= 0xF900 && c <= 0xFDCF) || (c >= 0xFDF0 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0xEFFFF);
  }

  static boolean isNameChar(int c) {
    return isNameStart(c) || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == 0xB7
        || (c >= 0x300 && c <= 0x36F) || c == 0x203F || c == 0x2040;
  }

  static boolean isXmlChar(long c) {
    return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD)
        || (c >= 0x10000 && c <= 0x10FFFF);
  }

  /** Writes {@code c} as UTF-8 at {@code at}; returns the number of bytes (1 to 4). */
  static int utf8(int c, byte[] to, int at) {
    if (c < 0x80) {
      to[at] = (byte) c;
      return 1;
    } else if (c < 0x800) {
      to[at] = (byte) (0xC0 | (c >> 6));
      to[at + 1] = (byte) (0x80 | (c & 0x3F));
      return 2;
    } else if (c < 0x10000) {
      to[at] = (byte) (0xE0 | (c >> 12));
      to[at + 1] = (byte) (0x80 | ((c >> 6) & 0x3F));
      to[at + 2] = (byte) (0x80 | (c & 0x3F));
      return 3;
    }
    to[at] = (byte) (0xF0 | (c >> 18));
    to[at + 1] = (byte) (0x80 | ((c >> 12) & 0x3F));
    to[at + 2] = (byte) (0x80 | ((c >> 6) & 0x3F));
    to[at + 3] = (byte) (0x80 | (c & 0x3F));
    return 4;
  }

  /** The character of a predefined entity named by {@code e[0..n)}, or -1. */
  static int predefined(byte[] e, int n) {
    if (n == 2 && e[1] == 't') {
      return e[0] == 'l' ? '<' : e[0] == 'g' ? '>' : -1;
    } else if (n == 3 && e[0] == 'a' && e[1] == 'm' && e[2] == 'p') {
      return '&';
    } else if (n == 4 && e[0] == 'a' && e[1] == 'p' && e[2] == 'o' && e[3] == 's') {
      return '\'';
    } else if (n == 4 && e[0] == 'q' && e[1] == 'u' && e[2] == 'o' && e[3] == 't') {
      return '"';
    }
    return -1;
  }
}
