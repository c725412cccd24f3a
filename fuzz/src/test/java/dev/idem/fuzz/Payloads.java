package dev.idem.fuzz;

/**
 * The bytes behind a payload label. Sizes differ by label so that one scenario mixes an empty object,
 * a small one and one large enough to take several writes and several reads.
 */
final class Payloads {
  static final String LABELS = "ABC";

  private Payloads() {}

  static byte[] bytes(char label) {
    int size = switch (label) {
      case 'A' -> 61;
      case 'B' -> 150_000;
      case 'C' -> 0;
      default -> throw new IllegalArgumentException("no payload labelled " + label);
    };
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) (label * 31 + i * 7 + (i >>> 8));
    }
    return b;
  }
}
