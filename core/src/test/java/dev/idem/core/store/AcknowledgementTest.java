package dev.idem.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.Acknowledgement.MalformedAcknowledgementException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * An acknowledgement's rules on its own: what it accepts, what it covers, and its document read back
 * strictly, so a file idem did not write never passes a divergent key.
 */
class AcknowledgementTest {
  private static final String KEY = "orders/1726000000/state-" + "4".repeat(64);
  private static final String A = "sha256:" + "a".repeat(64);
  private static final String B = "sha256:" + "b".repeat(64);
  private static final Instant AT = Instant.parse("2026-12-02T15:40:08Z");

  private static Acknowledgement ack(SortedSet<String> contents, int attempts) {
    return new Acknowledgement(KEY, contents, attempts, "ops-alice", AT, "INC-42: fixed in build 44");
  }

  private static SortedSet<String> contents(String... c) {
    return new TreeSet<>(List.of(c));
  }

  private static String message(Runnable r) {
    return assertThrows(IllegalArgumentException.class, r::run).getMessage();
  }

  // --- the constructor ---

  @Test
  void constructor_contentCount_oneToTheMaximum() {
    assertEquals("an acknowledgement names 1-1000 contents, was 0", message(() -> ack(contents(), 0)));
    SortedSet<String> most = new TreeSet<>();
    for (int i = 0; i < Acknowledgement.MAX_CONTENTS; i++) {
      most.add("etag:" + i);
    }
    assertEquals(Acknowledgement.MAX_CONTENTS, ack(most, 0).contents().size());
    most.add("etag:one-more");
    assertEquals("an acknowledgement names 1-1000 contents, was 1001", message(() -> ack(most, 0)));
  }

  @Test
  void constructor_contentNotOneLineWithoutComma_refused() {
    for (String bad : List.of("", ",etag:a", "etag:a,b", "etag:a\nb", "etag:\u007f")) {
      assertTrue(message(() -> ack(contents(A, bad), 0)).startsWith("a content is one line without ','"), bad);
    }
  }

  @Test
  void constructor_contents_copiedAndUnchangeable() {
    SortedSet<String> given = contents(A, B);
    Acknowledgement a = ack(given, 1);
    given.add("etag:later");

    assertEquals(contents(A, B), a.contents(), "what the caller changes later is not what was reviewed");
    assertThrows(UnsupportedOperationException.class, () -> a.contents().add("etag:x"));
  }

  @Test
  void toBytes_contentsGivenInAnotherOrder_writtenInNaturalOrder() {
    SortedSet<String> reversed = new TreeSet<>(java.util.Comparator.<String>reverseOrder());
    reversed.addAll(List.of(A, B));

    Acknowledgement a = ack(reversed, 1);

    assertEquals(List.of(A, B), List.copyOf(a.contents()));
    assertEquals(ack(contents(A, B), 1), a);
    assertArrayEquals(ack(contents(A, B), 1).toBytes(), a.toBytes(), "one review, one document");
  }

  @Test
  void constructor_divergentAttempts_zeroOrMore() {
    assertEquals(0, ack(contents(A), 0).divergentAttempts());
    assertEquals("divergent attempts must be >= 0, was -1", message(() -> ack(contents(A), -1)));
  }

  @Test
  void constructor_missingOrBadField_refused() {
    assertThrows(NullPointerException.class, () -> ack(null, 0));
    assertThrows(NullPointerException.class,
        () -> new Acknowledgement(KEY, contents(A), 0, "ops-alice", null, "why"));
    assertThrows(IllegalArgumentException.class,
        () -> new Acknowledgement("orders/../x", contents(A), 0, "ops-alice", AT, "why"));
    assertThrows(IllegalArgumentException.class,
        () -> new Acknowledgement(KEY, contents(A), 0, "ops alice", AT, "why"));
    assertThrows(IllegalArgumentException.class,
        () -> new Acknowledgement(KEY, contents(A), 0, "ops-alice", AT, " "));
  }

  // --- covers ---

  @Test
  void covers_nothingNewSince_true() {
    Acknowledgement a = ack(contents(A, B), 2);
    assertTrue(a.covers(Set.of(A, B), 2));
    assertTrue(a.covers(Set.of(A), 1), "less than was reviewed is covered");
  }

  @Test
  void covers_newContentOrOneMoreDivergentAttempt_false() {
    Acknowledgement a = ack(contents(A, B), 2);
    assertFalse(a.covers(Set.of(A, B, "etag:new"), 2));
    assertFalse(a.covers(Set.of(A, B), 3));
  }

  // --- requireReason ---

  @Test
  void requireReason_oneLineUpToTheMaximum_returned() {
    String longest = "r".repeat(Acknowledgement.MAX_REASON_LENGTH);
    assertSame(longest, Acknowledgement.requireReason(longest));
    assertEquals("x", Acknowledgement.requireReason("x"));
  }

  @Test
  void requireReason_missingBlankLongOrNotOneLine_refused() {
    String needed = "an acknowledgement needs a reason (what was fixed, which incident)";
    assertEquals(needed, message(() -> Acknowledgement.requireReason(null)));
    assertEquals(needed, message(() -> Acknowledgement.requireReason(" \t")));
    assertEquals("the reason must be at most 500 characters, was 501",
        message(() -> Acknowledgement.requireReason("r".repeat(Acknowledgement.MAX_REASON_LENGTH + 1))));
    for (String bad : List.of("two\nlines", "tab\tinside", " leading", "trailing ")) {
      assertTrue(message(() -> Acknowledgement.requireReason(bad)).startsWith("the reason must be one line"), bad);
    }
  }

  // --- the document ---

  @Test
  void toBytes_theDocumentedFormat() {
    Acknowledgement a = ack(contents(B, A), 1);
    String expected = "idem-ack 1\n"
        + "key=" + KEY + "\n"
        + "contents=" + A + "," + B + "\n"
        + "divergent_attempts=1\n"
        + "acknowledged_by=ops-alice\n"
        + "acknowledged_at=2026-12-02T15:40:08Z\n"
        + "reason=INC-42: fixed in build 44\n";
    assertArrayEquals(expected.getBytes(StandardCharsets.UTF_8), a.toBytes());
  }

  @Test
  void parse_whatToBytesWrote_theSameAcknowledgement() throws MalformedAcknowledgementException {
    Acknowledgement a = new Acknowledgement(KEY, contents(A, "etag:x=1"), 3, "ops-bob", AT, "a=b, not c");
    assertEquals(a, Acknowledgement.parse(a.toBytes(), "acks/1", KEY));
  }

  @Test
  void parse_fieldsInAnyOrder_accepted() throws MalformedAcknowledgementException {
    String doc = "idem-ack 1\nreason=why\nacknowledged_at=2026-12-02T15:40:08Z\nacknowledged_by=ops-alice\n"
        + "divergent_attempts=0\ncontents=" + A + "\nkey=" + KEY + "\n";
    assertEquals(new Acknowledgement(KEY, contents(A), 0, "ops-alice", AT, "why"), parse(doc));
  }

  @Test
  void parse_documentUpToTheSizeLimit_accepted() throws MalformedAcknowledgementException {
    int limit = 128 * 1024;
    String doc = sized(limit);
    assertEquals(limit, doc.getBytes(StandardCharsets.UTF_8).length);
    assertEquals(KEY, parse(doc).key());
    assertEquals("malformed acknowledgement acks/1: larger than 131072 bytes", refused(sized(limit + 1)));
  }

  /** A valid document of exactly {@code bytes} bytes: long contents, the last one padded to fit. */
  private static String sized(int bytes) {
    String head = "idem-ack 1\nkey=" + KEY + "\ncontents=";
    String tail = "\ndivergent_attempts=0\nacknowledged_by=ops-alice\nacknowledged_at=2026-12-02T15:40:08Z\nreason=why\n";
    StringBuilder contents = new StringBuilder();
    int i = 0;
    while (head.length() + contents.length() + tail.length() + 200 < bytes) {
      contents.append(i == 0 ? "" : ",").append("etag:").append(i++).append("-").append("c".repeat(150));
    }
    contents.append(",etag:last-");
    contents.append("d".repeat(bytes - head.length() - contents.length() - tail.length()));
    return head + contents + tail;
  }

  @Test
  void parse_notAnAcknowledgementIdemWrote_refusedSayingWhy() {
    String good = new String(ack(contents(A), 1).toBytes(), StandardCharsets.UTF_8);
    String prefix = "malformed acknowledgement acks/1: ";

    assertEquals(prefix + "truncated (no final newline)", refused(good.substring(0, good.length() - 1)));
    assertEquals(prefix + "first line is not 'idem-ack 1'", refused(good.replace("idem-ack 1", "idem-ack 2")));
    assertEquals(prefix + "line 3 is not name=value", refused(good.replace("contents=", "contents ")));
    assertEquals(prefix + "line 3 is not name=value", refused(good.replace("contents=", "=")));
    assertEquals(prefix + "line 2 is not name=value", refused(good.replace("idem-ack 1\n", "idem-ack 1\n\n")));
    assertEquals(prefix + "field acknowledged_by repeated", refused(good + "acknowledged_by=ops-bob\n"));
    assertEquals(prefix + "field reason missing", refused(good.replace("reason=INC-42: fixed in build 44\n", "")));
    assertEquals(prefix + "unknown field extra", refused(good + "extra=1\n"));
    assertEquals(prefix + "names key orders/other, not " + KEY, refused(good.replace(KEY, "orders/other")));
    assertEquals(prefix + "divergent attempts must be >= 0, was -1",
        refused(good.replace("divergent_attempts=1", "divergent_attempts=-1")));
    assertTrue(refused(good.replace("divergent_attempts=1", "divergent_attempts=one"))
        .startsWith(prefix + "bad value: "));
    assertTrue(refused(good.replace("2026-12-02T15:40:08Z", "yesterday")).startsWith(prefix + "bad value: "));
  }

  private static Acknowledgement parse(String doc) throws MalformedAcknowledgementException {
    return Acknowledgement.parse(doc.getBytes(StandardCharsets.UTF_8), "acks/1", KEY);
  }

  private static String refused(String doc) {
    return assertThrows(MalformedAcknowledgementException.class, () -> parse(doc)).getMessage();
  }
}
