package dev.idem.store.s3.auth;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Reads the leaf fields of one element of an STS XML reply, such as {@code Credentials} in
 * {@code AssumeRoleWithWebIdentityResponse} or {@code Error} in {@code ErrorResponse}.
 *
 * <p>Exists to keep XML handling in one hardened place: StAX with DTDs and external entities
 * disabled, so a hostile or misconfigured endpoint cannot make the parser read local files
 * or expand entities. Errors say only that the reply is malformed; the XML parser's own
 * message is dropped because it may quote the document, and the document holds secrets.
 */
final class StsXml {

  private static final XMLInputFactory FACTORY = newFactory();

  private StsXml() {}

  private static XMLInputFactory newFactory() {
    XMLInputFactory factory = XMLInputFactory.newFactory();
    factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    factory.setProperty(XMLInputFactory.IS_COALESCING, true);
    return factory;
  }

  /**
   * The text of each leaf child of the first element named {@code parent} (by local name,
   * any namespace), keyed by the child's local name.
   *
   * @return the fields, empty when there is no such element
   * @throws IllegalArgumentException when {@code xml} is not well-formed, or a child of
   *     {@code parent} is not a leaf
   */
  static Map<String, String> fields(String xml, String parent) {
    Map<String, String> out = new HashMap<>();
    XMLStreamReader reader = null;
    try {
      synchronized (FACTORY) {
        reader = FACTORY.createXMLStreamReader(
            new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
      }
      Deque<String> open = new ArrayDeque<>();
      boolean seen = false;
      while (reader.hasNext()) {
        int event = reader.next();
        if (event == XMLStreamConstants.START_ELEMENT) {
          String name = reader.getLocalName();
          if (!seen && parent.equals(open.peek())) {
            out.putIfAbsent(name, reader.getElementText().strip());
            continue;
          }
          open.push(name);
        } else if (event == XMLStreamConstants.END_ELEMENT) {
          if (parent.equals(open.pop())) {
            seen = true;
          }
        }
      }
      return out;
    } catch (XMLStreamException | RuntimeException e) {
      throw new IllegalArgumentException("reply is not well-formed XML of the expected shape");
    } finally {
      close(reader);
    }
  }

  private static void close(XMLStreamReader reader) {
    if (reader != null) {
      try {
        reader.close();
      } catch (XMLStreamException ignored) {
        // Nothing to release beyond the in-memory stream.
      }
    }
  }
}
