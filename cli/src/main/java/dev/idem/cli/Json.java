package dev.idem.cli;

import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A JSON object built field by field, printed on one line. Values: strings, numbers, booleans,
 * {@code null}, instants (as ISO-8601 strings), nested {@code Json}, and collections of those.
 * Enough for idem's reports without a JSON library on the startup path.
 */
final class Json {
  private final Map<String, Object> fields = new LinkedHashMap<>();

  static Json object() {
    return new Json();
  }

  Json put(String name, Object value) {
    fields.put(name, value);
    return this;
  }

  /** Adds the field only when {@code value} is not null. */
  Json putIfPresent(String name, Object value) {
    if (value != null) {
      fields.put(name, value);
    }
    return this;
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    write(b, this);
    return b.toString();
  }

  private static void write(StringBuilder b, Object v) {
    if (v == null) {
      b.append("null");
    } else if (v instanceof Json j) {
      b.append('{');
      boolean first = true;
      for (Map.Entry<String, Object> e : j.fields.entrySet()) {
        if (!first) {
          b.append(',');
        }
        first = false;
        string(b, e.getKey());
        b.append(':');
        write(b, e.getValue());
      }
      b.append('}');
    } else if (v instanceof Collection<?> c) {
      b.append('[');
      boolean first = true;
      for (Object o : c) {
        if (!first) {
          b.append(',');
        }
        first = false;
        write(b, o);
      }
      b.append(']');
    } else if (v instanceof Number || v instanceof Boolean) {
      b.append(v);
    } else {
      string(b, v instanceof Instant i ? i.toString() : v.toString());
    }
  }

  private static void string(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }
}
