package dev.idem.core;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The store key of one generation: {@code {pipeline}/{window_start}/state-{sha256 hex}}, exactly the
 * reference layout (contract K2). Only {@link RunSpec#outputKey()} and {@link #parse} make one.
 *
 * @param pipeline validated pipeline name (one path segment)
 * @param windowStartEpochSecond the window start, as in the key's second segment
 * @param digestHex 64 lowercase hex digits, the SHA-256 of the spec's canonical encoding
 */
public record OutputKey(String pipeline, long windowStartEpochSecond, String digestHex) {
  private static final Pattern FORM = Pattern.compile("([^/]+)/(0|[1-9][0-9]{0,18})/state-([0-9a-f]{64})");

  public OutputKey {
    Names.requirePipeline(pipeline);
    if (windowStartEpochSecond < 0) {
      throw new IllegalArgumentException("window start must be >= 0, was " + windowStartEpochSecond);
    }
    if (!Sha256.isHex(digestHex)) {
      throw new IllegalArgumentException("digest must be 64 lowercase hex digits, was " + Names.quote(digestHex));
    }
  }

  /** Parses a key string in the reference layout; anything else is an {@link IllegalArgumentException}. */
  public static OutputKey parse(String key) {
    Matcher m = key == null ? null : FORM.matcher(key);
    if (m == null || !m.matches()) {
      throw new IllegalArgumentException(
          "not an idem key (expected pipeline/window_start/state-<64 hex>): " + Names.quote(key));
    }
    long start;
    try {
      start = Long.parseLong(m.group(2));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("window start out of range in key " + Names.quote(key), e);
    }
    return new OutputKey(m.group(1), start, m.group(3));
  }

  /**
   * True when {@code key} has the layout of an idem key. A scan asks this of every listed key, most of
   * them in a legacy layout: a key that does not end in {@code /state-} and 64 characters is refused
   * before the pattern is matched (and a Matcher made).
   */
  public static boolean looksLikeKey(String key) {
    int n = key == null ? 0 : key.length();
    return n >= 74 && key.startsWith("/state-", n - 71) && FORM.matcher(key).matches()
        && Names.isValidName(key.substring(0, key.indexOf('/')));
  }

  /** The key string, as stored. */
  @Override
  public String toString() {
    return pipeline + "/" + windowStartEpochSecond + "/state-" + digestHex;
  }
}
