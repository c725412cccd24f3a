package dev.idem.store.s3.internal.client;

import java.io.ByteArrayInputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * What a ListObjectVersions page says, read the slow and obvious way, to check {@link
 * VersionsPageReader} against: the JDK's StAX parser (java.xml, test scope only) builds an element tree,
 * and the page's rules are applied to the tree as the reader's Javadoc states them (first child of a
 * name counts, leaf text without the XML whitespace around it, required fields, {@link Instant#parse},
 * {@link Long#parseLong}, {@link URLDecoder} for {@code EncodingType url}, entries sorted by the keys'
 * UTF-8 bytes, a key's latest first). It shares no code with the
 * reader. Returns {@code null} when the reader must refuse the page.
 */
final class VersionsPageOracle {
  private static final XMLInputFactory JDK = jdk();

  private VersionsPageOracle() {}

  private static XMLInputFactory jdk() {
    XMLInputFactory f = XMLInputFactory.newFactory();
    f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    f.setProperty(XMLInputFactory.IS_COALESCING, true);
    return f;
  }

  /** An element: its local name, child elements, and the text directly inside it. */
  private record El(String name, List<El> children, StringBuilder text) {
    El first(String child) {
      return children.stream().filter(c -> c.name.equals(child)).findFirst().orElse(null);
    }

    String leaf(String child) {
      El c = first(child);
      return c == null ? null : trim(c.text.toString());
    }
  }

  /** The page {@code doc} holds, or {@code null} when it is not a valid ListObjectVersions reply. */
  static VersionsPage page(byte[] doc) {
    El root;
    try {
      root = tree(doc);
    } catch (XMLStreamException e) {
      return null;
    }
    if (root.name.equals("Error") || root.first("Contents") != null || root.leaf("IsTruncated") == null) {
      return null;
    }
    try {
      boolean url = "url".equals(root.leaf("EncodingType"));
      List<ObjectVersion> versions = new ArrayList<>();
      List<String> prefixes = new ArrayList<>();
      for (El c : root.children) {
        boolean marker = c.name.equals("DeleteMarker");
        if (marker || c.name.equals("Version")) {
          String key = need(c.leaf("Key"));
          String versionId = need(c.leaf("VersionId"));
          Instant modified = Instant.parse(need(c.leaf("LastModified")));
          boolean latest = "true".equals(c.leaf("IsLatest"));
          if (marker) {
            versions.add(new ObjectVersion(decode(key, url), versionId, latest, true, modified, null, 0));
          } else {
            String etag = unquote(need(c.leaf("ETag")));
            long size = Long.parseLong(need(c.leaf("Size")));
            if (size < 0) {
              return null;
            }
            versions.add(new ObjectVersion(decode(key, url), versionId, latest, false, modified, etag, size));
          }
        } else if (c.name.equals("CommonPrefixes")) {
          prefixes.add(decode(need(c.leaf("Prefix")), url));
        }
      }
      String t = root.leaf("IsTruncated");
      if (t != null && !t.equals("true") && !t.equals("false")) {
        return null;
      }
      boolean truncated = "true".equals(t);
      String nextKey = root.leaf("NextKeyMarker");
      if (truncated && (nextKey == null || nextKey.isEmpty())) {
        return null;
      }
      // The listing's order: by the keys' UTF-8 bytes, a key's latest entry first, the rest as given.
      versions.sort(Comparator.comparing((ObjectVersion v) -> v.key().getBytes(StandardCharsets.UTF_8),
          Arrays::compareUnsigned).thenComparing(v -> !v.latest()));
      String nextVersion = root.leaf("NextVersionIdMarker");
      return new VersionsPage(versions, truncated, truncated ? decode(nextKey, url) : null,
          nextVersion == null || nextVersion.isEmpty() ? null : nextVersion, prefixes);
    } catch (Missing | DateTimeParseException | IllegalArgumentException e) {
      return null; // NumberFormatException is an IllegalArgumentException, as is a bad percent-encoding
    }
  }

  private static El tree(byte[] doc) throws XMLStreamException {
    XMLStreamReader r;
    synchronized (JDK) {
      r = JDK.createXMLStreamReader(new ByteArrayInputStream(doc));
    }
    List<El> stack = new ArrayList<>();
    El root = null;
    while (r.hasNext()) {
      switch (r.next()) {
        case XMLStreamConstants.START_ELEMENT -> {
          El e = new El(r.getLocalName(), new ArrayList<>(), new StringBuilder());
          if (stack.isEmpty()) {
            root = e;
          } else {
            stack.get(stack.size() - 1).children.add(e);
          }
          stack.add(e);
        }
        case XMLStreamConstants.END_ELEMENT -> stack.remove(stack.size() - 1);
        case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA, XMLStreamConstants.SPACE -> {
          if (!stack.isEmpty()) {
            stack.get(stack.size() - 1).text.append(r.getText());
          }
        }
        default -> { }
      }
    }
    r.close();
    return root;
  }

  private static final class Missing extends RuntimeException {
    private static final long serialVersionUID = 1L;
  }

  private static String need(String s) {
    if (s == null) {
      throw new Missing();
    }
    return s;
  }

  private static String trim(String s) {
    int from = 0;
    int to = s.length();
    while (from < to && " \t\n\r".indexOf(s.charAt(from)) >= 0) {
      from++;
    }
    while (to > from && " \t\n\r".indexOf(s.charAt(to - 1)) >= 0) {
      to--;
    }
    return s.substring(from, to);
  }

  private static String unquote(String etag) {
    String e = etag.startsWith("W/") ? etag.substring(2) : etag;
    return e.length() >= 2 && e.startsWith("\"") && e.endsWith("\"") ? e.substring(1, e.length() - 1) : e;
  }

  /** URLDecoder, refusing (as the reader must) bytes that are not UTF-8 rather than replacing them. */
  private static String decode(String s, boolean url) {
    if (!url) {
      return s;
    }
    String d = URLDecoder.decode(s, StandardCharsets.UTF_8);
    if (d.indexOf('\ufffd') >= 0 && s.indexOf('\ufffd') < 0 && !s.toUpperCase().contains("%EF%BF%BD")) {
      throw new IllegalArgumentException("not UTF-8");
    }
    return d;
  }
}
