package dev.idem.core;

import java.util.regex.Pattern;

/**
 * Validation of every name a user types that ends up in a key or a store path (contract K4).
 *
 * <p>Pipeline and input names: 1–64 characters of {@code [a-z0-9._-]}, starting with a letter or
 * digit. That excludes {@code /}, {@code \}, {@code .} and {@code ..} as whole names, upper case
 * (which collides with lower case on case-insensitive filesystems), and the {@code _idem} prefix
 * that stores reserve for their own bookkeeping. A valid pipeline name is one path segment, so no
 * name can escape the store root or forge another pipeline's key.
 */
public final class Names {
  public static final int MAX_NAME_LENGTH = 64;
  public static final int MAX_WRITER_LENGTH = 128;
  public static final int MAX_KEY_LENGTH = 1024;

  private static final Pattern WRITER = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:@+-]{0,127}");

  private Names() {}

  public static boolean isValidName(String name) {
    // [a-z0-9][a-z0-9._-]{0,63} without a regex: this runs on every key derivation.
    if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
      if (!alnum && (i == 0 || (c != '.' && c != '_' && c != '-'))) {
        return false;
      }
    }
    return true;
  }

  /** Returns {@code pipeline} if valid; otherwise throws with a message naming the rule. */
  public static String requirePipeline(String pipeline) {
    return require("pipeline", pipeline);
  }

  public static String requireInputName(String name) {
    return require("input name", name);
  }

  /** Writer ids appear in ledgers, pointer documents and S3 metadata: printable, no spaces. */
  public static String requireWriterId(String writer) {
    if (writer == null || !WRITER.matcher(writer).matches()) {
      throw new IllegalArgumentException(
          "writer id must be 1-128 characters of [A-Za-z0-9._:@+-] starting with a letter or digit, was "
              + quote(writer));
    }
    return writer;
  }

  /**
   * Checks a store key (an idem key or a legacy writer's key) before it becomes a path or a URL:
   * non-empty {@code /}-separated segments, none of them {@code .} or {@code ..}, no control
   * characters or backslashes, at most {@value #MAX_KEY_LENGTH} UTF-16 units.
   */
  public static String requireSafeKey(String key) {
    if (key == null || key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
      throw new IllegalArgumentException(
          "key must be 1-" + MAX_KEY_LENGTH + " characters, was " + quote(key));
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c < 0x20 || c == 0x7f || c == '\\') {
        throw new IllegalArgumentException("key must not contain control characters or '\\': " + quote(key));
      }
    }
    for (String segment : key.split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        throw new IllegalArgumentException(
            "key segments must be non-empty and not '.' or '..': " + quote(key));
      }
    }
    return key;
  }

  private static String require(String what, String name) {
    if (!isValidName(name)) {
      throw new IllegalArgumentException(
          what + " must be 1-" + MAX_NAME_LENGTH
              + " characters of [a-z0-9._-] starting with a letter or digit, was " + quote(name));
    }
    return name;
  }

  static String quote(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length() && i < 80; i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append(s.length() > 80 ? "...\"" : "\"").toString();
  }
}
