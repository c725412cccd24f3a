package dev.idem.store.s3.internal.auth;

import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A strict reader for one flat JSON object, the shape of the container and IMDS credential
 * replies ({@code {"AccessKeyId": "...", "Token": "...", ...}}).
 *
 * <p>Exists because the module may not depend on a JSON library, and a general parser is more
 * than credentials need. It accepts exactly RFC 8259 for a single top-level object whose
 * values are strings, numbers, {@code true}, {@code false} or {@code null}, surrounded by
 * optional whitespace. It rejects nested objects and arrays, duplicate names, trailing
 * content, unescaped control characters, bad escapes and lone surrogates.
 *
 * <p>Guarantee: error messages give a character offset and what was expected, never the
 * text, because the text holds secrets.
 */
final class FlatJson {

  private final String text;
  private int pos;

  private FlatJson(String text) {
    this.text = text;
  }

  /**
   * Parses {@code text}.
   *
   * @return name to value, in document order; numbers and booleans as their literal text;
   *     names whose value is {@code null} are left out; unmodifiable
   * @throws IllegalArgumentException with an offset, if {@code text} is not such an object
   */
  static Map<String, String> parse(String text) {
    FlatJson reader = new FlatJson(text);
    Map<String, String> fields = reader.object();
    reader.skipWhitespace();
    if (reader.pos != text.length()) {
      throw reader.error("end of input");
    }
    return Collections.unmodifiableMap(fields);
  }

  private Map<String, String> object() {
    Map<String, String> fields = new LinkedHashMap<>();
    Set<String> names = new HashSet<>();
    skipWhitespace();
    expect('{');
    skipWhitespace();
    if (peek() == '}') {
      pos++;
      return fields;
    }
    while (true) {
      skipWhitespace();
      int nameAt = pos;
      String name = string();
      if (!names.add(name)) {
        pos = nameAt;
        throw error("a name not used before in this object");
      }
      skipWhitespace();
      expect(':');
      skipWhitespace();
      String value = value();
      if (value != null) {
        fields.put(name, value);
      }
      skipWhitespace();
      int c = peek();
      if (c == ',') {
        pos++;
      } else if (c == '}') {
        pos++;
        return fields;
      } else {
        throw error("',' or '}'");
      }
    }
  }

  private String value() {
    int c = peek();
    if (c == '"') {
      return string();
    }
    if (c == '{' || c == '[') {
      throw error("a string, number, true, false or null (nested values are not supported)");
    }
    if (literal("true")) {
      return "true";
    }
    if (literal("false")) {
      return "false";
    }
    if (literal("null")) {
      return null;
    }
    return number();
  }

  private boolean literal(String word) {
    if (text.startsWith(word, pos)) {
      pos += word.length();
      return true;
    }
    return false;
  }

  private String number() {
    int start = pos;
    if (peek() == '-') {
      pos++;
    }
    if (peek() == '0') {
      pos++;
    } else if (isDigit(peek())) {
      while (isDigit(peek())) {
        pos++;
      }
    } else {
      throw error("a value");
    }
    if (peek() == '.') {
      pos++;
      requireDigits();
    }
    if (peek() == 'e' || peek() == 'E') {
      pos++;
      if (peek() == '+' || peek() == '-') {
        pos++;
      }
      requireDigits();
    }
    return text.substring(start, pos);
  }

  private void requireDigits() {
    if (!isDigit(peek())) {
      throw error("a digit");
    }
    while (isDigit(peek())) {
      pos++;
    }
  }

  private String string() {
    expect('"');
    StringBuilder out = new StringBuilder();
    while (true) {
      if (pos >= text.length()) {
        throw error("a closing '\"'");
      }
      char c = text.charAt(pos);
      if (c == '"') {
        pos++;
        return out.toString();
      }
      if (c < 0x20) {
        throw error("an escaped control character");
      }
      if (c == '\\') {
        pos++;
        out.append(escape());
      } else if (Character.isSurrogate(c)) {
        out.append(surrogatePair(c));
      } else {
        out.append(c);
        pos++;
      }
    }
  }

  private String surrogatePair(char high) {
    if (Character.isHighSurrogate(high) && pos + 1 < text.length()
        && Character.isLowSurrogate(text.charAt(pos + 1))) {
      pos += 2;
      return new String(new char[] {high, text.charAt(pos - 1)});
    }
    throw error("a complete surrogate pair");
  }

  private String escape() {
    int c = peek();
    pos++;
    return switch (c) {
      case '"' -> "\"";
      case '\\' -> "\\";
      case '/' -> "/";
      case 'b' -> "\b";
      case 'f' -> "\f";
      case 'n' -> "\n";
      case 'r' -> "\r";
      case 't' -> "\t";
      case 'u' -> unicodeEscape();
      default -> {
        pos--;
        throw error("a valid escape");
      }
    };
  }

  private String unicodeEscape() {
    char first = hex4();
    if (!Character.isSurrogate(first)) {
      return String.valueOf(first);
    }
    if (Character.isHighSurrogate(first) && text.startsWith("\\u", pos)) {
      pos += 2;
      char second = hex4();
      if (Character.isLowSurrogate(second)) {
        return new String(new char[] {first, second});
      }
    }
    throw error("a complete surrogate pair");
  }

  private char hex4() {
    if (pos + 4 > text.length()) {
      throw error("four hex digits");
    }
    int value = 0;
    for (int i = 0; i < 4; i++) {
      int digit = Character.digit(text.charAt(pos + i), 16);
      if (digit < 0) {
        throw error("four hex digits");
      }
      value = value << 4 | digit;
    }
    pos += 4;
    return (char) value;
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("'" + c + "'");
    }
    pos++;
  }

  private int peek() {
    return pos < text.length() ? text.charAt(pos) : -1;
  }

  private void skipWhitespace() {
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  private static boolean isDigit(int c) {
    return c >= '0' && c <= '9';
  }

  private IllegalArgumentException error(String expected) {
    return new IllegalArgumentException(
        "malformed JSON at offset " + pos + ": expected " + expected);
  }
}
