package dev.idem.store.s3.internal.auth;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A parser for the INI dialect of {@code ~/.aws/credentials} and {@code ~/.aws/config}.
 *
 * <p>Exists because the module may not depend on an INI library and the AWS files have a few
 * rules of their own:
 *
 * <ul>
 *   <li>{@code [section]} lines open a section; the name is trimmed, and a section that
 *       appears twice is merged (later keys win).
 *   <li>{@code key = value} lines; keys are trimmed and case-insensitive (stored in lower
 *       case), values are trimmed; the last of two equal keys wins.
 *   <li>Lines whose first non-blank character is {@code #} or {@code ;} are comments, and so
 *       is the rest of a line from a {@code #} or {@code ;} that follows whitespace; a
 *       {@code #} inside a value ({@code a#b}) is kept.
 *   <li>An indented line after a property continues it (the AWS CLI's nested
 *       {@code s3 =} blocks); it is ignored here, since no credential key uses one.
 *   <li>Anything else is a syntax error.
 * </ul>
 *
 * <p>Guarantee: error messages give only a line number, never line content, because the
 * content of a credentials file is a secret.
 */
final class IniFile {

  private static final Pattern INLINE_COMMENT = Pattern.compile("[ \\t][#;].*$");

  private IniFile() {}

  /**
   * Parses {@code text}.
   *
   * @return section name to (lower-case key to value), in file order; unmodifiable
   * @throws IllegalArgumentException naming the line number of the first syntax error
   */
  static Map<String, Map<String, String>> parse(String text) {
    Map<String, Map<String, String>> sections = new LinkedHashMap<>();
    Map<String, String> current = null;
    boolean inProperty = false;
    String[] lines = text.split("\\R", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = i == 0 && lines[0].startsWith("\uFEFF") ? lines[0].substring(1) : lines[i];
      String trimmed = line.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("#") || trimmed.startsWith(";")) {
        continue;
      }
      boolean indented = Character.isWhitespace(line.charAt(0));
      if (indented && inProperty) {
        continue;
      }
      String content = INLINE_COMMENT.matcher(trimmed).replaceFirst("").strip();
      int lineNumber = i + 1;
      if (content.startsWith("[")) {
        if (!content.endsWith("]")) {
          throw syntax(lineNumber, "a section header must end with ']'");
        }
        String name = content.substring(1, content.length() - 1).strip();
        if (name.isEmpty()) {
          throw syntax(lineNumber, "empty section name");
        }
        current = sections.computeIfAbsent(name, k -> new LinkedHashMap<>());
        inProperty = false;
        continue;
      }
      int eq = content.indexOf('=');
      if (eq < 0) {
        throw syntax(lineNumber, "expected '[section]' or 'key = value'");
      }
      String key = content.substring(0, eq).strip().toLowerCase(Locale.ROOT);
      if (key.isEmpty()) {
        throw syntax(lineNumber, "empty key before '='");
      }
      if (current == null) {
        throw syntax(lineNumber, "property before the first '[section]'");
      }
      current.put(key, content.substring(eq + 1).strip());
      inProperty = true;
    }
    Map<String, Map<String, String>> frozen = new LinkedHashMap<>();
    sections.forEach((name, props) -> frozen.put(name, Collections.unmodifiableMap(props)));
    return Collections.unmodifiableMap(frozen);
  }

  private static IllegalArgumentException syntax(int line, String what) {
    return new IllegalArgumentException("line " + line + ": " + what);
  }
}
