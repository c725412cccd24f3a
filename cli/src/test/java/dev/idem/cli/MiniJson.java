package dev.idem.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A strict little JSON reader for tests: objects, arrays, strings, longs, booleans, null. */
final class MiniJson {
  private final String s;
  private int i;

  private MiniJson(String s) {
    this.s = s;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> object(String text) {
    Object v = parse(text);
    if (!(v instanceof Map)) {
      throw new IllegalArgumentException("not a JSON object: " + text);
    }
    return (Map<String, Object>) v;
  }

  static Object parse(String text) {
    MiniJson p = new MiniJson(text.strip());
    Object v = p.value();
    if (p.i != p.s.length()) {
      throw new IllegalArgumentException("trailing characters at " + p.i + " in " + text);
    }
    return v;
  }

  private Object value() {
    char c = s.charAt(i);
    switch (c) {
      case '{': {
        i++;
        Map<String, Object> m = new LinkedHashMap<>();
        if (s.charAt(i) == '}') {
          i++;
          return m;
        }
        while (true) {
          String k = string();
          expect(':');
          if (m.put(k, value()) != null) {
            throw new IllegalArgumentException("duplicate key " + k);
          }
          if (s.charAt(i) == ',') {
            i++;
            continue;
          }
          expect('}');
          return m;
        }
      }
      case '[': {
        i++;
        List<Object> l = new ArrayList<>();
        if (s.charAt(i) == ']') {
          i++;
          return l;
        }
        while (true) {
          l.add(value());
          if (s.charAt(i) == ',') {
            i++;
            continue;
          }
          expect(']');
          return l;
        }
      }
      case '"':
        return string();
      case 't':
        literal("true");
        return Boolean.TRUE;
      case 'f':
        literal("false");
        return Boolean.FALSE;
      case 'n':
        literal("null");
        return null;
      default: {
        int start = i;
        if (s.charAt(i) == '-') {
          i++;
        }
        while (i < s.length() && Character.isDigit(s.charAt(i))) {
          i++;
        }
        if (start == i) {
          throw new IllegalArgumentException("unexpected '" + c + "' at " + i + " in " + s);
        }
        return Long.parseLong(s.substring(start, i));
      }
    }
  }

  private String string() {
    expect('"');
    StringBuilder b = new StringBuilder();
    while (true) {
      char c = s.charAt(i++);
      if (c == '"') {
        return b.toString();
      }
      if (c == '\\') {
        char e = s.charAt(i++);
        switch (e) {
          case 'n' -> b.append('\n');
          case 'r' -> b.append('\r');
          case 't' -> b.append('\t');
          case 'u' -> {
            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            i += 4;
          }
          default -> b.append(e);
        }
      } else {
        b.append(c);
      }
    }
  }

  private void literal(String word) {
    if (!s.startsWith(word, i)) {
      throw new IllegalArgumentException("expected " + word + " at " + i);
    }
    i += word.length();
  }

  private void expect(char c) {
    if (s.charAt(i) != c) {
      throw new IllegalArgumentException("expected '" + c + "' at " + i + " in " + s);
    }
    i++;
  }
}
