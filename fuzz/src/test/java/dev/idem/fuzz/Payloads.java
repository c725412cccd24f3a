package dev.idem.fuzz;

/**
 * The bytes behind a payload label. Sizes differ by label so that one scenario mixes an empty object,
 * a small one and one large enough to take several writes and several reads; on S3, {@code D} is above
 * the backend's multipart threshold ({@link S3Backend#options()}), so it travels as a multipart upload of
 * two parts.
 */
final class Payloads {
  /** Every label, in the order of their draw weights ({@link Scenarios#replica}). */
  static final String LABELS = "ABCD";

  private Payloads() {}

  static byte[] bytes(char label) {
    int size = switch (label) {
      case 'A' -> 61;
      case 'B' -> 150_000;
      case 'C' -> 0;
      case 'D' -> 5 * 1024 * 1024 + 61;
      default -> throw new IllegalArgumentException("no payload labelled " + label);
    };
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) (label * 31 + i * 7 + (i >>> 8));
    }
    return b;
  }
}
