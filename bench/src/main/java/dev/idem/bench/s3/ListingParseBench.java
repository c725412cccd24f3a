package dev.idem.bench.s3;

import dev.idem.store.s3.internal.client.ObjectVersion;
import dev.idem.store.s3.internal.client.VersionsPage;
import dev.idem.store.s3.internal.client.VersionsPageReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Reading one ListObjectVersions page of 1,000 versions (the page {@code scripts/VersionListingServer}
 * serves the scan comparison: namespace, URL-encoded keys, quoted ETags, StorageClass) into a {@link
 * VersionsPage}, side by side:
 *
 * <ul>
 *   <li>{@code streaming}: {@link VersionsPageReader#read(java.io.InputStream, String)}, what the client
 *       runs (the store's own pull parser, {@code dev.idem.store.s3.internal.xml}).
 *   <li>{@code staxTree}: the reader it replaced, written out here as it was: the JDK's StAX parser
 *       (java.xml, coalescing, DTDs off) into an element tree, then the same fields read from the
 *       tree.
 * </ul>
 *
 * The parser is the store's internal {@code VersionsPageReader}, reached on the class path (its package
 * is not exported). Run: {@code java -jar bench/target/benchmarks.jar ListingParseBench -prof gc}
 * (allocation per page).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class ListingParseBench {
  private byte[] page;
  private XMLInputFactory factory;

  @Setup
  public void setup() {
    StringBuilder b = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListVersionsResult "
        + "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>scanbench</Name><Prefix>exports/</Prefix>"
        + "<KeyMarker></KeyMarker><VersionIdMarker></VersionIdMarker><MaxKeys>1000</MaxKeys>"
        + "<EncodingType>url</EncodingType>");
    for (int i = 0; i < 1000; i++) {
      int key = i / 5;
      int v = i % 5;
      b.append("<Version><Key>exports/job-").append(key % 100).append("/window-").append(100000 + key)
          .append(".csv</Key><VersionId>v").append(key).append('-').append(v).append("</VersionId><IsLatest>")
          .append(v == 0).append("</IsLatest><LastModified>2024-09-10T20:").append(10 + v).append(':')
          .append(10 + key % 50).append(".000Z</LastModified><ETag>&quot;")
          .append(String.format("%032x", (long) key * 7919)).append("&quot;</ETag><Size>20</Size>")
          .append("<StorageClass>STANDARD</StorageClass></Version>");
    }
    b.append("<IsTruncated>true</IsTruncated><NextKeyMarker>exports/job-99/window-100199.csv</NextKeyMarker>"
        + "<NextVersionIdMarker>v199-4</NextVersionIdMarker></ListVersionsResult>");
    page = b.toString().getBytes(StandardCharsets.UTF_8);
    factory = XMLInputFactory.newFactory();
    factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    factory.setProperty(XMLInputFactory.IS_COALESCING, true);
  }

  @Benchmark
  public VersionsPage streaming() throws IOException {
    return VersionsPageReader.read(new ByteArrayInputStream(page), "bench");
  }

  @Benchmark
  public VersionsPage staxTree() throws XMLStreamException {
    Node root = tree(page);
    boolean url = "url".equals(root.childText("EncodingType"));
    List<ObjectVersion> out = new ArrayList<>();
    for (Node n : root.children) {
      boolean marker = n.name.equals("DeleteMarker");
      if (!marker && !n.name.equals("Version")) {
        continue;
      }
      String key = url ? URLDecoder.decode(n.childText("Key"), StandardCharsets.UTF_8) : n.childText("Key");
      Instant modified = Instant.parse(n.childText("LastModified"));
      boolean latest = "true".equals(n.childText("IsLatest"));
      out.add(marker
          ? new ObjectVersion(key, n.childText("VersionId"), latest, true, modified, null, 0)
          : new ObjectVersion(key, n.childText("VersionId"), latest, false, modified,
              unquote(n.childText("ETag")), Long.parseLong(n.childText("Size"))));
    }
    boolean truncated = "true".equals(root.childText("IsTruncated"));
    return new VersionsPage(out, truncated, root.childText("NextKeyMarker"), root.childText("NextVersionIdMarker"),
        List.of());
  }

  /** ETags arrive quoted ({@code "abc"}) and are kept bare, as the store's reader keeps them. */
  private static String unquote(String etag) {
    String e = etag.strip();
    if (e.startsWith("W/")) {
      e = e.substring(2);
    }
    return e.length() >= 2 && e.startsWith("\"") && e.endsWith("\"") ? e.substring(1, e.length() - 1) : e;
  }

  /** The replaced reader's tree: element name, children, direct text. */
  private static final class Node {
    final String name;
    final List<Node> children = new ArrayList<>();
    final StringBuilder text = new StringBuilder();

    Node(String name) {
      this.name = name;
    }

    String childText(String child) {
      for (Node n : children) {
        if (n.name.equals(child)) {
          return n.text.toString().strip();
        }
      }
      return null;
    }
  }

  private Node tree(byte[] body) throws XMLStreamException {
    XMLStreamReader r;
    synchronized (factory) {
      r = factory.createXMLStreamReader(new ByteArrayInputStream(body));
    }
    Deque<Node> open = new ArrayDeque<>();
    Node root = null;
    while (r.hasNext()) {
      switch (r.next()) {
        case XMLStreamConstants.START_ELEMENT -> {
          Node n = new Node(r.getLocalName());
          if (open.isEmpty()) {
            root = n;
          } else {
            open.peek().children.add(n);
          }
          open.push(n);
        }
        case XMLStreamConstants.END_ELEMENT -> open.pop();
        case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA -> {
          if (!open.isEmpty()) {
            open.peek().text.append(r.getText());
          }
        }
        default -> { }
      }
    }
    r.close();
    return root;
  }
}
