package dev.idem.store.s3.internal.xml;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * A streaming pull parser for the XML that S3, STS and S3-compatible servers (MinIO, Ceph RGW, S3Proxy)
 * send: an optional UTF-8 byte order mark and XML declaration, comments, elements with attributes
 * (read for well-formedness and otherwise ignored, namespace declarations included), self-closing tags,
 * text with the five predefined entities and decimal and hexadecimal character references (any XML
 * character, supplementary code points too), CDATA sections and whitespace. It exists so the store needs
 * no {@code java.xml} module and reads a listing page from the response body as it arrives. Names and
 * text are kept as UTF-8 bytes in reused buffers (runs of plain bytes copied whole, never decoded to
 * chars): a caller that reads a page field by field compares names as bytes ({@link #localNameIs}) and
 * reads text as bytes ({@link #elementTextBytes}), so a page costs little more than the strings the
 * caller makes of what it keeps; {@link #localName()} interns names in a small cache.
 *
 * <p>Guarantees: what it returns is what a conforming XML 1.0 parser reads from the same bytes (line
 * ends normalized to {@code \n}, references resolved, CDATA as text); anything outside the subset (a
 * DOCTYPE and so any other entity, a processing instruction, an encoding other than UTF-8, XML 1.1) and
 * anything not well-formed (mismatched or unclosed tags, bad UTF-8, characters XML forbids, {@code ]]>}
 * in text, a second root, text outside the root) is an {@link XmlSyntaxException} naming the line and
 * byte, thrown before the offending data is returned. Text handed out as bytes is therefore always
 * well-formed UTF-8 of XML characters. Nothing is ever fetched or expanded. Element names
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

  private final XmlInput src;
  private final int maxDepth;

  private int event;
  private boolean started;
  private boolean rootSeen;
  private boolean pendingEnd;
  private int depth;
  /** The UTF-8 names of the open elements, one after the other in {@code names}. */
  private byte[] names = new byte[256];
  private final int[] nameOff;
  private final int[] nameLen;
  private final int[] localOff;
  /** The hash of each open element's local name, computed as it is read, for the name cache. */
  private final int[] localHash;
  /** The stack slot of the element of the current START_ELEMENT or END_ELEMENT event. */
  private int current;
  private final String[] nameCache = new String[NAME_CACHE];
  private final byte[][] nameCacheBytes = new byte[NAME_CACHE][];
  /** The UTF-8 text of the current TEXT event (or of what {@link #elementTextBytes} read). */
  private byte[] text = new byte[256];
  private int textLen;
  private final byte[] entity = new byte[32];
  /** The attribute names of the current start tag: a hash set, so a tag of n attributes costs O(n). */
  private final Set<String> attributes = new HashSet<>();

  /** A parser over {@code in} that allows elements nested 16 deep (S3's replies nest at most 4). */
  public XmlPullParser(InputStream in) {
    this(in, DEFAULT_MAX_DEPTH);
  }

  /** A parser over {@code in} that allows elements nested {@code maxDepth} deep. */
  public XmlPullParser(InputStream in, int maxDepth) {
    if (maxDepth < 1) {
      throw new IllegalArgumentException("maxDepth must be positive, was " + maxDepth);
    }
    this.src = new XmlInput(in);
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
      src.prolog();
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
    byte[] cached = nameCacheBytes[slot];
    if (cached != null && Arrays.equals(cached, 0, cached.length, names, off, off + len)) {
      return nameCache[slot];
    }
    nameCacheBytes[slot] = Arrays.copyOfRange(names, off, off + len);
    return nameCache[slot] = new String(names, off, len, StandardCharsets.UTF_8);
  }

  /**
   * The index in {@code candidates} (UTF-8 names) of the local name of the element of the current
   * START_ELEMENT or END_ELEMENT, or -1: {@link #localNameIs} over a list.
   */
  public int localNameIndex(byte[][] candidates) {
    if (event != START_ELEMENT && event != END_ELEMENT) {
      throw new IllegalStateException("no element at this event");
    }
    int off = localOff[current];
    int end = nameOff[current] + nameLen[current];
    for (int i = 0; i < candidates.length; i++) {
      byte[] c = candidates[i];
      if (c.length == end - off && Arrays.equals(names, off, end, c, 0, c.length)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Whether the local name of the element of the current START_ELEMENT or END_ELEMENT is {@code name},
   * given as its UTF-8 bytes: a comparison of bytes, no string made.
   */
  public boolean localNameIs(byte[] name) {
    if (event != START_ELEMENT && event != END_ELEMENT) {
      throw new IllegalStateException("no element at this event");
    }
    int off = localOff[current];
    return Arrays.equals(names, off, nameOff[current] + nameLen[current], name, 0, name.length);
  }

  /** The character data of the current TEXT event. */
  public String text() {
    if (event != TEXT) {
      throw new IllegalStateException("no text at this event");
    }
    return new String(text, 0, textLen, StandardCharsets.UTF_8);
  }

  /**
   * At a START_ELEMENT: reads the element's text up to and including its end tag ("" when it has
   * none), for elements that hold only text.
   *
   * @throws XmlSyntaxException when the element has a child element, or the input is malformed
   */
  public String elementText() throws IOException {
    int n = elementTextBytes();
    return n == 0 ? "" : new String(text, 0, n, StandardCharsets.UTF_8);
  }

  /**
   * At a START_ELEMENT: reads the element's text up to and including its end tag, for elements that
   * hold only text, and returns its length in bytes: the text is then the first that many bytes of
   * {@link #textBytes()}, well-formed UTF-8 with references resolved and line ends normalized.
   *
   * @throws XmlSyntaxException when the element has a child element, or the input is malformed
   */
  public int elementTextBytes() throws IOException {
    if (event != START_ELEMENT) {
      throw new IllegalStateException("elementTextBytes() needs a START_ELEMENT");
    }
    int e = next();
    if (e == TEXT) {
      // Text is coalesced, so a tag follows it (content() stopped at its '<'): the end tag, or a child.
      if (src.ensure(2) && src.buf[src.pos + 1] == '/') {
        endTag();
        event = END_ELEMENT;
        return textLen;
      }
      e = next();
    }
    if (e != END_ELEMENT) {
      throw src.error("element <" + localName() + "> where only text was expected");
    }
    textLen = 0;
    return 0;
  }

  /**
   * The buffer holding the current text as UTF-8 (see {@link #elementTextBytes()}); valid, and to be
   * read only, until the next call to this parser. Text events give their length as {@link #textLength()}.
   */
  public byte[] textBytes() {
    return text;
  }

  /** The length in bytes of the text in {@link #textBytes()}. */
  public int textLength() {
    return textLen;
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

  /** Before and after the root element: whitespace and comments, then the root's start tag or the end. */
  private int outsideRoot() throws IOException {
    while (true) {
      src.skipSpace();
      if (!src.ensure(1)) {
        if (!rootSeen) {
          throw src.error("no root element");
        }
        return END_DOCUMENT;
      }
      if (src.buf[src.pos] != '<') {
        throw src.error("text outside the root element");
      }
      if (src.startsWith("<!--")) {
        src.comment();
        continue;
      }
      byte b1 = src.ensure(2) ? src.buf[src.pos + 1] : 0;
      if (b1 == '?') {
        throw src.error("processing instructions are not supported");
      } else if (b1 == '!') {
        throw src.error(src.startsWith("<!DOCTYPE") ? "DOCTYPE is not supported" : "unexpected '<!'");
      } else if (b1 == '/') {
        throw src.error("end tag outside the root element");
      } else if (rootSeen) {
        throw src.error("more than one root element");
      }
      startTag();
      return START_ELEMENT;
    }
  }

  /** Inside the root: text (coalesced across CDATA and comments), then a tag. */
  private int content() throws IOException {
    textLen = 0;
    while (true) {
      if (src.pos >= src.limit && !src.ensure(1)) {
        throw src.error("input ends inside <" + openName(depth - 1) + ">");
      }
      byte[] buf = src.buf;
      int from = src.pos;
      int p = from;
      int lim = src.limit;
      while (p < lim && XmlInput.PLAIN[buf[p] & 0xff]) {
        p++;
      }
      if (p > from) {
        append(buf, from, p - from);
        src.pos = p;
        if (p == lim) {
          continue;
        }
      }
      byte b = buf[p];
      if (b == '<') {
        byte b1 = src.ensure(2) ? src.buf[src.pos + 1] : 0;
        if (b1 == '!') {
          if (src.startsWith("<!--")) {
            src.comment();
          } else if (src.startsWith("<![CDATA[")) {
            cdata();
          } else {
            throw src.error(src.startsWith("<!DOCTYPE") ? "DOCTYPE is not supported" : "unexpected '<!'");
          }
        } else if (textLen > 0) {
          return TEXT;
        } else if (b1 == '/') {
          endTag();
          return END_ELEMENT;
        } else if (b1 == '?') {
          throw src.error("processing instructions are not supported");
        } else {
          startTag();
          return START_ELEMENT;
        }
      } else if (b == '&') {
        reference(true);
      } else if (b == ']' && src.startsWith("]]>")) {
        throw src.error("']]>' in text");
      } else {
        appendCodePoint(src.readChar());
      }
    }
  }

  private String openName(int slot) {
    return new String(names, nameOff[slot], nameLen[slot], StandardCharsets.UTF_8);
  }

  private void append(byte[] from, int off, int len) {
    if (textLen + len > text.length) {
      text = Arrays.copyOf(text, Math.max(text.length * 2, textLen + len));
    }
    System.arraycopy(from, off, text, textLen, len);
    textLen += len;
  }

  private void appendCodePoint(int c) {
    if (textLen + 4 > text.length) {
      text = Arrays.copyOf(text, text.length * 2);
    }
    textLen += XmlInput.utf8(c, text, textLen);
  }

  private void startTag() throws IOException {
    if (depth >= maxDepth) {
      throw src.error("elements nested deeper than " + maxDepth);
    }
    src.pos++; // '<'
    int off = depth == 0 ? 0 : nameOff[depth - 1] + nameLen[depth - 1];
    nameOff[depth] = off;
    nameLen[depth] = readName(off);
    localOff[depth] = lastLocal;
    localHash[depth] = lastHash;
    current = depth++;
    rootSeen = true;
    attributes.clear();
    while (true) {
      boolean space = src.skipSpace();
      if (!src.ensure(1)) {
        throw src.error("input ends inside a start tag");
      }
      byte b = src.buf[src.pos];
      if (b == '>') {
        src.pos++;
        return;
      }
      if (b == '/') {
        if (!src.startsWith("/>")) {
          throw src.error("'/' not followed by '>' in a start tag");
        }
        src.pos += 2;
        pendingEnd = true;
        return;
      }
      if (!space) {
        throw src.error("whitespace expected before an attribute");
      }
      attribute();
    }
  }

  /** One attribute, read for well-formedness only: a name, '=', a quoted value with valid references. */
  private void attribute() throws IOException {
    int off = nameOff[depth - 1] + nameLen[depth - 1];
    int len = readName(off);
    String name = new String(names, off, len, StandardCharsets.UTF_8);
    if (!attributes.add(name)) {
      throw src.error("attribute " + name + " given twice");
    }
    src.skipSpace();
    src.expect('=');
    src.skipSpace();
    if (!src.ensure(1) || (src.buf[src.pos] != '"' && src.buf[src.pos] != '\'')) {
      throw src.error("attribute value must be quoted");
    }
    byte quote = src.buf[src.pos++];
    while (true) {
      if (!src.ensure(1)) {
        throw src.error("input ends inside an attribute value");
      }
      byte b = src.buf[src.pos];
      if (b == quote) {
        src.pos++;
        return;
      } else if (b == '<') {
        throw src.error("'<' in an attribute value");
      } else if (b == '&') {
        reference(false);
      } else {
        src.readChar();
      }
    }
  }

  private void endTag() throws IOException {
    int top = depth - 1;
    int open = nameLen[top];
    // The common case, read in place: the open element's name and '>' right after "</".
    if (open + 3 <= src.buf.length && src.ensure(open + 3)) {
      int p = src.pos + 2;
      if (src.buf[p + open] == '>' && Arrays.equals(src.buf, p, p + open, names, nameOff[top], nameOff[top] + open)) {
        src.pos = p + open + 1;
        current = --depth;
        return;
      }
    }
    src.pos += 2; // "</"
    int off = nameOff[top] + nameLen[top];
    int len = readName(off);
    if (len != nameLen[top] || !Arrays.equals(names, off, off + len, names, nameOff[top], nameOff[top] + len)) {
      throw src.error("end tag </" + new String(names, off, len, StandardCharsets.UTF_8) + "> does not match <"
          + openName(top) + ">");
    }
    src.skipSpace();
    src.expect('>');
    current = --depth;
  }

  // ------------------------------------------------------------------ lexical pieces

  /** Offset and hash of the local part of the name {@link #readName} read last. */
  private int lastLocal;
  private int lastHash;

  /** Reads a name into {@code names} at {@code off} as UTF-8; returns its length in bytes. */
  private int readName(int off) throws IOException {
    // The common case: an ASCII name that ends, on an ASCII byte, inside the buffer.
    byte[] buf = src.buf;
    int from = src.pos;
    int lim = src.limit;
    if (from < lim && buf[from] >= 0 && XmlInput.NAME_START[buf[from]]) {
      boolean[] nameChar = XmlInput.NAME_CHAR;
      int local = from;
      int h = 0;
      int p = from;
      byte b;
      while (p < lim && (b = buf[p]) >= 0 && nameChar[b]) {
        p++;
        h = 31 * h + b;
        if (b == ':') {
          local = p;
          h = 0;
        }
      }
      if (p < lim && buf[p] >= 0) {
        int len = p - from;
        if (off + len > names.length) {
          names = Arrays.copyOf(names, Math.max(names.length * 2, off + len));
        }
        System.arraycopy(buf, from, names, off, len);
        src.pos = p;
        lastLocal = off + (local - from);
        lastHash = h;
        return len;
      }
    }
    return readNameByChar(off);
  }

  /** {@link #readName} a character at a time, reading more input as needed. */
  private int readNameByChar(int off) throws IOException {
    int len = 0;
    int h = 0;
    lastLocal = off;
    while (true) {
      if (src.pos >= src.limit && !src.ensure(1)) {
        break;
      }
      if (off + len + 4 > names.length) {
        names = Arrays.copyOf(names, names.length * 2);
      }
      byte b = src.buf[src.pos];
      if (b >= 0) {
        if (!(len == 0 ? XmlInput.NAME_START[b] : XmlInput.NAME_CHAR[b])) {
          break;
        }
        src.pos++;
        names[off + len++] = b;
        h = 31 * h + b;
        if (b == ':') {
          lastLocal = off + len;
          h = 0;
        }
      } else {
        int c = src.readChar();
        if (!(len == 0 ? XmlInput.isNameStart(c) : XmlInput.isNameChar(c))) {
          throw src.error("character U+" + Integer.toHexString(c).toUpperCase() + " not allowed in a name");
        }
        int n = XmlInput.utf8(c, names, off + len);
        for (int i = 0; i < n; i++) {
          h = 31 * h + names[off + len + i];
        }
        len += n;
      }
    }
    lastHash = h;
    if (len == 0) {
      throw src.error("name expected");
    }
    return len;
  }

  /** {@code &...;} at {@code pos}: appends the character to the text when {@code keep}, or fails. */
  private void reference(boolean keep) throws IOException {
    src.pos++; // '&'
    int c;
    if (src.ensure(1) && src.buf[src.pos] == '#') {
      src.pos++;
      int radix = 10;
      if (src.ensure(1) && src.buf[src.pos] == 'x') {
        radix = 16;
        src.pos++;
      }
      long value = 0;
      int digits = 0;
      while (src.ensure(1) && src.buf[src.pos] != ';') {
        int d = Character.digit(src.buf[src.pos], radix);
        if (d < 0 || src.buf[src.pos] < 0) {
          throw src.error("malformed character reference");
        }
        value = Math.min(value * radix + d, 0x110000);
        digits++;
        src.pos++;
      }
      if (digits == 0 || !src.ensure(1)) {
        throw src.error("malformed character reference");
      }
      if (!XmlInput.isXmlChar(value)) {
        throw src.error("character reference to a character XML forbids");
      }
      c = (int) value;
    } else {
      byte[] e = entity;
      int n = 0;
      while (src.ensure(1) && src.buf[src.pos] != ';' && n < e.length && src.buf[src.pos] >= 0
          && XmlInput.NAME_CHAR[src.buf[src.pos]]) {
        e[n++] = src.buf[src.pos++];
      }
      if (!src.ensure(1) || src.buf[src.pos] != ';') {
        throw src.error("malformed entity reference");
      }
      c = XmlInput.predefined(e, n);
      if (c < 0) {
        throw src.error("unknown entity &" + new String(e, 0, n, StandardCharsets.US_ASCII)
            + "; (only the five predefined ones are supported)");
      }
    }
    src.pos++; // ';'
    if (keep) {
      appendCodePoint(c);
    }
  }

  private void cdata() throws IOException {
    src.pos += 9; // "<![CDATA["
    while (true) {
      if (!src.ensure(1)) {
        throw src.error("input ends inside a CDATA section");
      }
      if (src.buf[src.pos] == ']' && src.startsWith("]]>")) {
        src.pos += 3;
        return;
      }
      appendCodePoint(src.readChar());
    }
  }

}
