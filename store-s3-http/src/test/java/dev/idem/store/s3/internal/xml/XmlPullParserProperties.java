package dev.idem.store.s3.internal.xml;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link XmlPullParser} reads what the JDK's StAX parser (java.xml, test scope only) reads: for random
 * documents (random element trees, attributes and namespace declarations, text with entities,
 * character references, CDATA, comments, line ends and characters from all planes, an optional
 * declaration and byte order mark) fed in random chunk sizes, the same elements and the same text; and
 * for every prefix of such a document, it accepts exactly when the JDK does.
 */
class XmlPullParserProperties {
  private static final XMLInputFactory JDK = jdkFactory();
  private static final String[] NAMES = {"a", "Key", "VersionId", "x-y", "n.1", "_u", "\u00e9t\u00e9", "\u03a9", "\u4e2d"};
  /** Characters for text: ASCII, the markup characters, line ends, Latin, CJK, an emoji, a private-use one. */
  private static final int[] CHARS = {'a', 'Z', '0', ' ', '\t', '\n', '\r', '<', '>', '&', '"', '\'', ']', '-',
      0xe9, 0x4e2d, 0x1f600, 0xe000, 0xfffd, 0x10ffff, 0x7f, 0x85, 0x2028};

  private static XMLInputFactory jdkFactory() {
    XMLInputFactory f = XMLInputFactory.newFactory();
    f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    f.setProperty(XMLInputFactory.IS_COALESCING, true);
    return f;
  }

  @Property(tries = 300)
  void sameEventsAsTheJdk_inAnyChunking(@ForAll long seed) throws Exception {
    Random r = new Random(seed);
    byte[] doc = document(r);
    List<String> expected = jdk(doc);
    assertEquals(expected, ours(new Chunked(doc, r)), () -> new String(doc, StandardCharsets.UTF_8));
  }

  @Property(tries = 200)
  void acceptsAPrefixExactlyWhenTheJdkDoes(@ForAll long seed, @ForAll @IntRange(min = 0, max = 1000) int cut)
      throws Exception {
    Random r = new Random(seed);
    byte[] whole = document(r);
    byte[] doc = Arrays.copyOf(whole, Math.min(cut, whole.length));
    List<String> expected;
    try {
      expected = jdk(doc);
    } catch (XMLStreamException e) {
      expected = null;
    }
    List<String> actual;
    try {
      actual = ours(new Chunked(doc, r));
    } catch (XmlSyntaxException e) {
      actual = null;
    }
    assertEquals(expected, actual, () -> new String(doc, StandardCharsets.UTF_8));
  }

  // ------------------------------------------------------------------ the two readers

  /** Events as S:name, E:name, T:text; adjacent text merged, empty text and text outside the root dropped. */
  private static List<String> ours(InputStream in) throws IOException {
    XmlPullParser p = new XmlPullParser(in, 64);
    Events out = new Events();
    for (int e = p.next(); e != XmlPullParser.END_DOCUMENT; e = p.next()) {
      switch (e) {
        case XmlPullParser.START_ELEMENT -> out.element("S:" + p.localName());
        case XmlPullParser.END_ELEMENT -> out.element("E:" + p.localName());
        default -> out.text(p.text());
      }
    }
    return out.list;
  }

  private static List<String> jdk(byte[] doc) throws XMLStreamException {
    XMLStreamReader r;
    synchronized (JDK) {
      r = JDK.createXMLStreamReader(new ByteArrayInputStream(doc));
    }
    Events out = new Events();
    while (r.hasNext()) {
      switch (r.next()) {
        case XMLStreamConstants.START_ELEMENT -> out.element("S:" + r.getLocalName());
        case XMLStreamConstants.END_ELEMENT -> out.element("E:" + r.getLocalName());
        case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA, XMLStreamConstants.SPACE -> out.text(r.getText());
        default -> { }
      }
    }
    r.close();
    return out.list;
  }

  private static final class Events {
    final List<String> list = new ArrayList<>();
    int depth;
    boolean lastText;

    void element(String e) {
      depth += e.startsWith("S:") ? 1 : -1;
      list.add(e);
      lastText = false;
    }

    void text(String t) {
      if (depth == 0 || t.isEmpty()) {
        return;
      }
      if (lastText) {
        list.set(list.size() - 1, list.get(list.size() - 1) + t);
      } else {
        list.add("T:" + t);
      }
      lastText = true;
    }
  }

  // ------------------------------------------------------------------ random documents

  private static byte[] document(Random r) {
    StringBuilder s = new StringBuilder();
    if (r.nextInt(4) == 0) {
      s.append('\ufeff');
    }
    if (r.nextBoolean()) {
      s.append("<?xml version=").append(r.nextBoolean() ? "\"1.0\"" : "'1.0'");
      if (r.nextBoolean()) {
        s.append(" encoding=\"").append(r.nextBoolean() ? "UTF-8" : "utf-8").append('"');
      }
      if (r.nextInt(3) == 0) {
        s.append(" standalone='yes'");
      }
      s.append(r.nextBoolean() ? "?>" : " ?>");
    }
    misc(r, s);
    element(r, s, 0, true);
    misc(r, s);
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void misc(Random r, StringBuilder s) {
    for (int i = r.nextInt(3); i > 0; i--) {
      if (r.nextBoolean()) {
        s.append(" \n\t\r".charAt(r.nextInt(4)));
      } else {
        comment(r, s);
      }
    }
  }

  private static void element(Random r, StringBuilder s, int depth, boolean root) {
    String name = NAMES[r.nextInt(NAMES.length)];
    String qname = r.nextInt(5) == 0 ? "p:" + name : name;
    s.append('<').append(qname);
    if (root || qname.startsWith("p:")) {
      s.append(" xmlns:p=\"urn:p\"");
    }
    if (r.nextInt(3) == 0) {
      s.append(" xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"");
    }
    for (int i = r.nextInt(3); i > 0; i--) {
      char quote = r.nextBoolean() ? '"' : '\'';
      s.append(space(r)).append("at").append(i).append('=').append(quote);
      text(r, s, quote);
      s.append(quote);
    }
    s.append(r.nextBoolean() ? "" : space(r));
    if (r.nextInt(4) == 0) {
      s.append("/>");
      return;
    }
    s.append('>');
    int children = depth > 5 ? 0 : r.nextInt(5);
    for (int i = 0; i < children; i++) {
      switch (r.nextInt(4)) {
        case 0 -> element(r, s, depth + 1, false);
        case 1 -> comment(r, s);
        case 2 -> cdata(r, s);
        default -> text(r, s, '<');
      }
    }
    s.append("</").append(qname).append(r.nextBoolean() ? "" : space(r)).append('>');
  }

  private static String space(Random r) {
    return " \n\t\r".substring(0, 1 + r.nextInt(4));
  }

  /** Text (or an attribute value quoted with {@code quote}): characters escaped where XML needs it. */
  private static void text(Random r, StringBuilder s, char quote) {
    for (int i = r.nextInt(12); i > 0; i--) {
      int c = CHARS[r.nextInt(CHARS.length)];
      switch (r.nextInt(6)) {
        case 0 -> s.append("&#").append(c).append(';');
        case 1 -> s.append("&#x").append(Integer.toHexString(c)).append(';');
        default -> {
          switch (c) {
            case '<' -> s.append("&lt;");
            case '&' -> s.append("&amp;");
            case '>' -> s.append("&gt;");
            case '"' -> s.append(quote == '"' ? "&quot;" : "\"");
            case '\'' -> s.append(quote == '\'' ? "&apos;" : "'");
            default -> s.appendCodePoint(c);
          }
        }
      }
    }
  }

  private static void cdata(Random r, StringBuilder s) {
    s.append("<![CDATA[");
    StringBuilder body = new StringBuilder();
    for (int i = r.nextInt(8); i > 0; i--) {
      body.appendCodePoint(CHARS[r.nextInt(CHARS.length)]);
    }
    s.append(body.toString().replace("]]>", "]]")).append("]]>");
  }

  private static void comment(Random r, StringBuilder s) {
    StringBuilder body = new StringBuilder();
    for (int i = r.nextInt(8); i > 0; i--) {
      body.appendCodePoint(CHARS[r.nextInt(CHARS.length)]);
    }
    String text = body.toString().replace("-", "");
    s.append("<!--").append(text).append("-->");
  }

  /** The bytes of a document, handed out in random chunks of 1 to 64 bytes. */
  private static final class Chunked extends InputStream {
    private final ByteArrayInputStream in;
    private final Random r;

    Chunked(byte[] doc, Random r) {
      this.in = new ByteArrayInputStream(doc);
      this.r = r;
    }

    @Override
    public int read() {
      return in.read();
    }

    @Override
    public int read(byte[] b, int off, int len) {
      return in.read(b, off, Math.min(len, 1 + r.nextInt(r.nextBoolean() ? 4 : 64)));
    }
  }
}
