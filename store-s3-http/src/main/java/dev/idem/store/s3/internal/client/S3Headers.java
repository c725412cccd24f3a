package dev.idem.store.s3.internal.client;

import java.net.http.HttpHeaders;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;

/**
 * S3's conventions for what travels in headers and small XML bodies, read and written for {@link
 * S3Client}: an object's size, ETag, version and {@code x-amz-meta-*} metadata from a reply, user
 * metadata as request headers (printable ASCII only, so nothing is mangled in transit), HTTP dates, and
 * the escaping of text put into a request's XML. Kept apart from the client so the client holds the
 * operations and this holds the formats.
 */
final class S3Headers {
  private S3Headers() {}

  /**
   * The object described by a HEAD or GET reply's headers.
   *
   * @param what the request and endpoint, for the error
   * @throws MalformedReplyException when {@code Content-Length} is missing or not a number
   */
  static ObjectHead objectHead(HttpHeaders h, String what) throws MalformedReplyException {
    long size;
    try {
      size = Long.parseLong(h.firstValue("Content-Length").orElseThrow(
          () -> new MalformedReplyException(what, "no Content-Length")));
    } catch (NumberFormatException e) {
      throw new MalformedReplyException(what, "Content-Length is not a number");
    }
    Map<String, String> meta = new HashMap<>();
    for (Map.Entry<String, List<String>> e : h.map().entrySet()) {
      String name = e.getKey().toLowerCase(Locale.ROOT);
      if (name.startsWith("x-amz-meta-") && !e.getValue().isEmpty()) {
        meta.put(name.substring("x-amz-meta-".length()), e.getValue().get(0));
      }
    }
    Instant modified = h.firstValue("Last-Modified").map(S3Headers::httpDate).orElse(null);
    return new ObjectHead(size, h.firstValue("ETag").orElse(null), modified,
        h.firstValue("x-amz-version-id").orElse(null), meta);
  }

  /**
   * The version a write created, from {@code x-amz-version-id}; {@code null} when the reply names none
   * or names the literal {@code null} (moto does on an unversioned bucket).
   */
  static String writtenVersion(HttpHeaders h) {
    return h.firstValue("x-amz-version-id").filter(v -> !v.isEmpty() && !v.equals("null")).orElse(null);
  }

  /** An RFC 1123 date ({@code Date}, {@code Last-Modified}); {@code null} when it is not one. */
  static Instant httpDate(String s) {
    try {
      return ZonedDateTime.parse(s, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** User metadata as {@code x-amz-meta-*} request headers; values must be printable ASCII. */
  static Map<String, String> meta(Map<String, String> metadata) {
    if (metadata.isEmpty()) {
      return Map.of();
    }
    Map<String, String> out = new LinkedHashMap<>();
    metadata.forEach((name, value) -> {
      for (int i = 0; i < value.length(); i++) {
        char ch = value.charAt(i);
        if (ch < 0x20 || ch > 0x7e) {
          throw new IllegalArgumentException("metadata " + name + " must be printable ASCII");
        }
      }
      out.put("x-amz-meta-" + name.toLowerCase(Locale.ROOT), value);
    });
    return Collections.unmodifiableMap(out);
  }

  /** Text made safe inside an XML element. */
  static String escapeXml(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
