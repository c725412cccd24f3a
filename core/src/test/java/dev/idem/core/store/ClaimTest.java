package dev.idem.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ClaimTest {
  private static final String KEY = "orders/1726000000/state-3f2a";
  private static final Instant STARTED = Instant.parse("2024-09-11T03:00:00Z");

  private static Claim claim(Duration expected) {
    return new Claim(KEY, "claim.1", "host-a:4711", STARTED, expected, Duration.ZERO);
  }

  private static Claim parse(String text) throws Claim.MalformedClaimException {
    return Claim.parse(text.getBytes(StandardCharsets.UTF_8), "c", KEY, "claim.2", Duration.ofSeconds(3));
  }

  @Test
  void toBytes_parse_roundTripsWithStoresIdAndAge() throws Exception {
    Claim c = claim(Duration.ofMinutes(2));
    Claim back = Claim.parse(c.toBytes(), "c", KEY, "claim.2", Duration.ofSeconds(3));
    assertEquals(new Claim(KEY, "claim.2", "host-a:4711", STARTED, Duration.ofMinutes(2), Duration.ofSeconds(3)), back);
    assertEquals("idem-claim 1\nkey=" + KEY + "\nwriter=host-a:4711\nstarted=2024-09-11T03:00:00Z\nexpected=PT2M\n",
        new String(c.toBytes(), StandardCharsets.UTF_8));
  }

  @Test
  void toBytes_expectedUnknown_leftOut() throws Exception {
    Claim c = claim(null);
    assertFalse(new String(c.toBytes(), StandardCharsets.UTF_8).contains("expected"));
    assertEquals(Optional.empty(), Claim.parse(c.toBytes(), "c", KEY, "claim.1", Duration.ZERO).expectedDuration());
  }

  @Test
  void parse_notAClaim_refusedNamingWhy() {
    String head = "idem-claim 1\nkey=" + KEY + "\nwriter=w\n";
    assertMalformed("first line", "idem-claim 2\nkey=" + KEY + "\nwriter=w\nstarted=2024-09-11T03:00:00Z\n");
    assertMalformed("truncated", head + "started=2024-09-11T03:00:00Z");
    assertMalformed("started missing", head);
    assertMalformed("repeated", head + "writer=v\nstarted=2024-09-11T03:00:00Z\n");
    assertMalformed("unknown field x", head + "started=2024-09-11T03:00:00Z\nx=1\n");
    assertMalformed("bad value", head + "started=yesterday\n");
    assertMalformed("bad value", head + "started=2024-09-11T03:00:00Z\nexpected=2m\n");
    assertMalformed("not name=value", head + "started\n");
    assertMalformed("claims key other", "idem-claim 1\nkey=other\nwriter=w\nstarted=2024-09-11T03:00:00Z\n");
    assertMalformed("larger than", head + "started=2024-09-11T03:00:00Z\n" + "#".repeat(Claim.MAX_DOCUMENT_BYTES));
  }

  private static void assertMalformed(String reason, String text) {
    Claim.MalformedClaimException e = assertThrows(Claim.MalformedClaimException.class, () -> parse(text));
    assertTrue(e.getMessage().contains(reason), e.getMessage());
  }

  @Test
  void isFresh_youngerThanTtl() {
    Claim c = claim(null);
    Claim aged = new Claim(KEY, c.id(), c.writer(), c.started(), null, Duration.ofSeconds(30));
    assertTrue(c.isFresh(Duration.ofSeconds(30)));
    assertFalse(aged.isFresh(Duration.ofSeconds(30)));
    assertTrue(aged.isFresh(Duration.ofSeconds(31)));
  }

  @Test
  void renewedAs_newIdAgeZeroSameStart() {
    Claim aged = new Claim(KEY, "claim.1", "w", STARTED, null, Duration.ofSeconds(9));
    assertEquals(new Claim(KEY, "claim.9", "w", STARTED, null, Duration.ZERO), aged.renewedAs("claim.9"));
  }

  @Test
  void new_negativeAgeOrExpected_refused() {
    assertThrows(IllegalArgumentException.class, () -> new Claim(KEY, "i", "w", STARTED, null, Duration.ofSeconds(-1)));
    assertThrows(IllegalArgumentException.class,
        () -> new Claim(KEY, "i", "w", STARTED, Duration.ofSeconds(-1), Duration.ZERO));
  }
}
