package dev.idem.core;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The store key of one generation: {@code {pipeline}/{window_start}/state-{sha256 hex}}, exactly the
 * reference layout (contract K2). {@link RunSpec#outputKey()}, {@link #parse} and {@link #of} make one.
 *
 * <p>A final class rather than a record so that {@link RunSpec#outputKey()}, whose pipeline name was
 * validated when the spec was built and whose digest is hex by construction, can skip validating both
 * again: on the key derivation path that check cost as much as a fifth of the digest itself. Every
 * other way in validates.
 */
public final class OutputKey {
  private static final Pattern FORM = Pattern.compile("([^/]+)/(0|[1-9][0-9]{0,18})/state-([0-9a-f]{64})");
  private static final String MAX_WINDOW_START = Long.toString(Long.MAX_VALUE);

  private final String pipeline;
  private final long windowStartEpochSecond;
  private final String digestHex;

  private OutputKey(String pipeline, long windowStartEpochSecond, String digestHex) {
    this.pipeline = pipeline;
    this.windowStartEpochSecond = windowStartEpochSecond;
    this.digestHex = digestHex;
  }

  /**
   * A key from its three parts, validated.
   *
   * @param pipeline pipeline name (one path segment, {@code [a-z0-9][a-z0-9._-]{0,63}})
   * @param windowStartEpochSecond the window start, as in the key's second segment; {@code >= 0}
   * @param digestHex 64 lowercase hex digits, the SHA-256 of the spec's canonical encoding
   * @throws IllegalArgumentException when a part is invalid
   */
  public static OutputKey of(String pipeline, long windowStartEpochSecond, String digestHex) {
    Names.requirePipeline(pipeline);
    if (windowStartEpochSecond < 0) {
      throw new IllegalArgumentException("window start must be >= 0, was " + windowStartEpochSecond);
    }
    if (!Sha256.isHex(digestHex)) {
      throw new IllegalArgumentException("digest must be 64 lowercase hex digits, was " + Names.quote(digestHex));
    }
    return new OutputKey(pipeline, windowStartEpochSecond, digestHex);
  }

  /**
   * For {@link RunSpec#outputKey()} only: its pipeline was validated when the spec was built, its window
   * start is a {@link Window}'s (never negative) and its digest comes from {@link Sha256#hex}.
   */
  static OutputKey ofValidated(String pipeline, long windowStartEpochSecond, String digestHex) {
    return new OutputKey(pipeline, windowStartEpochSecond, digestHex);
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
    return of(m.group(1), start, m.group(3));
  }

  /**
   * True when {@code key} has the layout of an idem key, exactly when {@link #parse} reads it: a listed
   * key that is not idem's (a window start past {@code Long.MAX_VALUE} included) is legacy to the scan,
   * range planning and gc, never an error. A scan asks this of every listed key, most of them in a
   * legacy layout: a key that does not end in {@code /state-} and 64 characters is refused before the
   * pattern is matched (and a Matcher made).
   */
  public static boolean looksLikeKey(String key) {
    int n = key == null ? 0 : key.length();
    if (n < 74 || !key.startsWith("/state-", n - 71) || !FORM.matcher(key).matches()) {
      return false;
    }
    int slash = key.indexOf('/');
    // The pattern allows 19 digits; of those, only the ones up to Long.MAX_VALUE (same length, so
    // string order is numeric order) are a window start.
    return (n - 71 - slash - 1 < MAX_WINDOW_START.length()
        || key.substring(slash + 1, n - 71).compareTo(MAX_WINDOW_START) <= 0)
        && Names.isValidName(key.substring(0, slash));
  }

  /** The validated pipeline name (one path segment). */
  public String pipeline() {
    return pipeline;
  }

  /** The window start, as in the key's second segment. */
  public long windowStartEpochSecond() {
    return windowStartEpochSecond;
  }

  /** 64 lowercase hex digits, the SHA-256 of the spec's canonical encoding. */
  public String digestHex() {
    return digestHex;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OutputKey
        && ((OutputKey) o).windowStartEpochSecond == windowStartEpochSecond
        && ((OutputKey) o).digestHex.equals(digestHex)
        && ((OutputKey) o).pipeline.equals(pipeline);
  }

  @Override
  public int hashCode() {
    return digestHex.hashCode();
  }

  /** The key string, as stored. */
  @Override
  public String toString() {
    return pipeline + "/" + windowStartEpochSecond + "/state-" + digestHex;
  }
}
