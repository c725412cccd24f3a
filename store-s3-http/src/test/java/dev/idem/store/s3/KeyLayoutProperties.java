package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import dev.idem.store.s3.internal.client.KeyOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.statistics.Statistics;

/**
 * The key layout's orderings, which the history merge and the pointer log rely on: evidence keys list
 * in their logical keys' order, log entries list in numeric order, and {@link KeyOrder} is S3's byte
 * order.
 */
class KeyLayoutProperties {
  private final KeyLayout layout = new KeyLayout("tenant/");

  @Provide
  Arbitrary<String> keys() {
    return Arbitraries.strings().withChars("abcz019._-/").ofMinLength(1).ofMaxLength(12);
  }

  @Provide
  Arbitrary<String> shas() {
    return Arbitraries.strings().withChars("0123456789abcdef").ofLength(64);
  }

  @Provide
  Arbitrary<String> attempts() {
    return Arbitraries.strings().withChars("0123456789abcdef").ofLength(KeyLayout.ATTEMPT_ID_LENGTH);
  }

  /** Evidence bytes or a divergence marker (when {@code attempt} is not null) of {@code key}. */
  private String evidence(String key, String sha, String attempt) {
    return layout.object(attempt == null ? KeyLayout.evidenceKey(key, sha) : KeyLayout.divergenceMarkerKey(key, sha, attempt));
  }

  @Property
  void evidenceKey_bytesAndMarkersOrderLikeTheirLogicalKey(@ForAll("keys") String a, @ForAll("keys") String b,
      @ForAll("shas") String shaA, @ForAll("shas") String shaB, @ForAll("attempts") String attemptA,
      @ForAll boolean markerA, @ForAll boolean markerB) {
    int logical = Integer.signum(KeyOrder.compare(a, b));
    int evidence = Integer.signum(KeyOrder.compare(evidence(a, shaA, markerA ? attemptA : null),
        evidence(b, shaB, markerB ? attemptA : null)));
    if (logical != 0) {
      assertEquals(logical, evidence, a + " vs " + b);
    }
  }

  /** The evidence listing is cut where the object listing is: a key's evidence and marker fall on its side. */
  @Property
  void evidenceMarker_cutsBytesAndMarkersWhereTheObjectListingIsCut(@ForAll("keys") String key,
      @ForAll("keys") String cut, @ForAll("shas") String sha, @ForAll("attempts") String attempt) {
    int object = Integer.signum(KeyOrder.compare(layout.object(key), layout.object(cut)));
    String at = layout.evidenceMarker(layout.object(cut));
    assertEquals(object > 0, KeyOrder.compare(evidence(key, sha, null), at) > 0, key + " / " + cut);
    assertEquals(object > 0, KeyOrder.compare(evidence(key, sha, attempt), at) > 0, key + " / " + cut);
  }

  @Property
  void parseEvidence_roundTrips(@ForAll("keys") String key, @ForAll("shas") String sha,
      @ForAll("attempts") String attempt) {
    assertEquals(new KeyLayout.Evidence(key, sha, false), layout.parseEvidence(evidence(key, sha, null)));
    assertEquals(new KeyLayout.Evidence(key, sha, true), layout.parseEvidence(evidence(key, sha, attempt)));
  }

  @Property
  void logEntry_listsInNumericOrderAndRoundTrips(@ForAll @LongRange(min = 1, max = Long.MAX_VALUE - 1) long a,
      @ForAll @LongRange(min = 1, max = Long.MAX_VALUE - 1) long b) {
    String ka = layout.logEntry("orders", a);
    String kb = layout.logEntry("orders", b);
    assertEquals(Long.signum(Long.compare(a, b)), Integer.signum(ka.compareTo(kb)));
    assertEquals(a, KeyLayout.parseSeq(ka, layout.logPrefix("orders")));
  }

  @Property
  void keyOrder_isUtf8ByteOrder(@ForAll String a, @ForAll String b) {
    byte[] x = a.getBytes(StandardCharsets.UTF_8);
    byte[] y = b.getBytes(StandardCharsets.UTF_8);
    if (a.chars().noneMatch(c -> Character.isSurrogate((char) c)) && b.chars().noneMatch(c -> Character.isSurrogate((char) c))) {
      assertEquals(Integer.signum(Arrays.compareUnsigned(x, y)), Integer.signum(KeyOrder.compare(a, b)), a + " / " + b);
    }
  }

  /**
   * Characters at the edges where UTF-16 and UTF-8 orders part: below and above the surrogates, the
   * last BMP ones, pairs that share their high surrogate (U+1F600, U+1F601) or not (U+10000, U+10FFFF).
   */
  @Provide
  Arbitrary<String> withPairs() {
    Arbitrary<Integer> edges = Arbitraries.of(0x61, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xfffd, 0xffff, 0x10000,
        0x1f600, 0x1f601, 0x1f9ff, 0x10fffe, 0x10ffff);
    Arbitrary<Integer> any = Arbitraries.integers().between(0, 0x10ffff).filter(c -> c < 0xd800 || c > 0xdfff);
    return Arbitraries.frequencyOf(Tuple.of(4, edges), Tuple.of(1, any)).list().ofMaxSize(6)
        .map(cps -> cps.stream().collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
            .toString());
  }

  @Property(tries = 3000)
  void keyOrder_isUtf8ByteOrder_withSurrogatePairs(@ForAll("withPairs") String a, @ForAll("withPairs") String b) {
    int bytes = Integer.signum(Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));
    assertEquals(bytes, Integer.signum(KeyOrder.compare(a, b)), () -> a.codePoints().boxed().toList() + " / "
        + b.codePoints().boxed().toList());
    assertEquals(-bytes, Integer.signum(KeyOrder.compare(b, a)));
    Statistics.collect(a.codePoints().anyMatch(c -> c > 0xffff) && b.codePoints().anyMatch(c -> c > 0xffff)
        ? "both with pairs" : "not both");
  }

  @Example
  void keyOrder_pairsAgainstTheTopOfTheBmp() {
    assertTrue(KeyOrder.compare("k\uD83D\uDE01", "k\uD83D\uDE00") > 0, "U+1F601 after U+1F600: same high surrogate");
    assertTrue(KeyOrder.compare("k\uD800\uDC00", "k\uFFFF") > 0, "U+10000 after U+FFFF");
    assertTrue(KeyOrder.compare("k\uE000", "k\uD7FF") > 0, "U+E000 after U+D7FF");
    assertTrue(KeyOrder.compare("k\uD83D\uDE00", "k\uD83D\uDE00x") < 0, "a prefix first");
    assertEquals(0, KeyOrder.compare("k\uD83D\uDE00", "k\uD83D\uDE00"));
  }

  @Example
  void keyOrder_supplementaryAboveBmpPrivateUse() {
    assertTrue(KeyOrder.compare("\uD83D\uDE00", "\uFFFD") > 0, "U+1F600 sorts after U+FFFD in UTF-8");
    assertTrue("\uD83D\uDE00".compareTo("\uFFFD") < 0, "but not in UTF-16");
  }

  @Example
  void parseEvidence_foreignKeys_null() {
    assertNull(layout.parseEvidence("tenant/_idem/evidence/no-bang"));
    assertNull(layout.parseEvidence("tenant/_idem/evidence/k!nothex"));
    assertNull(layout.parseEvidence("tenant/_idem/evidence/k!" + Sha256.EMPTY + ".short"));
    assertNull(layout.parseEvidence("tenant/_idem/evidence/k!" + Sha256.EMPTY + "." + "A".repeat(32)));
    assertNull(layout.parseEvidence("tenant/_idem/evidence/k!nothex." + "a".repeat(32)));
    assertNull(layout.parseEvidence("tenant/orders/k!" + Sha256.EMPTY));
    assertEquals(-1, KeyLayout.parseSeq(layout.logPrefix("orders") + "0000000000000000000x", layout.logPrefix("orders")));
    assertEquals(-1, KeyLayout.parseSeq(layout.logPrefix("orders") + "00000000000000000000", layout.logPrefix("orders")));
  }

  @Example
  void requireWritableKey_internalAreaRefused() {
    assertThrows(IllegalArgumentException.class, () -> KeyLayout.requireWritableKey("_idem/pointers/x/latest"));
    assertThrows(IllegalArgumentException.class, () -> KeyLayout.requireWritableKey("_idem"));
    assertEquals("_idemx/a", KeyLayout.requireWritableKey("_idemx/a"));
  }

  /** A key is published only when its divergence marker, the longest key a publish writes, fits in S3's 1024 bytes. */
  @Example
  void requirePublishableKey_markerMustFitInAnS3Key() {
    String sha = "ab".repeat(32);
    String attempt = "cd".repeat(16);
    String longest = "k/" + "x".repeat(KeyLayout.MAX_OBJECT_KEY_BYTES - KeyLayout.DIVERGENCE_OVERHEAD - 9);
    assertEquals(longest, layout.requirePublishableKey(longest));
    assertEquals(KeyLayout.MAX_OBJECT_KEY_BYTES, evidence(longest, sha, attempt).getBytes(StandardCharsets.UTF_8).length);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> layout.requirePublishableKey(longest + "x"));
    assertTrue(e.getMessage().contains("too long to publish under prefix 'tenant/'"), e.getMessage());
    String wide = "k/" + "\u00e9".repeat(500); // 1000 bytes of UTF-8 in 502 characters
    assertThrows(IllegalArgumentException.class, () -> layout.requirePublishableKey(wide));
    assertThrows(IllegalArgumentException.class, () -> KeyLayout.divergenceMarkerKey("k", sha, "not-an-attempt"));
  }

  @Example
  void afterInternal_sortsAfterEveryInternalKeyBeforeNextPrefix() {
    String after = layout.afterInternal();
    assertTrue(KeyOrder.compare(after, layout.logEntry("zzz", Long.MAX_VALUE - 1)) > 0);
    assertTrue(KeyOrder.compare(after, layout.object(KeyLayout.evidenceKey("zzzz/\uFFFF", Sha256.EMPTY))) > 0);
    assertTrue(KeyOrder.compare(after, "tenant/_idem0") < 0);
    assertTrue(KeyOrder.compare(after, "tenant/a") < 0);
  }

  @Provide
  Arbitrary<String> safeKeys() {
    return Arbitraries.strings().withChars("abcz019_-").ofMinLength(1).ofMaxLength(5).list().ofMinSize(1).ofMaxSize(4)
        .map(segments -> String.join("/", segments));
  }

  /** A claim entry parses back to its key and id, and is listed under its key and every prefix of it. */
  @Property
  void claimEntry_roundTripsAndListsUnderEveryPrefixOfItsKey(@ForAll("safeKeys") String key,
      @ForAll("hex16") String hex) {
    String id = "claim." + hex;
    String entry = layout.claimEntry(key, id);
    assertEquals(new KeyLayout.ClaimEntry(key, id), layout.parseClaimEntry(entry));
    for (int i = 0; i <= key.length(); i++) {
      assertTrue(entry.startsWith(layout.claimsPrefix(key.substring(0, i))), key.substring(0, i));
    }
    assertTrue(entry.startsWith(layout.claimsPrefix(key + "/")));
  }

  @Provide
  Arbitrary<String> hex16() {
    return Arbitraries.strings().withChars("0123456789abcdef").ofLength(16);
  }

  @Example
  void parseClaimEntry_foreignOrMisnamed_null() {
    assertNull(layout.parseClaimEntry("tenant/_idem/claims/orders/1/claim-by-hand"));
    assertNull(layout.parseClaimEntry("tenant/_idem/claims/orders/1/claim.0123456789ABCDEF"));
    assertNull(layout.parseClaimEntry("tenant/_idem/claims/claim.0123456789abcdef"));
    assertNull(layout.parseClaimEntry("tenant/_idem/claims/orders/../claim.0123456789abcdef"));
    assertNull(layout.parseClaimEntry("tenant/_idem/acks/orders/1/claim.0123456789abcdef"));
    assertNull(layout.parseClaimEntry("other/_idem/claims/orders/1/claim.0123456789abcdef"));
    assertThrows(IllegalArgumentException.class, () -> layout.claimEntry("orders/1", "ack.0123456789abcdef"));
    assertThrows(IllegalArgumentException.class, () -> layout.requireClaimableKey("orders/" + "x".repeat(1000)));
  }
}
