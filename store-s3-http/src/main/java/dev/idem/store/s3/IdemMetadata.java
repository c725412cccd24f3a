package dev.idem.store.s3;

import dev.idem.core.Names;
import dev.idem.core.Sha256;
import dev.idem.core.store.ObjectInfo;
import dev.idem.store.s3.internal.client.ObjectHead;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The user metadata idem writes on every object it publishes ({@code x-amz-meta-idem-*}) and how it is
 * read back. Values from the server are checked, never trusted: a malformed hash means "not written by
 * idem" (so the content is hashed instead), a malformed writer or time is dropped.
 *
 * <ul>
 *   <li>{@code idem-sha256}: lowercase hex SHA-256 of the content, the identity the scan compares;
 *   <li>{@code idem-writer}: the writer id;
 *   <li>{@code idem-published}: ISO-8601 instant of the publish;
 *   <li>{@code idem-attempt}: a random id of the publish call, so a retried PUT that meets 412 can tell
 *       its own earlier write from another replica's;
 *   <li>{@code idem-size}: on divergence evidence (markers and bytes), the size of the attempt;
 *   <li>{@code idem-stored-sha256}: on divergence evidence, the SHA-256 of the stored object the attempt
 *       met, so the scan counts that object when retention has deleted it;
 *   <li>{@code idem-schema}: the schema version the publisher declared (decimal), on the object and on
 *       divergence evidence, so the scan tells a schema bump's overlap from keying drift; absent when
 *       none was declared (and on objects of earlier versions of idem), which reads as unknown.
 * </ul>
 */
final class IdemMetadata {
  static final String SHA256 = "idem-sha256";
  static final String WRITER = "idem-writer";
  static final String PUBLISHED = "idem-published";
  static final String ATTEMPT = "idem-attempt";
  static final String SIZE = "idem-size";
  static final String STORED_SHA256 = "idem-stored-sha256";
  static final String SCHEMA = "idem-schema";

  private IdemMetadata() {}

  static Map<String, String> of(String sha256, String writer, Instant published, String attempt, Integer schema) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(SHA256, sha256);
    m.put(WRITER, writer);
    m.put(PUBLISHED, published.toString());
    m.put(ATTEMPT, attempt);
    if (schema != null) {
      m.put(SCHEMA, schema.toString());
    }
    return m;
  }

  /** The recorded schema version, or {@code null} when there is none or it is not a version number. */
  static Integer schema(ObjectHead head) {
    String s = head.meta(SCHEMA);
    if (s == null || s.isEmpty() || s.length() > 10 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return null;
    }
    long v = Long.parseLong(s);
    return v <= Integer.MAX_VALUE ? (int) v : null;
  }

  /** On divergence evidence, the SHA-256 of the object the attempt met, or {@code null} when none is recorded. */
  static String storedSha256(ObjectHead head) {
    String s = head.meta(STORED_SHA256);
    return Sha256.isHex(s) ? s : null;
  }

  /** The recorded SHA-256, or {@code null} when the object was not written by idem. */
  static String sha256(ObjectHead head) {
    String s = head.meta(SHA256);
    return Sha256.isHex(s) ? s : null;
  }

  static String writer(ObjectHead head) {
    String w = head.meta(WRITER);
    if (w == null) {
      return null;
    }
    try {
      return Names.requireWriterId(w);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** The recorded publish time, else the server's Last-Modified, else {@code null}. */
  static Instant published(ObjectHead head) {
    String p = head.meta(PUBLISHED);
    if (p != null) {
      try {
        return Instant.parse(p);
      } catch (DateTimeParseException e) {
        // fall through to the server's time
      }
    }
    return head.lastModified();
  }

  static long size(ObjectHead head) {
    String s = head.meta(SIZE);
    if (s != null) {
      try {
        long v = Long.parseLong(s);
        if (v >= 0) {
          return v;
        }
      } catch (NumberFormatException e) {
        // fall through to the content length
      }
    }
    return head.size();
  }

  static ObjectInfo info(String key, String sha256, ObjectHead head) {
    return new ObjectInfo(key, sha256, head.size(), writer(head), published(head));
  }
}
