package dev.idem.store.s3.internal.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link VersionsPageReader} on pages written out by hand: what it reads from a page with every kind of
 * escape, and for each way a reply can be broken (cut short, a bad entity, wrong nesting, bytes that
 * are not UTF-8, a bad percent-encoding, a missing field) the one-line {@link MalformedReplyException}
 * it must throw instead of a page.
 */
class VersionsPageReaderTest {
  private static final String WHAT = "GET bkt?versions";
  private static final String VERSION = "<Version><Key>k</Key><VersionId>v1</VersionId><IsLatest>true</IsLatest>"
      + "<LastModified>2024-09-10T20:27:30.000Z</LastModified><ETag>&quot;abc&quot;</ETag><Size>3</Size></Version>";

  private static VersionsPage read(byte[] page) throws IOException {
    return VersionsPageReader.read(new ByteArrayInputStream(page), WHAT);
  }

  private static VersionsPage read(String page) throws IOException {
    return read(page.getBytes(StandardCharsets.UTF_8));
  }

  private static String page(String entries) {
    return "<ListVersionsResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><IsTruncated>false</IsTruncated>"
        + entries + "</ListVersionsResult>";
  }

  /** The reader's error for {@code page}: one line, naming the request, containing {@code reason}. */
  private static void refused(byte[] page, String reason) {
    MalformedReplyException e = assertThrows(MalformedReplyException.class, () -> read(page));
    assertTrue(e.getMessage().startsWith("malformed reply to " + WHAT + ": "), e.getMessage());
    assertTrue(e.getMessage().contains(reason), () -> "expected '" + reason + "' in: " + e.getMessage());
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
  }

  private static void refused(String page, String reason) {
    refused(page.getBytes(StandardCharsets.UTF_8), reason);
  }

  @Test
  void keysWithEveryEscape_surrogatePairsIncluded() throws IOException {
    String key = "a&amp;b&lt;c&gt;&quot;&apos; &#x1F600;\uD83D\uDE00&#233;<![CDATA[<&]]>\u4e2d&#x10FFFF;";
    VersionsPage p = read(page("<Version>\n  <Key> " + key + "\t</Key><VersionId>v1</VersionId>"
        + "<LastModified>2024-09-10T20:27:30.5Z</LastModified><ETag>W/\"e\"</ETag><Size>0</Size>"
        + "<Owner><ID>1</ID></Owner><StorageClass>STANDARD</StorageClass></Version>\n"
        + "<DeleteMarker><Key>" + key + "</Key><VersionId>v0</VersionId><IsLatest>true</IsLatest>"
        + "<LastModified>2024-09-10T20:27:29Z</LastModified></DeleteMarker>"));
    String expected = "a&b<c>\"' \uD83D\uDE00\uD83D\uDE00\u00e9<&\u4e2d\uDBFF\uDFFF";
    assertEquals(List.of( // the latest first, as S3 lists it
        new ObjectVersion(expected, "v0", true, true, Instant.parse("2024-09-10T20:27:29Z"), null, 0),
        new ObjectVersion(expected, "v1", false, false, Instant.parse("2024-09-10T20:27:30.5Z"), "e", 0)), p.versions());
    assertSame(p.versions().get(0).key(), p.versions().get(1).key(), "versions of one key share its string");
    assertFalse(p.truncated());
  }

  @Test
  void urlEncodedKeys_areDecodedEvenWhenEncodingTypeComesLast() throws IOException {
    VersionsPage p = read("<ListVersionsResult><IsTruncated>true</IsTruncated><NextKeyMarker>n%C3%A9</NextKeyMarker>"
        + "<NextVersionIdMarker></NextVersionIdMarker>" + VERSION.replace("<Key>k</Key>", "<Key>a+b%2B%F0%9F%98%80</Key>")
        + "<CommonPrefixes><Prefix>p%2F</Prefix></CommonPrefixes><EncodingType>url</EncodingType></ListVersionsResult>");
    assertEquals("a b+\uD83D\uDE00", p.versions().get(0).key());
    assertEquals("n\u00e9", p.nextKeyMarker());
    assertEquals(null, p.nextVersionIdMarker());
    assertEquals(List.of("p/"), p.commonPrefixes());
  }

  /**
   * moto writes a page's Version elements first and its DeleteMarker elements after them, where S3
   * interleaves them in the listing's order: the page is read in the listing's order all the same, by
   * key, each key's latest entry first.
   */
  @Test
  void versionsThenDeleteMarkers_readInTheListingsOrder() throws IOException {
    String entry = "<%s><Key>%s</Key><VersionId>%s</VersionId><IsLatest>%s</IsLatest>"
        + "<LastModified>2026-12-06T06:21:37.000Z</LastModified>%s</%1$s>";
    String etag = "<ETag>\"e\"</ETag><Size>1</Size>";
    VersionsPage p = read(page(String.format(entry, "Version", "a/1", "v1", "false", etag)
        + String.format(entry, "Version", "a/2", "v2", "true", etag)
        + String.format(entry, "Version", "k", "v4", "false", etag)
        + String.format(entry, "Version", "k", "v3", "false", etag)
        + String.format(entry, "DeleteMarker", "a/1", "m1", "true", "")
        + String.format(entry, "DeleteMarker", "k", "m2", "true", "")));
    assertEquals(List.of("a/1 m1", "a/1 v1", "a/2 v2", "k m2", "k v4", "k v3"),
        p.versions().stream().map(v -> v.key() + " " + v.versionId()).toList());
  }

  @Test
  void truncatedReply_everyCutIsRefused() {
    byte[] whole = page(VERSION + VERSION).getBytes(StandardCharsets.UTF_8);
    for (int cut = 0; cut < whole.length; cut++) {
      int at = cut;
      MalformedReplyException e = assertThrows(MalformedReplyException.class,
          () -> read(Arrays.copyOf(whole, at)), () -> "accepted the first " + at + " bytes");
      assertTrue(e.getMessage().contains("not well-formed XML"), e.getMessage());
    }
  }

  @Test
  void badEntities_areRefused() {
    refused(page(VERSION.replace("<Key>k", "<Key>&nbsp;")), "unknown entity &nbsp;");
    refused(page(VERSION.replace("<Key>k", "<Key>&#xD800;")), "character reference to a character XML forbids");
    refused(page(VERSION.replace("<Key>k", "<Key>&amp")), "malformed entity reference");
    refused(page(VERSION.replace("<Key>k", "<Key>&#x;")), "malformed character reference");
    refused(page(VERSION.replace("<Key>k", "<Key>a & b")), "malformed entity reference");
  }

  @Test
  void wrongNesting_isRefused() {
    refused(page(VERSION.replace("<Key>k</Key>", "<Key>k</Version></Key>")), "end tag </Version> does not match <Key>");
    refused(page(VERSION.replace("</Version>", "")), "end tag </ListVersionsResult> does not match <Version>");
    refused(page(VERSION.replace("</Key>", "</KEY>")), "end tag </KEY> does not match <Key>"); // same length
    refused(page(VERSION.replace("</Size>", "</s3:Size>")), "end tag </s3:Size> does not match <Size>");
    refused(page(VERSION.replace("<Key>k</Key>", "<Key><b>k</b></Key>")), "element <b> where only text was expected");
    refused(page(VERSION) + "<ListVersionsResult/>", "more than one root element");
    refused("<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY e \"k\">]>" + page(VERSION), "DOCTYPE is not supported");
  }

  @Test
  void bytesThatAreNotUtf8_areRefused() {
    for (byte[] bad : new byte[][] {{(byte) 0xC3, '('}, {(byte) 0xC0, (byte) 0xAF}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
        {(byte) 0xFF}, {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xE2, (byte) 0x82}}) {
      ByteArrayOutputStream doc = new ByteArrayOutputStream();
      String[] halves = page(VERSION).split("<Key>k", 2);
      doc.writeBytes((halves[0] + "<Key>k").getBytes(StandardCharsets.UTF_8));
      doc.writeBytes(bad);
      doc.writeBytes(halves[1].getBytes(StandardCharsets.UTF_8));
      refused(doc.toByteArray(), "invalid UTF-8");
    }
    refused(page(VERSION.replace("<Key>k", "<Key>k\u0001")), "control character U+1 not allowed in XML");
  }

  @Test
  void badPercentEncoding_isRefused() {
    String url = "<EncodingType>url</EncodingType>";
    refused(page(url + VERSION.replace("<Key>k", "<Key>a%G1")), "bad percent-encoding in a%G1");
    refused(page(url + VERSION.replace("<Key>k", "<Key>a%4")), "bad percent-encoding in a%4");
    refused(page(url + VERSION.replace("<Key>k", "<Key>a%E2%82")), "percent-encoding that is not UTF-8 in a%E2%82");
    refused(page(url + VERSION.replace("<Key>k", "<Key>%C0%AF")), "percent-encoding that is not UTF-8");
  }

  @Test
  void missingOrWrongFields_areRefused() {
    refused(page(VERSION.replace("<ETag>&quot;abc&quot;</ETag>", "")), "<Version> without <ETag>");
    refused(page(VERSION.replace("<Size>3</Size>", "")), "<Version> without <Size>");
    refused(page(VERSION.replace("<Key>k</Key>", "")), "<Version> without <Key>");
    refused(page("<DeleteMarker><Key>k</Key><LastModified>2024-09-10T20:27:30.000Z</LastModified></DeleteMarker>"),
        "<DeleteMarker> without <VersionId>");
    refused(page(VERSION.replace("<LastModified>2024-09-10T20:27:30.000Z", "<LastModified>2024-02-30T20:27:30.000Z")),
        "not an ISO-8601 time: 2024-02-30T20:27:30.000Z");
    refused(page(VERSION.replace("<Size>3", "<Size>3x")), "not a number: 3x");
    refused(page(VERSION.replace("<Size>3", "<Size>-3")), "negative size -3");
    refused(page("<CommonPrefixes></CommonPrefixes>"), "<CommonPrefixes> without <Prefix>");
    refused(page(VERSION).replace("<IsTruncated>false", "<IsTruncated>yes"), "IsTruncated is neither true nor false");
    refused(page(VERSION).replace("<IsTruncated>false", "<IsTruncated>true"), "listing is truncated but has no NextKeyMarker");
    refused("<ListBucketResult/>", "expected <ListVersionsResult>, got <ListBucketResult>");
  }
}
