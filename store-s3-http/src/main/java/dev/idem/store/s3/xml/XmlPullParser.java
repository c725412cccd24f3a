package dev.idem.store.s3.xml;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A streaming pull parser for the XML that S3, STS and S3-compatible servers (MinIO, Ceph RGW, S3Proxy)
 * send: an optional UTF-8 byte order mark and XML declaration, comments, elements with attributes
 * (read for well-formedness and otherwise ignored, namespace declarations included), self-closing tags,
 * text with the five predefined entities and decimal and hexadecimal character references (any XML
 * character, supplementary code points too), CDATA sections and whitespace. It exists so the store needs
 * no {@code java.xml} module and reads a listing page from the response body as it arrives: names are
 * kept in one reused buffer and interned in a small cache, so a page costs little more than the strings
 * the caller asks for.
 *
 * <p>Guarantees: what it returns is what a conforming XML 1.0 parser reads from the same bytes (line
 * ends normalized to {@code \n}, references resolved, CDATA as text); anything outside the subset (a
 * DOCTYPE and so any other entity, a processing instruction, an encoding other than UTF-8, XML 1.1) and
 * anything not well-formed (mismatched or unclosed tags, bad UTF-8, characters XML forbids, {@code ]]>}
 * in text, a second root, text outside the root) is an {@link XmlSyntaxException} naming the line and
 * byte, thrown before the offending data is returned. Nothing is ever fetched or expanded. Element names
 * are local names: a prefix is dropped and not checked against a declaration. Nesting deeper than the
 * configured limit is an error, so a hostile reply cannot grow the name stack without bound.
 *
 * <p>Text is coalesced: all character data, references and CDATA sections between two tags, across any
 * comments among them, is one {@link #TEXT} event. A failed read of the stream is rethrown as it is (a
 * plain {@link IOException}); the parser is then unusable. Not thread-safe: one parser per reply.
 */
public final class XmlPullParser {
  /** An element's start tag (a self-closing tag is a start followed by an end). */
  public static final int START_ELEMENT = 1;
  /** An element's end tag. */
  public static final int END_ELEMENT = 2;
  /** The character data between two tags inside the root element. */
  public static final int TEXT = 3;
  /** The end of the input after the root element; returned again by every later call. */
  public static final int END_DOCUMENT = 4;

  private static final int DEFAULT_MAX_DEPTH = 16;
  private static final int NAME_CACHE = 64;

  private final InputStream in;
  private final int maxDepth;
  private final byte[] buf = new byte[8192];
  private int pos;
  private int limit;
  private boolean eof;
  /** Bytes before {@code buf[0]}, and the line feeds among them: for positions in messages. */
  private long base;
  private long linesBefore;

  private int event;
  private boolean started;
  private boolean rootSeen;
  private boolean pendingEnd;
  private int depth;
  /** The names of the open elements, one after the other in {@code names}. */
  private char[] names = new char[256];
  private final int[] nameOff;
  private final int[] nameLen;
  private final int[] localOff;
  /** The hash of each open element's local name, computed as it is read, for the name cache. */
  private final int[] localHash;
  /** The stack slot of the element of the current START_ELEMENT or END_ELEMENT event. */
  private int current;
  private final String[] nameCache = new String[NAME_CACHE];
  private final char[][] nameCacheChars = new char[NAME_CACHE][];
  private final StringBuilder text = new StringBuilder();
  private final List<String> attributes = new ArrayList<>();

  /** A parser over {@code in} that allows elements nested 16 deep (S3's replies nest at most 4). */
  public XmlPullParser(InputStream in) {
    this(in, DEFAULT_MAX_DEPTH);
  }

  /** A parser over {@code in} that allows elements nested {@code maxDepth} deep. */
  public XmlPullParser(InputStream in, int maxDepth) {
    if (maxDepth < 1) {
      throw new IllegalArgumentException("maxDepth must be positive, was " + maxDepth);
    }
    this.in = in;
    this.maxDepth = maxDepth;
    this.nameOff = new int[maxDepth + 1];
    this.nameLen = new int[maxDepth + 1];
    this.localOff = new int[maxDepth + 1];
    this.localHash = new int[maxDepth + 1];
  }

  /**
   * Reads the next event.
   *
   * @return {@link #START_ELEMENT}, {@link #END_ELEMENT}, {@link #TEXT} or {@link #END_DOCUMENT}
   * @throws XmlSyntaxException when the input is not well-formed or outside the supported subset
   * @throws IOException when the stream fails
   */
  public int next() throws IOException {
    if (event == END_DOCUMENT) {
      return END_DOCUMENT;
    }
    if (pendingEnd) {
      pendingEnd = false;
      current = --depth;
      return event = END_ELEMENT;
    }
    if (!started) {
      started = true;
      prolog();
    }
    return event = depth == 0 ? outsideRoot() : content();
  }

  /** The current event, 0 before the first {@link #next()}. */
  public int event() {
    return event;
  }

  /** The number of open elements: at a START_ELEMENT including it, at an END_ELEMENT excluding it. */
  public int depth() {
    return depth;
  }

  /** The local name (any prefix dropped) of the element of the current START_ELEMENT or END_ELEMENT. */
  public String localName() {
    if (event != START_ELEMENT && event != END_ELEMENT) {
      throw new IllegalStateException("no element at this event");
    }
    int off = localOff[current];
    int len = nameOff[current] + nameLen[current] - off;
    int h = localHash[current];
    int slot = (h ^ (h >>> 7)) & (NAME_CACHE - 1);
    char[] cached = nameCacheChars[slot];
    if (cached != null && cached.length == len && Arrays.equals(cached, 0, len, names, off, off + len)) {
      return nameCache[slot];
    }
    nameCacheChars[slot] = Arrays.copyOfRange(names, off, off + len);
    return nameCache[slot] = new String(names, off, len);
  }

  /** The character data of the current TEXT event. */
  public String text() {
    if (event != TEXT) {
      throw new IllegalStateException("no text at this event");
    }
    return text.toString();
  }

  /**
   * At a START_ELEMENT: reads the element's text up to and including its end tag ("" when it has
   * none), for elements that hold only text.
   *
   * @throws XmlSyntaxException when the element has a child element, or the input is malformed
   */
  public String elementText() throws IOException {
    if (event != START_ELEMENT) {
      throw new IllegalStateException("elementText() needs a START_ELEMENT");
    }
    String result = "";
    for (int e = next(); e != END_ELEMENT; e = next()) {
      if (e == TEXT) {
        result = text.toString(); // text is coalesced: at most one TEXT event before the end tag
      } else {
        throw error("element <" + localName() + "> where only text was expected");
      }
    }
    return result;
  }

  /** At a START_ELEMENT: reads past the element's end tag, skipping everything inside it. */
  public void skipElement() throws IOException {
    if (event != START_ELEMENT) {
      throw new IllegalStateException("skipElement() needs a START_ELEMENT");
    }
    int target = depth - 1;
    while (next() != END_ELEMENT || depth != target) {
      // skipped
    }
  }

  // ------------------------------------------------------------------ document structure

  private void prolog() throws IOException {
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

  /** Before and after the root element: whitespace and comments, then the root's start tag or the end. */
  private int outsideRoot() throws IOException {
    while (true) {
      skipSpace();
      if (!ensure(1)) {
        if (!rootSeen) {
          throw error("no root element");
        }
        return END_DOCUMENT;
      }
      if (buf[pos] != '<') {
        throw error("text outside the root element");
      }
      if (startsWith("<!--")) {
        comment();
        continue;
      }
      byte b1 = ensure(2) ? buf[pos + 1] : 0;
      if (b1 == '?') {
        throw error("processing instructions are not supported");
      } else if (b1 == '!') {
        throw error(startsWith("<!DOCTYPE") ? "DOCTYPE is not supported" : "unexpected '<!'");
      } else if (b1 == '/') {
        throw error("end tag outside the root element");
      } else if (rootSeen) {
        throw error("more than one root element");
      }
      startTag();
      return START_ELEMENT;
    }
  }

  /** Inside the root: text (coalesced across CDATA and comments), then a tag. */
  private int content() throws IOException {
    text.setLength(0);
    while (true) {
      if (pos >= limit && !ensure(1)) {
        throw error("input ends inside <" + new String(names, nameOff[depth - 1], nameLen[depth - 1]) + ">");
      }
      byte b = buf[pos];
      if ((b >= 0x20 && b != '<' && b != '&' && b != ']') || b == '\n' || b == '\t') {
        text.append((char) b);
        pos++;
      } else if (b == '<') {
        byte b1 = ensure(2) ? buf[pos + 1] : 0;
        if (b1 == '!') {
          if (startsWith("<!--")) {
            comment();
          } else if (startsWith("<![CDATA[")) {
            cdata();
          } else {
            throw error(startsWith("<!DOCTYPE") ? "DOCTYPE is not supported" : "unexpected '<!'");
          }
        } else if (text.length() > 0) {
          return TEXT;
        } else if (b1 == '/') {
          endTag();
          return END_ELEMENT;
        } else if (b1 == '?') {
          throw error("processing instructions are not supported");
        } else {
          startTag();
          return START_ELEMENT;
        }
      } else if (b == '&') {
        reference(text);
      } else if (b == ']' && startsWith("]]>")) {
        throw error("']]>' in text");
      } else {
        text.appendCodePoint(readChar());
      }
    }
  }

  private void startTag() throws IOException {
    if (depth >= maxDepth) {
      throw error("elements nested deeper than " + maxDepth);
    }
    pos++; // '<'
    int off = depth == 0 ? 0 : nameOff[depth - 1] + nameLen[depth - 1];
    nameOff[depth] = off;
    nameLen[depth] = readName(off);
    localOff[depth] = lastLocal;
    localHash[depth] = lastHash;
    current = depth++;
    rootSeen = true;
    attributes.clear();
    while (true) {
      boolean space = skipSpace();
      if (!ensure(1)) {
        throw error("input ends inside a start tag");
      }
      byte b = buf[pos];
      if (b == '>') {
        pos++;
        return;
      }
      if (b == '/') {
        if (!startsWith("/>")) {
          throw error("'/' not followed by '>' in a start tag");
        }
        pos += 2;
        pendingEnd = true;
        return;
      }
      if (!space) {
        throw error("whitespace expected before an attribute");
      }
      attribute();
    }
  }

  /** One attribute, read for well-formedness only: a name, '=', a quoted value with valid references. */
  private void attribute() throws IOException {
    int off = nameOff[depth - 1] + nameLen[depth - 1];
    int len = readName(off);
    String name = new String(names, off, len);
    if (attributes.contains(name)) {
      throw error("attribute " + name + " given twice");
    }
    attributes.add(name);
    skipSpace();
    expect('=');
    skipSpace();
    if (!ensure(1) || (buf[pos] != '"' && buf[pos] != '\'')) {
      throw error("attribute value must be quoted");
    }
    byte quote = buf[pos++];
    while (true) {
      if (!ensure(1)) {
        throw error("input ends inside an attribute value");
      }
      byte b = buf[pos];
      if (b == quote) {
        pos++;
        return;
      } else if (b == '<') {
        throw error("'<' in an attribute value");
      } else if (b == '&') {
        reference(null);
      } else {
        readChar();
      }
    }
  }

  private void endTag() throws IOException {
    pos += 2; // "</"
    int top = depth - 1;
    int off = nameOff[top] + nameLen[top];
    int len = readName(off);
    if (len != nameLen[top] || !Arrays.equals(names, off, off + len, names, nameOff[top], nameOff[top] + len)) {
      throw error("end tag </" + new String(names, off, len) + "> does not match <"
          + new String(names, nameOff[top], nameLen[top]) + ">");
    }
    skipSpace();
    expect('>');
    current = --depth;
  }

  // ------------------------------------------------------------------ lexical pieces

  /** Offset and hash of the local part of the name {@link #readName} read last. */
  private int lastLocal;
  private int lastHash;

  /** Reads a name into {@code names} at {@code off}; returns its length in chars. */
  private int readName(int off) throws IOException {
    int len = 0;
    int h = 0;
    lastLocal = off;
    while (true) {
      if (pos >= limit && !ensure(1)) {
        break;
      }
      if (off + len + 2 > names.length) {
        names = Arrays.copyOf(names, names.length * 2);
      }
      byte b = buf[pos];
      if (b >= 0) {
        if (!(len == 0 ? isNameStart(b) : isNameChar(b))) {
          break;
        }
        pos++;
        names[off + len++] = (char) b;
        h = 31 * h + b;
        if (b == ':') {
          lastLocal = off + len;
          h = 0;
        }
      } else {
        int c = readChar();
        if (!(len == 0 ? isNameStart(c) : isNameChar(c))) {
          throw error("character U+" + Integer.toHexString(c).toUpperCase() + " not allowed in a name");
        }
        int n = Character.toChars(c, names, off + len);
        for (int i = 0; i < n; i++) {
          h = 31 * h + names[off + len + i];
        }
        len += n;
      }
    }
    lastHash = h;
    if (len == 0) {
      throw error("name expected");
    }
    return len;
  }

  /** {@code &...;} at {@code pos}: appends the character to {@code out} (when not null) or fails. */
  private void reference(StringBuilder out) throws IOException {
    pos++; // '&'
    int c;
    if (ensure(1) && buf[pos] == '#') {
      pos++;
      int radix = 10;
      if (ensure(1) && buf[pos] == 'x') {
        radix = 16;
        pos++;
      }
      long value = 0;
      int digits = 0;
      while (ensure(1) && buf[pos] != ';') {
        int d = Character.digit(buf[pos], radix);
        if (d < 0 || buf[pos] < 0) {
          throw error("malformed character reference");
        }
        value = Math.min(value * radix + d, 0x110000);
        digits++;
        pos++;
      }
      if (digits == 0 || !ensure(1)) {
        throw error("malformed character reference");
      }
      if (!isXmlChar(value)) {
        throw error("character reference to a character XML forbids");
      }
      c = (int) value;
    } else {
      StringBuilder name = new StringBuilder(8);
      while (ensure(1) && buf[pos] != ';' && name.length() < 32 && isNameChar(buf[pos])) {
        name.append((char) buf[pos++]);
      }
      if (!ensure(1) || buf[pos] != ';') {
        throw error("malformed entity reference");
      }
      c = switch (name.toString()) {
        case "lt" -> '<';
        case "gt" -> '>';
        case "amp" -> '&';
        case "apos" -> '\'';
        case "quot" -> '"';
        default -> throw error("unknown entity &" + name + "; (only the five predefined ones are supported)");
      };
    }
    pos++; // ';'
    if (out != null) {
      out.appendCodePoint(c);
    }
  }

  private void comment() throws IOException {
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

  private void cdata() throws IOException {
    pos += 9; // "<![CDATA["
    while (true) {
      if (!ensure(1)) {
        throw error("input ends inside a CDATA section");
      }
      if (buf[pos] == ']' && startsWith("]]>")) {
        pos += 3;
        return;
      }
      text.appendCodePoint(readChar());
    }
  }

  /**
   * One character at {@code pos} (there is at least one byte), decoded from UTF-8, with a line end
   * ({@code \r\n} or a lone {@code \r}) read as {@code \n}; a byte sequence that is not UTF-8 or a
   * character XML forbids fails.
   */
  private int readChar() throws IOException {
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

  private boolean skipSpace() throws IOException {
    boolean any = false;
    while ((pos < limit || ensure(1)) && isSpace(buf[pos])) {
      pos++;
      any = true;
    }
    return any;
  }

  private void expect(char c) throws IOException {
    if (!ensure(1) || buf[pos] != c) {
      throw error("'" + c + "' expected");
    }
    pos++;
  }

  /** A short ASCII name, for the XML declaration. */
  private String asciiToken() throws IOException {
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
  private String quotedAscii() throws IOException {
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

  private boolean startsWith(String ascii) throws IOException {
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

  /** Whether {@code n} bytes are buffered at {@code pos}, reading more when needed ({@code n <= 9}). */
  private boolean ensure(int n) throws IOException {
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

  private XmlSyntaxException error(String reason) {
    return new XmlSyntaxException(reason, linesBefore + lineFeeds(pos) + 1, base + pos);
  }

  private static boolean isSpace(byte b) {
    return b == ' ' || b == '\n' || b == '\t' || b == '\r';
  }

  private static boolean isNameStart(int c) {
    if (c < 0x80) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    }
    return (c >= 0xC0 && c <= 0xD6) || (c >= 0xD8 && c <= 0xF6) || (c >= 0xF8 && c <= 0x2FF)
        || (c >= 0x370 && c <= 0x37D) || (c >= 0x37F && c <= 0x1FFF) || c == 0x200C || c == 0x200D
        || (c >= 0x2070 && c <= 0x218F) || (c >= 0x2C00 && c <= 0x2FEF) || (c >= 0x3001 && c <= 0xD7FF)
        || (c >= 0xF900 && c <= 0xFDCF) || (c >= 0xFDF0 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0xEFFFF);
  }

  private static boolean isNameChar(int c) {
    return isNameStart(c) || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == 0xB7
        || (c >= 0x300 && c <= 0x36F) || c == 0x203F || c == 0x2040;
  }

  private static boolean isXmlChar(long c) {
    return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD)
        || (c >= 0x10000 && c <= 0x10FFFF);
  }
}
