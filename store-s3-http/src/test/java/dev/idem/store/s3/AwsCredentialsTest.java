package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Expiry arithmetic, validation and redaction of {@link AwsCredentials}. */
class AwsCredentialsTest {

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
  private static final String SECRET = "s3cr3t/SECRET+value";
  private static final String TOKEN = "t0k3n-SESSION-value";

  @Nested
  class ExpiresWithin {

    @Test
    void expiresWithin_noExpiration_isNeverTrue() {
      AwsCredentials forever = AwsCredentials.of("AKID", SECRET);

      assertFalse(forever.expiresWithin(Duration.ofDays(36_500), CLOCK));
      assertFalse(forever.isTemporary());
    }

    @Test
    void expiresWithin_expirationInsideWindow_isTrue() {
      AwsCredentials c = new AwsCredentials("AKID", SECRET, TOKEN, NOW.plusSeconds(299));

      assertTrue(c.expiresWithin(Duration.ofMinutes(5), CLOCK));
    }

    @Test
    void expiresWithin_expirationExactlyAtWindowEnd_isTrue() {
      AwsCredentials c = new AwsCredentials("AKID", SECRET, TOKEN, NOW.plusSeconds(300));

      assertTrue(c.expiresWithin(Duration.ofMinutes(5), CLOCK));
    }

    @Test
    void expiresWithin_expirationAfterWindow_isFalse() {
      AwsCredentials c = new AwsCredentials("AKID", SECRET, TOKEN, NOW.plusSeconds(301));

      assertFalse(c.expiresWithin(Duration.ofMinutes(5), CLOCK));
    }

    @Test
    void expiresWithin_alreadyExpired_isTrueForZero() {
      AwsCredentials c = new AwsCredentials("AKID", SECRET, TOKEN, NOW.minusSeconds(1));

      assertTrue(c.expiresWithin(Duration.ZERO, CLOCK));
    }

    @Test
    void expiresWithin_negativeDuration_isRejected() {
      AwsCredentials c = AwsCredentials.of("AKID", SECRET);

      assertThrows(IllegalArgumentException.class,
          () -> c.expiresWithin(Duration.ofSeconds(-1), CLOCK));
    }
  }

  @Nested
  class Construction {

    @Test
    void constructor_blankParts_areRejectedWithoutQuotingThem() {
      IllegalArgumentException blankId = assertThrows(IllegalArgumentException.class,
          () -> new AwsCredentials(" ", SECRET, null, null));
      IllegalArgumentException blankToken = assertThrows(IllegalArgumentException.class,
          () -> new AwsCredentials("AKID", SECRET, " ", null));

      assertFalse(blankId.getMessage().contains(SECRET));
      assertThrows(IllegalArgumentException.class,
          () -> new AwsCredentials("AKID", "", null, null));
      assertFalse(blankToken.getMessage().contains(SECRET));
    }
  }

  @Nested
  class ToString {

    @Test
    void toString_neverPrintsSecretOrToken() {
      AwsCredentials c = new AwsCredentials("AKIDEXAMPLE", SECRET, TOKEN, NOW);

      String text = c.toString();

      assertFalse(text.contains(SECRET), text);
      assertFalse(text.contains(TOKEN), text);
      assertTrue(text.contains("AKIDEXAMPLE"), text);
      assertTrue(text.contains(NOW.toString()), text);
    }

    @Test
    void toString_staticCredentials_sayNoTokenAndNeverExpire() {
      assertEquals("AwsCredentials[accessKeyId=AKID, secretAccessKey=<redacted>,"
          + " sessionToken=none, expiration=never]",
          AwsCredentials.of("AKID", SECRET).toString());
    }
  }
}
