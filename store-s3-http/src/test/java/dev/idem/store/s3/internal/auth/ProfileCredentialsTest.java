package dev.idem.store.s3.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The profile-file link against real files in a temporary home directory. */
class ProfileCredentialsTest {

  @TempDir
  Path home;

  private final Map<String, String> env = new HashMap<>();

  @BeforeEach
  void createAwsDir() throws IOException {
    Files.createDirectories(home.resolve(".aws"));
  }

  private void credentialsFile(String text) throws IOException {
    Files.writeString(home.resolve(".aws/credentials"), text);
  }

  private void configFile(String text) throws IOException {
    Files.writeString(home.resolve(".aws/config"), text);
  }

  private Optional<SourcedCredentials> load() throws IOException {
    return new ProfileCredentials(new EnvVars(env), home).load();
  }

  @Nested
  class Load {

    @Test
    void load_defaultProfileInCredentialsFile() throws Exception {
      credentialsFile("""
          [default]
          aws_access_key_id = AKIDDEFAULT
          aws_secret_access_key = %s
          """.formatted(Fixtures.SECRET));

      SourcedCredentials found = load().orElseThrow();

      assertEquals(AwsCredentials.of("AKIDDEFAULT", Fixtures.SECRET), found.credentials());
      assertEquals("profile default (~/.aws/credentials)", found.description());
    }

    @Test
    void load_namedProfile_fromAwsProfile() throws Exception {
      credentialsFile("""
          [default]
          aws_access_key_id = AKIDDEFAULT
          aws_secret_access_key = other
          [prod]
          aws_access_key_id = AKIDPROD
          aws_secret_access_key = %s
          aws_session_token = %s
          """.formatted(Fixtures.SECRET, Fixtures.TOKEN));
      env.put("AWS_PROFILE", "prod");

      AwsCredentials c = load().orElseThrow().credentials();

      assertEquals("AKIDPROD", c.accessKeyId());
      assertEquals(Fixtures.TOKEN, c.sessionToken());
      assertNull(c.expiration());
    }

    @Test
    void load_configFileOnly_profilePrefixedSection() throws Exception {
      configFile("""
          [default]
          region = us-east-1
          [profile x]
          region = eu-west-1
          aws_access_key_id = AKIDX
          aws_secret_access_key = %s
          [x]
          aws_access_key_id = NOT-A-PROFILE-IN-CONFIG
          """.formatted(Fixtures.SECRET));
      env.put("AWS_PROFILE", "x");

      SourcedCredentials found = load().orElseThrow();

      assertEquals("AKIDX", found.credentials().accessKeyId());
      assertEquals("profile x (~/.aws/config)", found.description());
    }

    @Test
    void load_configDefaultSection_isDefaultProfile() throws Exception {
      configFile("""
          [default]
          aws_access_key_id = AKIDCFG
          aws_secret_access_key = %s
          """.formatted(Fixtures.SECRET));

      assertEquals("AKIDCFG", load().orElseThrow().credentials().accessKeyId());
    }

    @Test
    void load_bothFiles_credentialsFileWinsKeyByKey() throws Exception {
      configFile("""
          [profile p]
          aws_access_key_id = AKIDCONFIG
          aws_secret_access_key = config-secret
          aws_session_token = config-token
          """);
      credentialsFile("""
          [p]
          aws_access_key_id = AKIDCREDS
          aws_secret_access_key = %s
          """.formatted(Fixtures.SECRET));
      env.put("AWS_PROFILE", "p");

      SourcedCredentials found = load().orElseThrow();

      assertEquals(new AwsCredentials("AKIDCREDS", Fixtures.SECRET, "config-token", null),
          found.credentials());
      assertEquals("profile p (~/.aws/credentials)", found.description());
    }

    @Test
    void load_commentsWhitespaceAndKeyCase_areTolerated() throws Exception {
      credentialsFile("""
          # managed by hand
          ; really

            [default]   ; the one
          \tAWS_ACCESS_KEY_ID    =    AKIDSPACED   # trailing comment
          Aws_Secret_Access_Key=%s
          """.formatted(Fixtures.SECRET));

      AwsCredentials c = load().orElseThrow().credentials();

      assertEquals(AwsCredentials.of("AKIDSPACED", Fixtures.SECRET), c);
    }

    @Test
    void load_filesFromEnvironmentVariables() throws Exception {
      Path dir = Files.createDirectories(home.resolve("elsewhere"));
      Files.writeString(dir.resolve("creds"), """
          [default]
          aws_access_key_id = AKIDELSEWHERE
          aws_secret_access_key = s
          """);
      env.put("AWS_SHARED_CREDENTIALS_FILE", "~/elsewhere/creds");
      env.put("AWS_CONFIG_FILE", dir.resolve("missing-config").toString());

      SourcedCredentials found = load().orElseThrow();

      assertEquals("AKIDELSEWHERE", found.credentials().accessKeyId());
      assertEquals("profile default (~/elsewhere/creds)", found.description());
    }

    @Test
    void load_noFiles_isNotConfigured() throws Exception {
      assertTrue(load().isEmpty());
    }

    @Test
    void load_defaultWithOnlySettings_isNotConfigured() throws Exception {
      configFile("[default]\nregion = us-east-1\noutput = json\n");

      assertTrue(load().isEmpty());
    }

    @Test
    void load_missingNamedProfile_isError() throws Exception {
      credentialsFile("[default]\naws_access_key_id = A\naws_secret_access_key = B\n");
      env.put("AWS_PROFILE", "nope");

      CredentialsException e = assertThrows(CredentialsException.class, () -> load());

      assertEquals("profile nope: not found in ~/.aws/credentials or ~/.aws/config",
          e.getMessage());
    }

    @Test
    void load_keyIdWithoutSecret_isErrorNamingFile() throws Exception {
      credentialsFile("[default]\naws_access_key_id = AKIDHALF\n");

      CredentialsException e = assertThrows(CredentialsException.class, () -> load());

      assertEquals("profile default: aws_access_key_id is set (in ~/.aws/credentials)"
          + " but aws_secret_access_key is not", e.getMessage());
    }

    @Test
    void load_roleArnProfile_isUnsupportedError() throws Exception {
      configFile("""
          [profile assumer]
          role_arn = arn:aws:iam::123456789012:role/r
          source_profile = default
          """);
      env.put("AWS_PROFILE", "assumer");

      CredentialsException e = assertThrows(CredentialsException.class, () -> load());

      assertTrue(e.getMessage().startsWith(
          "profile assumer: uses role_arn (in ~/.aws/config), which idem does not support"),
          e.getMessage());
    }

    @Test
    void load_malformedFile_namesLineButNotContent() throws Exception {
      credentialsFile("[default]\naws_access_key_id = AKID\n" + Fixtures.SECRET + "\n");

      CredentialsException e = assertThrows(CredentialsException.class, () -> load());

      assertEquals("profile default: ~/.aws/credentials is malformed at line 3:"
          + " expected '[section]' or 'key = value'", e.getMessage());
      assertFalse(e.getMessage().contains(Fixtures.SECRET));
    }

    @Test
    void load_profileFileIsReReadEachCall() throws Exception {
      credentialsFile("[default]\naws_access_key_id = ONE\naws_secret_access_key = s\n");
      assertEquals("ONE", load().orElseThrow().credentials().accessKeyId());

      credentialsFile("[default]\naws_access_key_id = TWO\naws_secret_access_key = s\n");

      assertEquals("TWO", load().orElseThrow().credentials().accessKeyId());
    }
  }

  @Nested
  class Name {

    @Test
    void name_followsAwsProfile() {
      assertEquals("profile default", new ProfileCredentials(new EnvVars(Map.of()), home).name());
      assertEquals("profile ci", new ProfileCredentials(
          new EnvVars(Map.of("AWS_PROFILE", "ci")), home).name());
    }
  }
}
