package dev.idem.store.s3.internal.client;

/**
 * The order S3 lists keys in: by UTF-8 bytes, which is code-point order. Java's {@link
 * String#compareTo} compares UTF-16 units instead and disagrees for characters above U+FFFF, so merges
 * of two listings compare with this.
 *
 * <p>It compares UTF-16 units, as {@link String#compareTo} does, and corrects the one case where that
 * order differs: at the first unit that differs, a surrogate (half of a character above U+FFFF) must
 * sort above U+E000..U+FFFF, below which UTF-16 puts it. No code points are decoded, so the scan's range
 * checks (one per listed version) cost a char comparison per shared character. Keys decoded from UTF-8
 * are well-formed UTF-16; on a lone surrogate the order is still total and consistent.
 */
public final class KeyOrder {
  private KeyOrder() {}

  public static int compare(String a, String b) {
    int n = Math.min(a.length(), b.length());
    for (int i = 0; i < n; i++) {
      char ca = a.charAt(i);
      char cb = b.charAt(i);
      if (ca != cb) {
        return Integer.compare(codePointRank(ca), codePointRank(cb));
      }
    }
    return Integer.compare(a.length(), b.length());
  }

  /**
   * Where a UTF-16 unit that differs first sorts in code-point order: surrogates (U+D800..U+DFFF) moved
   * above U+FFFF, U+E000..U+FFFF moved down into their place; both halves of a pair keep their order.
   */
  private static int codePointRank(char c) {
    return c < 0xD800 ? c : c < 0xE000 ? c + 0x2000 : c - 0x800;
  }
}
