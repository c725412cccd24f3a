package dev.idem.bench;

/** Distinct, valid idem-shaped keys made cheaply from a counter, the same way for idem and baselines. */
final class Keys {
  static final String PIPELINE = "bench";
  static final long WINDOW_START = 1_726_000_000L;
  private static final String ZEROS = "0".repeat(64);

  private Keys() {}

  /** {@code bench/1726000000/state-<64 hex digits of n, salted by lane>}: one key per (lane, n). */
  static String numbered(int lane, long n) {
    String hex = Integer.toHexString(lane) + "f" + Long.toHexString(n);
    return PIPELINE + "/" + WINDOW_START + "/state-" + ZEROS.substring(hex.length()) + hex;
  }
}
