package dev.idem.store.s3.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsException;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The environment link: complete, partial and blank variable sets. */
class EnvironmentCredentialsTest {

  private static Optional<SourcedCredentials> load(Map<String, String> env) throws Exception {
    return new EnvironmentCredentials(new EnvVars(env)).load();
  }

  @Nested
  class Load {

    @Test
    void load_keyIdAndSecret_yieldStaticCredentials() throws Exception {
      SourcedCredentials found = load(Map.of(
          "AWS_ACCESS_KEY_ID", "AKIDENV", "AWS_SECRET_ACCESS_KEY", Fixtures.SECRET))
          .orElseThrow();

      assertEquals(AwsCredentials.of("AKIDENV", Fixtures.SECRET), found.credentials());
      assertEquals("environment", found.description());
    }

    @Test
    void load_withSessionToken_carriesIt() throws Exception {
      AwsCredentials c = load(Map.of("AWS_ACCESS_KEY_ID", "ASIAENV",
          "AWS_SECRET_ACCESS_KEY", Fixtures.SECRET, "AWS_SESSION_TOKEN", Fixtures.TOKEN))
          .orElseThrow().credentials();

      assertEquals(Fixtures.TOKEN, c.sessionToken());
      assertNull(c.expiration());
    }

    @Test
    void load_nothingSet_isNotConfigured() throws Exception {
      assertTrue(load(Map.of("PATH", "/bin")).isEmpty());
    }

    @Test
    void load_blankValues_countAsUnset() throws Exception {
      assertTrue(load(Map.of("AWS_ACCESS_KEY_ID", "", "AWS_SECRET_ACCESS_KEY", "  ",
          "AWS_SESSION_TOKEN", "")).isEmpty());
    }

    @Test
    void load_keyIdWithoutSecret_isError() {
      CredentialsException e = assertThrows(CredentialsException.class,
          () -> load(Map.of("AWS_ACCESS_KEY_ID", "AKIDENV")));

      assertEquals("environment: AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not",
          e.getMessage());
    }

    @Test
    void load_secretWithoutKeyId_isErrorWithoutTheSecret() {
      CredentialsException e = assertThrows(CredentialsException.class,
          () -> load(Map.of("AWS_SECRET_ACCESS_KEY", Fixtures.SECRET)));

      assertEquals("environment: AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not",
          e.getMessage());
    }

    @Test
    void load_tokenAlone_isError() {
      CredentialsException e = assertThrows(CredentialsException.class,
          () -> load(Map.of("AWS_SESSION_TOKEN", Fixtures.TOKEN)));

      assertTrue(e.getMessage().startsWith("environment: AWS_SESSION_TOKEN is set"));
      assertFalse(e.getMessage().contains(Fixtures.TOKEN));
    }
  }
}
