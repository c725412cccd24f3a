package dev.idem.store.s3.internal.xml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One test per construct of the XML subset {@link XmlPullParser} reads, and one per input it must
 * refuse, each refusal checked to be an {@link XmlSyntaxException} naming its position.
 */
class XmlPullParserTest {

  /** The events of {@code xml} as S:name, E:name, T:text. */
  static List<String> events(byte[] xml) throws IOException {
    XmlPullParser p = new XmlPullParser(new ByteArrayInputStream(xml));
    List<String> out = new ArrayList<>();
    for (int e = p.next(); e != XmlPullParser.END_DOCUMENT; e = p.next()) {
      out.add(switch (e) {
        case XmlPullParser.START_ELEMENT -> "S:" + p.localName();
        case XmlPullParser.END_ELEMENT -> "E:" + p.localName();
        default -> "T:" + p.text();
      });
    }
    assertEquals(XmlPullParser.END_DOCUMENT, p.next(), "END_DOCUMENT repeats");
    return out;
  }

  static List<String> events(String xml) throws IOException {
    return events(xml.getBytes(StandardCharsets.UTF_8));
  }

  static XmlSyntaxException fails(String xml, String reason) {
    return fails(xml.getBytes(StandardCharsets.UTF_8), reason);
  }

  static XmlSyntaxException fails(byte[] xml, String reason) {
    XmlSyntaxException e = assertThrows(XmlSyntaxException.class, () -> events(xml));
    assertTrue(e.getMessage().startsWith("not well-formed XML at line "), e.getMessage());
    assertTrue(e.getMessage().contains(reason), e.getMessage());
    return e;
  }

  // ------------------------------------------------------------------ constructs

  @Test
  void elementsAndText() throws IOException {
    assertEquals(List.of("S:a", "S:b", "T:x", "E:b", "T: ", "S:c", "E:c", "E:a"),
        events("<a><b>x</b> <c></c></a>"));
  }

  @Test
  void selfClosingTags_areStartThenEnd() throws IOException {
    assertEquals(List.of("S:a", "S:b", "E:b", "S:c", "E:c", "E:a"), events("<a><b/><c /></a>"));
  }

  @Test
  void prolog_declarationBomAndComments() throws IOException {
    byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    byte[] doc = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone='yes'?>\n<!-- c --><a/><!-- end -->\n"
        .getBytes(StandardCharsets.UTF_8);
    byte[] both = new byte[bom.length + doc.length];
    System.arraycopy(bom, 0, both, 0, 3);
    System.arraycopy(doc, 0, both, 3, doc.length);
    assertEquals(List.of("S:a", "E:a"), events(both));
    assertEquals(List.of("S:a", "E:a"), events("<?xml version='1.0'?><a/>"));
  }

  @Test
  void namespaces_declarationsIgnoredPrefixesDropped() throws IOException {
    assertEquals(List.of("S:ListVersionsResult", "S:Key", "T:k", "E:Key", "E:ListVersionsResult"),
        events("<ListVersionsResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\" xmlns:s3='urn:x'>"
            + "<s3:Key>k</s3:Key></ListVersionsResult>"));
  }

  @Test
  void predefinedEntities() throws IOException {
    assertEquals(List.of("S:a", "T:<>&'\"", "E:a"), events("<a>&lt;&gt;&amp;&apos;&quot;</a>"));
  }

  @Test
  void characterReferences_decimalHexAndSupplementary() throws IOException {
    assertEquals(List.of("S:a", "T:A\u00e9\ud83d\ude00\r", "E:a"), events("<a>&#65;&#xe9;&#x1F600;&#13;</a>"));
  }

  @Test
  void cdata_isTextCoalescedWithItsNeighboursAndComments() throws IOException {
    assertEquals(List.of("S:a", "T:x<&]]>y z", "E:a"), events("<a>x<![CDATA[<&]]]]><![CDATA[>]]>y<!-- c --> z</a>"));
    assertEquals(List.of("S:a", "E:a"), events("<a><![CDATA[]]></a>"));
  }

  @Test
  void utf8Text_andLineEndsNormalized() throws IOException {
    assertEquals(List.of("S:a", "T:\u00fc\u4e2d\ud83d\ude00\n\n\tx", "E:a"),
        events("<a>\u00fc\u4e2d\ud83d\ude00\r\n\r\tx</a>"));
  }

  @Test
  void whitespaceInTags() throws IOException {
    assertEquals(List.of("S:a", "S:b", "E:b", "E:a"), events("<a\n  x = 'y'\t><b\r\n/></a  >"));
  }

  @Test
  void attributeValues_mayHoldReferencesAndTheOtherQuote() throws IOException {
    assertEquals(List.of("S:a", "E:a"), events("<a x=\"'&amp;&#x41;'\" y='\"'/>"));
  }

  @Test
  void elementText_readsLeafAndSkipElement_skipsSubtree() throws IOException {
    XmlPullParser p = new XmlPullParser(new ByteArrayInputStream(
        "<r><a> t </a><b><c>1</c><d/></b><e/><f>x</f></r>".getBytes(StandardCharsets.UTF_8)));
    assertEquals(XmlPullParser.START_ELEMENT, p.next());
    assertEquals(XmlPullParser.START_ELEMENT, p.next());
    assertEquals(" t ", p.elementText());
    assertEquals(XmlPullParser.START_ELEMENT, p.next());
    assertEquals(2, p.depth());
    p.skipElement();
    assertEquals("b", p.localName());
    assertEquals(1, p.depth());
    p.next();
    assertEquals("", p.elementText());
    p.next();
    assertEquals("x", p.elementText());
    assertEquals(XmlPullParser.END_ELEMENT, p.next());
    assertEquals(XmlPullParser.END_DOCUMENT, p.next());
  }

  @Test
  void elementText_childElement_isRefused() throws IOException {
    XmlPullParser p = new XmlPullParser(new ByteArrayInputStream("<r><k>a<x/></k></r>".getBytes(StandardCharsets.UTF_8)));
    p.next();
    p.next();
    XmlSyntaxException e = assertThrows(XmlSyntaxException.class, p::elementText);
    assertTrue(e.getMessage().contains("element <x> where only text was expected"), e.getMessage());
  }

  @Test
  void localName_isOneInstancePerName() throws IOException {
    XmlPullParser p = new XmlPullParser(new ByteArrayInputStream("<r><Key/><Key/></r>".getBytes(StandardCharsets.UTF_8)));
    p.next();
    p.next();
    String first = p.localName();
    p.next();
    p.next();
    assertSame(first, p.localName());
  }

  @Test
  void oneByteReads_giveTheSameEvents() throws IOException {
    String xml = "<?xml version=\"1.0\"?><a x='1'>\u00e9&amp;<![CDATA[c]]><!--x--><b/>\ud83d\ude00</a>";
    InputStream trickle = new InputStream() {
      private final ByteArrayInputStream in = new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8));

      @Override
      public int read() {
        return in.read();
      }

      @Override
      public int read(byte[] b, int off, int len) {
        return in.read(b, off, Math.min(len, 1));
      }
    };
    XmlPullParser p = new XmlPullParser(trickle);
    List<String> out = new ArrayList<>();
    for (int e = p.next(); e != XmlPullParser.END_DOCUMENT; e = p.next()) {
      out.add(e == XmlPullParser.TEXT ? "T:" + p.text() : (e == XmlPullParser.START_ELEMENT ? "S:" : "E:") + p.localName());
    }
    assertEquals(events(xml), out);
  }

  @Test
  void streamFailure_isRethrownAsItIs() {
    IOException broken = new IOException("connection reset");
    InputStream in = new InputStream() {
      private boolean first = true;

      @Override
      public int read() throws IOException {
        throw broken;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (first) {
          first = false;
          b[off] = '<';
          b[off + 1] = 'a';
          b[off + 2] = '>';
          return 3;
        }
        throw broken;
      }
    };
    XmlPullParser p = new XmlPullParser(in);
    assertSame(broken, assertThrows(IOException.class, () -> {
      p.next();
      p.next();
    }));
  }

  // ------------------------------------------------------------------ refusals

  @Test
  void doctype_isRefusedSoNoEntityIsEverDeclared() {
    fails("<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><r>&x;</r>",
        "DOCTYPE is not supported");
  }

  @Test
  void unknownEntity_isRefused() {
    fails("<r>&nbsp;</r>", "unknown entity &nbsp;");
    fails("<r a='&x;'/>", "unknown entity &x;");
  }

  @Test
  void malformedReferences_areRefused() {
    fails("<r>&amp</r>", "malformed entity reference");
    fails("<r>& </r>", "malformed entity reference");
    fails("<r>&#;</r>", "malformed character reference");
    fails("<r>&#xG;</r>", "malformed character reference");
    fails("<r>&#0;</r>", "character reference to a character XML forbids");
    fails("<r>&#xD800;</r>", "character reference to a character XML forbids");
    fails("<r>&#x110000;</r>", "character reference to a character XML forbids");
    fails("<r>&#99999999999999999999;</r>", "character reference to a character XML forbids");
  }

  @Test
  void tagMismatches_areRefused() {
    fails("<a><b></a></b>", "end tag </a> does not match <b>");
    fails("<a></a></b>", "end tag outside the root element");
    fails("<a>", "input ends inside <a>");
    fails("<a><b", "input ends inside a start tag");
  }

  @Test
  void documentShape_isChecked() {
    fails("", "no root element");
    fails("  <!-- only a comment -->", "no root element");
    fails("<a/><b/>", "more than one root element");
    fails("this is not xml", "text outside the root element");
    fails("<a/>x", "text outside the root element");
  }

  @Test
  void processingInstructions_areRefused() {
    fails("<?xml-stylesheet href='x'?><a/>", "processing instructions are not supported");
    fails("<a><?pi x?></a>", "processing instructions are not supported");
    fails(" <?xml version='1.0'?><a/>", "processing instructions are not supported");
  }

  @Test
  void declaration_otherVersionsAndEncodings_areRefused() {
    fails("<?xml version=\"1.1\"?><a/>", "XML version 1.1 is not supported");
    fails("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>", "encoding ISO-8859-1 is not supported");
    fails("<?xml encoding=\"UTF-8\"?><a/>", "unexpected 'encoding' in the XML declaration");
    fails("<?xml version=\"1.0\" standalone=\"maybe\"?><a/>", "standalone must be yes or no");
  }

  @Test
  void textRules_areEnforced() {
    fails("<a>]]></a>", "']]>' in text");
    fails("<a>\u0001</a>", "control character U+1 not allowed in XML");
    fails("<a><!-- a -- b --></a>", "'--' inside a comment");
    fails("<a><!ELEMENT a ANY></a>", "unexpected '<!'");
    fails("<a><![CDATA[x</a>", "input ends inside a CDATA section");
  }

  @Test
  void badUtf8_isRefused() {
    fails(new byte[] {'<', 'a', '>', (byte) 0xC3, '<', '/', 'a', '>'}, "invalid UTF-8");
    fails(new byte[] {'<', 'a', '>', (byte) 0xC0, (byte) 0x80, '<', '/', 'a', '>'}, "invalid UTF-8");
    fails(new byte[] {'<', 'a', '>', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '<', '/', 'a', '>'}, "invalid UTF-8");
    fails(new byte[] {'<', 'a', '>', (byte) 0xFF, '<', '/', 'a', '>'}, "invalid UTF-8");
    fails(new byte[] {'<', 'a', '>', (byte) 0xEF, (byte) 0xBF, (byte) 0xBE, '<', '/', 'a', '>'}, "U+FFFE not allowed");
  }

  /**
   * A hostile reply with a start tag of {@value #MANY_ATTRIBUTES} attributes: parsed in work linear in
   * their number. Checking each name against all the earlier ones (10^10 and more string comparisons)
   * takes minutes; the bound is far above the linear parse and far below that.
   */
  @Test
  void attributes_manyInOneTag_linearWorkAndADuplicateStillFound() {
    StringBuilder tag = new StringBuilder("<a");
    for (int i = 0; i < MANY_ATTRIBUTES; i++) {
      tag.append(" n").append(i).append("=''");
    }
    String distinct = tag + "/>";
    String repeated = tag + " n0=''/>";
    List<String> parsed = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> events(distinct));
    assertEquals(List.of("S:a", "E:a"), parsed);
    assertTimeoutPreemptively(Duration.ofSeconds(60), () -> fails(repeated, "attribute n0 given twice"));
  }

  private static final int MANY_ATTRIBUTES = 300_000;

  @Test
  void attributes_malformed_areRefused() {
    fails("<a x=1/>", "attribute value must be quoted");
    fails("<a x='<'/>", "'<' in an attribute value");
    fails("<a x='1' x='2'/>", "attribute x given twice");
    fails("<a x='1'y='2'/>", "whitespace expected before an attribute");
    fails("<a x/>", "'=' expected");
    fails("<a / >", "'/' not followed by '>'");
  }

  @Test
  void names_malformed_areRefused() {
    fails("<1a/>", "name expected");
    fails("<a\u00d7/>", "character U+D7 not allowed in a name");
  }

  @Test
  void nestingDeeperThanTheLimit_isRefused() throws IOException {
    String deep = "<a>".repeat(17) + "</a>".repeat(17);
    fails(deep, "elements nested deeper than 16");
    XmlPullParser p = new XmlPullParser(new ByteArrayInputStream(deep.getBytes(StandardCharsets.UTF_8)), 17);
    int starts = 0;
    for (int e = p.next(); e != XmlPullParser.END_DOCUMENT; e = p.next()) {
      starts += e == XmlPullParser.START_ELEMENT ? 1 : 0;
    }
    assertEquals(17, starts);
  }

  @Test
  void errors_nameLineAndByte() {
    XmlSyntaxException e = fails("<a>\n<b>\n&bad;</b></a>", "unknown entity");
    assertEquals(3, e.line());
    assertEquals(12, e.byteOffset()); // at the ';' that ends the name
    assertTrue(e.getMessage().startsWith("not well-formed XML at line 3, byte 12: "), e.getMessage());
  }
}
