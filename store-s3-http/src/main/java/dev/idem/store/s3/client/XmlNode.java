package dev.idem.store.s3.client;

import java.io.ByteArrayInputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * A tiny element tree of one S3 XML reply, parsed with StAX with DTDs and external entities off (an S3
 * reply never needs them, and a hostile endpoint must not make the client read local files or expand
 * entity bombs). Replies are bounded by the client before they get here (a listing page is at most a
 * few hundred KiB), so a tree is cheaper to reason about than a streaming state machine.
 *
 * <p>Names are local names (namespaces ignored: AWS, S3Proxy, MinIO and Ceph differ in whether they
 * send one). Element text is kept only for leaf elements.
 */
final class XmlNode {
  private static final int MAX_DEPTH = 16;
  private static final XMLInputFactory FACTORY = newFactory();

  private final String name;
  private final List<XmlNode> children = new ArrayList<>();
  private final StringBuilder text = new StringBuilder();

  private XmlNode(String name) {
    this.name = name;
  }

  private static XMLInputFactory newFactory() {
    XMLInputFactory f = XMLInputFactory.newFactory();
    f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    f.setProperty(XMLInputFactory.IS_COALESCING, true);
    return f;
  }

  /**
   * Parses one reply.
   *
   * @throws MalformedReplyException when the bytes are not well-formed XML, use a DTD, or nest deeper
   *     than any S3 reply does
   */
  static XmlNode parse(byte[] body, String what) throws MalformedReplyException {
    XMLStreamReader r = null;
    try {
      synchronized (FACTORY) {
        r = FACTORY.createXMLStreamReader(new ByteArrayInputStream(body));
      }
      Deque<XmlNode> open = new ArrayDeque<>();
      XmlNode root = null;
      while (r.hasNext()) {
        switch (r.next()) {
          case XMLStreamConstants.START_ELEMENT -> {
            if (open.size() >= MAX_DEPTH) {
              throw new MalformedReplyException(what, "XML nested deeper than " + MAX_DEPTH);
            }
            XmlNode n = new XmlNode(r.getLocalName());
            if (open.isEmpty()) {
              if (root != null) {
                throw new MalformedReplyException(what, "more than one root element");
              }
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
          case XMLStreamConstants.DTD -> throw new MalformedReplyException(what, "reply declares a DTD");
          case XMLStreamConstants.ENTITY_REFERENCE ->
              throw new MalformedReplyException(what, "reply references an undeclared entity");
          default -> {
            // comments, processing instructions, whitespace outside elements: irrelevant
          }
        }
      }
      if (root == null) {
        throw new MalformedReplyException(what, "empty body where XML was expected");
      }
      return root;
    } catch (XMLStreamException e) {
      throw new MalformedReplyException(what, "not well-formed XML: " + firstLine(e.getMessage()));
    } finally {
      if (r != null) {
        try {
          r.close();
        } catch (XMLStreamException ignored) {
          // closing a reader over a byte array releases nothing
        }
      }
    }
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "unknown error";
    }
    String line = s.strip();
    int nl = line.lastIndexOf('\n');
    return S3Exception.oneLine(nl < 0 ? line : line.substring(nl + 1));
  }

  String name() {
    return name;
  }

  /** The text of a leaf element, whitespace-stripped. */
  String text() {
    return text.toString().strip();
  }

  /** The first child named {@code child}, or {@code null}. */
  XmlNode child(String child) {
    for (XmlNode n : children) {
      if (n.name.equals(child)) {
        return n;
      }
    }
    return null;
  }

  /** The text of the first child named {@code child}, or {@code null} when there is none. */
  String childText(String child) {
    XmlNode n = child(child);
    return n == null ? null : n.text();
  }

  /** All children, in document order. */
  List<XmlNode> children() {
    return children;
  }
}
