package dev.idem.store.s3.internal.auth;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A read-only view of the environment variables the credential sources consult.
 *
 * <p>Exists so every source treats the environment the same way: a variable that is unset,
 * empty or only whitespace counts as unset (shells often export {@code AWS_SESSION_TOKEN=}),
 * values are stripped, and tests pass their own map instead of {@code System.getenv()}.
 */
record EnvVars(Map<String, String> map) {

  EnvVars {
    Objects.requireNonNull(map, "env");
  }

  /** The stripped value of {@code name}, or {@code null} when unset or blank. */
  String get(String name) {
    String value = map.get(name);
    return value == null || value.isBlank() ? null : value.strip();
  }

  /** Whether {@code name} is set to {@code true}, ignoring case. */
  boolean isTrue(String name) {
    String value = get(name);
    return value != null && value.toLowerCase(Locale.ROOT).equals("true");
  }

  /** The value of {@code name} as a path, expanding a leading {@code ~/} to {@code home}. */
  Path path(String name, Path home) {
    String value = get(name);
    if (value == null) {
      return null;
    }
    if (value.equals("~")) {
      return home;
    }
    if (value.startsWith("~/")) {
      return home.resolve(value.substring(2));
    }
    return Path.of(value);
  }
}
