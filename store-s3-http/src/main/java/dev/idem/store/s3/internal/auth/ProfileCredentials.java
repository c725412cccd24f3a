package dev.idem.store.s3.internal.auth;

import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Static credentials from the shared AWS profile files: the second link of the chain.
 *
 * <p>The profile is {@code AWS_PROFILE}, or {@code default}. Two files are read, each only if
 * it exists: the credentials file ({@code AWS_SHARED_CREDENTIALS_FILE}, default
 * {@code ~/.aws/credentials}, sections named {@code [NAME]}) and the config file
 * ({@code AWS_CONFIG_FILE}, default {@code ~/.aws/config}, sections named
 * {@code [profile NAME]}, except {@code [default]}). Keys are {@code aws_access_key_id},
 * {@code aws_secret_access_key} and {@code aws_session_token}; where both files set a key for
 * the same profile, the credentials file wins, key by key, as in the AWS CLI.
 *
 * <p>Outcomes:
 *
 * <ul>
 *   <li>the profile has a key id and a secret: credentials, without an expiration (the files
 *       do not say when a session token ends);
 *   <li>{@code AWS_PROFILE} names a profile found in neither file: {@link CredentialsException};
 *   <li>the profile has only one of key id and secret, or a file cannot be read or parsed:
 *       {@link CredentialsException} naming the file (and line), never quoting it;
 *   <li>the profile has no keys but asks for {@code role_arn}, {@code credential_process},
 *       SSO or web identity: {@link CredentialsException}, because idem does not implement
 *       role chaining ({@code role_arn}/{@code source_profile}), credential processes or SSO,
 *       and silently falling through to another source would sign as someone else;
 *   <li>otherwise (no files, no such default profile, or a profile with only settings such
 *       as {@code region}): not configured, the chain moves on.
 * </ul>
 *
 * <p>The files are re-read on every call; the chain caches the result.
 */
final class ProfileCredentials implements CredentialSource {

  static final String PROFILE = "AWS_PROFILE";
  static final String CREDENTIALS_FILE = "AWS_SHARED_CREDENTIALS_FILE";
  static final String CONFIG_FILE = "AWS_CONFIG_FILE";

  private static final String KEY_ID = "aws_access_key_id";
  private static final String SECRET = "aws_secret_access_key";
  private static final String TOKEN = "aws_session_token";
  private static final List<String> UNSUPPORTED = List.of(
      "role_arn", "credential_process", "sso_session", "sso_start_url",
      "web_identity_token_file");

  private final String profile;
  private final boolean explicit;
  private final Path home;
  private final Path credentialsFile;
  private final Path configFile;

  ProfileCredentials(EnvVars env, Path home) {
    Objects.requireNonNull(env, "env");
    this.home = Objects.requireNonNull(home, "home");
    String named = env.get(PROFILE);
    this.explicit = named != null;
    this.profile = explicit ? named : "default";
    Path credentials = env.path(CREDENTIALS_FILE, home);
    Path config = env.path(CONFIG_FILE, home);
    this.credentialsFile = credentials != null ? credentials : home.resolve(".aws/credentials");
    this.configFile = config != null ? config : home.resolve(".aws/config");
  }

  @Override
  public String name() {
    return "profile " + profile;
  }

  @Override
  public Optional<SourcedCredentials> load() throws CredentialsException {
    Map<String, String> fromCredentials = section(credentialsFile, false);
    Map<String, String> fromConfig = section(configFile, true);
    if (fromCredentials == null && fromConfig == null) {
      if (explicit) {
        throw new CredentialsException(name() + ": not found in "
            + display(credentialsFile) + " or " + display(configFile));
      }
      return Optional.empty();
    }
    Map<String, String> merged = new HashMap<>();
    Map<String, Path> origin = new HashMap<>();
    if (fromConfig != null) {
      fromConfig.forEach((k, v) -> {
        merged.put(k, v);
        origin.put(k, configFile);
      });
    }
    if (fromCredentials != null) {
      fromCredentials.forEach((k, v) -> {
        merged.put(k, v);
        origin.put(k, credentialsFile);
      });
    }
    String id = blankToNull(merged.get(KEY_ID));
    String secret = blankToNull(merged.get(SECRET));
    String token = blankToNull(merged.get(TOKEN));
    if (id == null && secret == null) {
      for (String key : UNSUPPORTED) {
        if (merged.containsKey(key)) {
          throw new CredentialsException(name() + ": uses " + key + " (in "
              + display(origin.get(key)) + "), which idem does not support;"
              + " export static or temporary keys instead");
        }
      }
      return Optional.empty();
    }
    if (id == null || secret == null) {
      String present = id == null ? SECRET : KEY_ID;
      String missing = id == null ? KEY_ID : SECRET;
      throw new CredentialsException(name() + ": " + present + " is set (in "
          + display(origin.get(present)) + ") but " + missing + " is not");
    }
    return Optional.of(new SourcedCredentials(
        new AwsCredentials(id, secret, token, null),
        name() + " (" + display(origin.get(KEY_ID)) + ")"));
  }

  /** The profile's properties in {@code file}, or {@code null} when absent there. */
  private Map<String, String> section(Path file, boolean configStyle)
      throws CredentialsException {
    if (!Files.exists(file)) {
      return null;
    }
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new CredentialsException(name() + ": cannot read " + display(file) + " ("
          + e.getClass().getSimpleName() + ")", e);
    }
    Map<String, Map<String, String>> sections;
    try {
      sections = IniFile.parse(text);
    } catch (IllegalArgumentException e) {
      throw new CredentialsException(
          name() + ": " + display(file) + " is malformed at " + e.getMessage());
    }
    if (!configStyle) {
      return sections.get(profile);
    }
    Map<String, String> found = null;
    for (Map.Entry<String, Map<String, String>> entry : sections.entrySet()) {
      if (configProfileName(entry.getKey()).equals(profile)) {
        if (found == null) {
          found = new HashMap<>();
        }
        found.putAll(entry.getValue());
      }
    }
    return found;
  }

  /**
   * The profile a config-file section names: {@code [default]} and {@code [profile NAME]};
   * any other section ({@code [sso-session x]}, {@code [services x]}) names none.
   */
  private static String configProfileName(String section) {
    if (section.equals("default")) {
      return "default";
    }
    if (section.startsWith("profile ") || section.startsWith("profile\t")) {
      return section.substring("profile".length()).strip();
    }
    return "";
  }

  private String display(Path file) {
    Path absolute = file.toAbsolutePath().normalize();
    Path absoluteHome = home.toAbsolutePath().normalize();
    if (absolute.startsWith(absoluteHome) && !absolute.equals(absoluteHome)) {
      return "~/" + absoluteHome.relativize(absolute).toString().replace('\\', '/');
    }
    return file.toString();
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
