package dev.idem.store.s3;

import java.util.Locale;

/**
 * How an {@link S3ObjectStore} implements the pointer compare-and-swap.
 *
 * <p>Choose {@link #CAS} where {@code If-Match} on PutObject is atomic (AWS S3 since November 2024);
 * choose {@link #LOG} where only {@code If-None-Match: *} is (S3Proxy, older MinIO and Ceph RGW
 * releases), since a non-atomic {@code If-Match} lets two writers both win and loses an update.
 */
public enum PointerMode {
  /**
   * One object, {@code _idem/pointers/PIPELINE/latest}; the token is its ETag; create with {@code
   * If-None-Match: *}, replace with {@code If-Match: ETAG}. Two requests per advance (read, write).
   */
  CAS,
  /**
   * Numbered, create-only entries {@code _idem/pointers/PIPELINE/log/SEQ}; the token is the sequence
   * number; an advance from {@code n} creates {@code n+1}. Needs only an atomic {@code If-None-Match:
   * *}. Readers list the log from the last sequence they know; a plain copy at {@code latest} serves
   * readers that are not idem.
   */
  LOG;

  /** Parses {@code cas} or {@code log} (any case). */
  public static PointerMode parse(String s) {
    if (s != null) {
      for (PointerMode m : values()) {
        if (m.name().equalsIgnoreCase(s.strip())) {
          return m;
        }
      }
    }
    throw new IllegalArgumentException("pointer mode must be cas or log, was \"" + s + "\"");
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
