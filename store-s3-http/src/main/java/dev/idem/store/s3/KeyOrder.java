package dev.idem.store.s3;

/**
 * The order S3 lists keys in: by UTF-8 bytes, which is code-point order. Java's {@link
 * String#compareTo} compares UTF-16 units instead and disagrees for characters above U+FFFF, so merges
 * of two listings compare with this.
 */
final class KeyOrder {
  private KeyOrder() {}

  static int compare(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }
}
