package dev.idem.cli;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * idem's settings: the environment, over a configuration file, so that a host or a developer's machine
 * states its store, pointer mode, writer and timeouts once instead of in every shell. Precedence is the
 * AWS CLI's: a flag over the environment over the file. The file supplies environment variables that are not set
 * (or empty), so every place that reads the environment (through {@link CliContext#env}) honours it and
 * every flag still wins.
 *
 * <p>The file is {@code $IDEM_CONFIG_FILE}, else {@code $XDG_CONFIG_HOME/idem/config}, else {@code
 * $HOME/.config/idem/config}; a missing default file is no error, a missing {@code $IDEM_CONFIG_FILE} is.
 * It is INI, as the AWS CLI's: {@code [default]} and {@code [profile NAME]} sections of {@code key =
 * value} lines, {@code #} and {@code ;} comments; {@code $IDEM_PROFILE} picks the profile ({@code
 * default} when unset), and a profile named but absent is an error. Keys are the settings of {@link
 * #KEYS}, each standing for one environment variable; an unknown key, a line that is no {@code key =
 * value} or a key given twice in one section is an error naming the file and line: a typo must not
 * silently leave a store unconfigured. Secrets have no key: credentials stay with the AWS chain.
 *
 * <p>Loading never throws: a bad file is remembered ({@link #error()}) and reported when a command runs
 * ({@link IdemCommand#context}), exit 2, before anything is read or written.
 */
final class Settings {
  /** File keys and the environment variables they set, in the order {@code idem doctor} shows them. */
  static final Map<String, String> KEYS = keys();

  private static Map<String, String> keys() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("store", "IDEM_STORE");
    m.put("writer", "IDEM_WRITER");
    m.put("connect_timeout", "IDEM_CONNECT_TIMEOUT");
    m.put("read_timeout", "IDEM_READ_TIMEOUT");
    m.put("max_time", "IDEM_MAX_TIME");
    m.put("s3_pointer_mode", "IDEM_S3_POINTER_MODE");
    m.put("s3_upload_parallelism", "IDEM_S3_UPLOAD_PARALLELISM");
    m.put("aws_endpoint_url", "AWS_ENDPOINT_URL");
    m.put("aws_region", "AWS_REGION");
    m.put("aws_profile", "AWS_PROFILE");
    return Collections.unmodifiableMap(m);
  }

  /** Where one setting's value came from. */
  enum Source { ENVIRONMENT, FILE }

  /** One setting as in force: its value and where it came from ({@code null}: a flag). */
  record Setting(String key, String variable, String value, Source source) {}

  private final Map<String, String> env;
  private final Path file;
  private final String profile;
  private final boolean fileRead;
  private final List<Setting> inForce;
  private final UsageException error;

  private Settings(Map<String, String> env, Path file, String profile, boolean fileRead, List<Setting> inForce,
      UsageException error) {
    this.env = env;
    this.file = file;
    this.profile = profile;
    this.fileRead = fileRead;
    this.inForce = inForce;
    this.error = error;
  }

  /** The environment {@code raw} with the configuration file it names (or the default one) under it. */
  static Settings load(Map<String, String> raw) {
    String profile = nonEmpty(raw.get("IDEM_PROFILE"), "default");
    Path file = null;
    try {
      file = location(raw);
      if (file == null) {
        return new Settings(Map.copyOf(raw), null, profile, false, inForce(raw, Map.of()), null);
      }
      Map<String, String> fromFile = read(file, profile, raw.get("IDEM_CONFIG_FILE") != null);
      boolean found = fromFile != null;
      Map<String, String> merged = new HashMap<>(raw);
      if (found) {
        fromFile.forEach((variable, value) -> {
          if (nonEmpty(raw.get(variable), null) == null) {
            merged.put(variable, value);
          }
        });
      }
      return new Settings(Map.copyOf(merged), file, profile, found, inForce(raw, found ? fromFile : Map.of()), null);
    } catch (UsageException e) {
      return new Settings(Map.copyOf(raw), file, profile, false, inForce(raw, Map.of()), e);
    }
  }

  /** The file named by the environment, or {@code null} when no place for one is known. */
  private static Path location(Map<String, String> env) {
    try {
      String named = nonEmpty(env.get("IDEM_CONFIG_FILE"), null);
      if (named != null) {
        return Path.of(named);
      }
      String xdg = nonEmpty(env.get("XDG_CONFIG_HOME"), null);
      if (xdg != null) {
        return Path.of(xdg, "idem", "config");
      }
      String home = nonEmpty(env.get("HOME"), null);
      return home == null ? null : Path.of(home, ".config", "idem", "config");
    } catch (InvalidPathException e) {
      throw new UsageException("configuration file: " + e.getMessage());
    }
  }

  /**
   * The variables the profile's section sets, or {@code null} when the file does not exist and was not
   * named explicitly.
   */
  private static Map<String, String> read(Path file, String profile, boolean named) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      if (named) {
        throw new UsageException("configuration file " + file + " (IDEM_CONFIG_FILE) does not exist");
      }
      return null;
    } catch (MalformedInputException e) {
      throw new UsageException("configuration file " + file + " is not UTF-8 text");
    } catch (IOException e) {
      throw new UsageException("configuration file " + file + " cannot be read: " + ExitCodes.oneLine(e));
    }
    String wanted = profile.equals("default") ? "default" : "profile " + profile;
    Map<String, String> found = null;
    List<String> sections = new ArrayList<>();
    String section = null;
    Map<String, String> seen = new HashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      String where = "configuration file " + file + " line " + (i + 1);
      if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
        continue;
      }
      if (line.startsWith("[")) {
        if (!line.endsWith("]")) {
          throw new UsageException(where + ": a section is [default] or [profile NAME]");
        }
        section = line.substring(1, line.length() - 1).strip().replaceAll("\\s+", " ");
        if (!section.equals("default") && !section.startsWith("profile ")) {
          throw new UsageException(where + ": a section is [default] or [profile NAME], was [" + section + "]");
        }
        sections.add(section);
        seen.clear();
        if (section.equals(wanted)) {
          found = found == null ? new LinkedHashMap<>() : found;
        }
        continue;
      }
      int eq = line.indexOf('=');
      if (eq <= 0) {
        throw new UsageException(where + ": not key = value");
      }
      if (section == null) {
        throw new UsageException(where + ": a setting outside a section; start with [default]");
      }
      String key = line.substring(0, eq).strip();
      String value = line.substring(eq + 1).strip();
      String variable = KEYS.get(key);
      if (variable == null) {
        throw new UsageException(where + ": unknown setting '" + key + "' (known: " + String.join(", ", KEYS.keySet())
            + ")");
      }
      if (seen.put(key, value) != null) {
        throw new UsageException(where + ": '" + key + "' set twice in [" + section + "]");
      }
      if (section.equals(wanted) && !value.isEmpty()) {
        found.put(variable, value);
      }
    }
    if (found == null && !profile.equals("default")) {
      throw new UsageException("profile " + profile + " (IDEM_PROFILE) is not in configuration file " + file
          + (sections.isEmpty() ? "" : " (it has: " + String.join(", ", sections) + ")"));
    }
    return found == null ? Map.of() : found;
  }

  private static List<Setting> inForce(Map<String, String> raw, Map<String, String> fromFile) {
    List<Setting> out = new ArrayList<>();
    KEYS.forEach((key, variable) -> {
      String fromEnv = nonEmpty(raw.get(variable), null);
      if (fromEnv != null) {
        out.add(new Setting(key, variable, fromEnv, Source.ENVIRONMENT));
      } else if (fromFile.containsKey(variable)) {
        out.add(new Setting(key, variable, fromFile.get(variable), Source.FILE));
      }
    });
    return List.copyOf(out);
  }

  private static String nonEmpty(String s, String otherwise) {
    return s == null || s.isEmpty() ? otherwise : s;
  }

  /** The environment with the file's settings under it: what every command reads. */
  Map<String, String> env() {
    return env;
  }

  /** The configuration file looked for, or {@code null} when no place for one is known (no HOME). */
  Path file() {
    return file;
  }

  /** Whether that file was there and read. */
  boolean fileRead() {
    return fileRead;
  }

  String profile() {
    return profile;
  }

  /** The settings with a value, from the environment or the file, in {@link #KEYS} order. */
  List<Setting> inForce() {
    return inForce;
  }

  /**
   * The lines {@code idem doctor} shows: which file (and profile) was read, then each setting in force
   * with where it came from; {@code storeFlag} is the command's {@code --store}, which wins over both.
   */
  List<String> describe(String storeFlag) {
    List<String> lines = new ArrayList<>();
    lines.add("config: " + (file == null ? "none (no HOME, XDG_CONFIG_HOME or IDEM_CONFIG_FILE to look in)"
        : fileRead ? file + " (profile " + profile + ")" : "none (" + file + " does not exist)"));
    for (Setting st : withFlag(storeFlag)) {
      lines.add("  " + st.key() + " = " + st.value() + " (" + from(st) + ")");
    }
    return lines;
  }

  /** {@link #describe} as JSON. */
  Json json(String storeFlag) {
    List<Json> values = new ArrayList<>();
    for (Setting st : withFlag(storeFlag)) {
      values.add(Json.object().put("key", st.key()).put("value", st.value()).put("source", from(st)));
    }
    return Json.object().put("file", file == null ? null : file.toString()).put("file_read", fileRead)
        .put("profile", profile).put("settings", values);
  }

  private List<Setting> withFlag(String storeFlag) {
    List<Setting> out = new ArrayList<>();
    if (storeFlag != null && !storeFlag.isEmpty()) {
      out.add(new Setting("store", "IDEM_STORE", storeFlag, null));
    }
    for (Setting st : inForce) {
      if (!(st.key().equals("store") && !out.isEmpty())) {
        out.add(st);
      }
    }
    return out;
  }

  private static String from(Setting st) {
    return st.source() == null ? "flag --" + st.key() : st.source() == Source.ENVIRONMENT
        ? "environment " + st.variable() : "file";
  }

  /** What is wrong with the file, or {@code null}; reported when a command runs. */
  UsageException error() {
    return error;
  }
}
