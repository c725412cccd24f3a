package dev.idem.store.s3.internal.auth;

import static dev.idem.store.s3.internal.xml.XmlPullParser.END_DOCUMENT;
import static dev.idem.store.s3.internal.xml.XmlPullParser.END_ELEMENT;
import static dev.idem.store.s3.internal.xml.XmlPullParser.START_ELEMENT;

import dev.idem.store.s3.internal.xml.XmlPullParser;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads the leaf fields of one element of an STS XML reply, such as {@code Credentials} in
 * {@code AssumeRoleWithWebIdentityResponse} or {@code Error} in {@code ErrorResponse}.
 *
 * <p>Exists to keep XML handling in one hardened place: {@link XmlPullParser}, which reads no DTD and
 * resolves no entity beyond the five predefined ones, so a hostile or misconfigured endpoint cannot
 * make it read local files or expand entities. Errors say only that the reply is malformed; the
 * parser's own message is dropped because it may name parts of the document, and the document holds
 * secrets.
 */
final class StsXml {

  private StsXml() {}

  /**
   * The text of each leaf child of the first element named {@code parent} (by local name,
   * any namespace), keyed by the child's local name; the whole reply must be well-formed.
   *
   * @return the fields, empty when there is no such element
   * @throws IllegalArgumentException when {@code xml} is not well-formed, or a child of
   *     {@code parent} is not a leaf
   */
  static Map<String, String> fields(String xml, String parent) {
    Map<String, String> out = new HashMap<>();
    try {
      XmlPullParser p = new XmlPullParser(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
      boolean seen = false;
      for (int e = p.next(); e != END_DOCUMENT; e = p.next()) {
        if (e == START_ELEMENT && !seen && p.localName().equals(parent)) {
          seen = true;
          for (int c = p.next(); c != END_ELEMENT; c = p.next()) {
            if (c == START_ELEMENT) {
              String name = p.localName();
              String text = p.elementText().strip();
              out.putIfAbsent(name, text);
            }
          }
        }
      }
      return out;
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("reply is not well-formed XML of the expected shape");
    }
  }
}
