package dev.idem.core.store;

import dev.idem.core.Names;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * An operator's record that a divergent key was reviewed ({@code idem ack}): the keying bug behind it
 * is understood and fixed, so the divergence scan may pass the key again, without deleting the evidence
 * that proves what happened.
 *
 * <p>An acknowledgement covers what was known when it was made, never what comes after: the distinct
 * contents the key's history held ({@link #contents()}, each named as {@code
 * dev.idem.core.scan.KeyVerdict#contentIds()} names it) and the number of divergent attempts recorded
 * ({@link #divergentAttempts()}). A key stays acknowledged while every content its history holds is
 * among those and it holds no more divergent attempts ({@link #covers}); a later publish of new bytes, or
 * one more divergent attempt (even of bytes seen before: a build still deriving the wrong key), fails
 * the gate again.
 *
 * <p>Stores keep acknowledgements create-only and never change or delete one ({@link
 * PublishHistory#acknowledge}): each is an entry in an audit trail, like an operator's pointer rewind.
 * Serialized as versioned, human-readable text ({@link #toBytes()}):
 *
 * <pre>
 * idem-ack 1
 * key=border-state/1725999960/state-4465…
 * contents=sha256:671b…,sha256:d746…
 * divergent_attempts=1
 * acknowledged_by=ops-alice
 * acknowledged_at=2026-12-02T15:40:08Z
 * reason=INC-42: snapshot input added to the key in build 44
 * </pre>
 *
 * @param key the acknowledged key
 * @param contents the distinct contents the key's history held, at least one, each one line without
 *     {@code ,}
 * @param divergentAttempts the divergent attempts recorded for the key then
 * @param by who acknowledged it (a writer id)
 * @param at when
 * @param reason why, in the operator's words: one line of 1-{@value #MAX_REASON_LENGTH} characters
 */
public record Acknowledgement(String key, SortedSet<String> contents, int divergentAttempts, String by, Instant at,
    String reason) {
  /** The format {@link #toBytes()} writes and {@link #parse} reads. */
  public static final int FORMAT_VERSION = 1;
  public static final int MAX_REASON_LENGTH = 500;
  /** More distinct contents than this in one key is no keying bug an operator reviews by hand. */
  public static final int MAX_CONTENTS = 1000;
  private static final String MAGIC = "idem-ack " + FORMAT_VERSION;
  private static final int MAX_DOCUMENT_BYTES = 128 * 1024;

  public Acknowledgement {
    Names.requireSafeKey(key);
    Objects.requireNonNull(contents, "contents");
    if (contents.isEmpty() || contents.size() > MAX_CONTENTS) {
      throw new IllegalArgumentException("an acknowledgement names 1-" + MAX_CONTENTS + " contents, was "
          + contents.size());
    }
    for (String c : contents) {
      if (c.isEmpty() || c.indexOf(',') >= 0 || c.codePoints().anyMatch(Character::isISOControl)) {
        throw new IllegalArgumentException("a content is one line without ',', was '" + c + "'");
      }
    }
    // Copied into natural order: a set given with its own comparator would keep it (TreeSet's copy of a
    // SortedSet does), and the document would list the same review's contents in another order.
    TreeSet<String> natural = new TreeSet<>();
    natural.addAll(contents);
    contents = Collections.unmodifiableSortedSet(natural);
    if (divergentAttempts < 0) {
      throw new IllegalArgumentException("divergent attempts must be >= 0, was " + divergentAttempts);
    }
    Names.requireWriterId(by);
    Objects.requireNonNull(at, "at");
    requireReason(reason);
  }

  /**
   * Whether a key whose history now holds {@code contentsNow} and {@code divergentAttemptsNow} is still
   * what this acknowledgement reviewed: nothing new since.
   */
  public boolean covers(Set<String> contentsNow, int divergentAttemptsNow) {
    return contents.containsAll(contentsNow) && divergentAttemptsNow <= divergentAttempts;
  }

  /**
   * Checks an operator's reason before it is recorded.
   *
   * @throws IllegalArgumentException when it is blank, too long or holds a control character
   */
  public static String requireReason(String reason) {
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException("an acknowledgement needs a reason (what was fixed, which incident)");
    }
    if (reason.length() > MAX_REASON_LENGTH) {
      throw new IllegalArgumentException("the reason must be at most " + MAX_REASON_LENGTH + " characters, was "
          + reason.length());
    }
    if (reason.codePoints().anyMatch(Character::isISOControl) || !reason.equals(reason.strip())) {
      throw new IllegalArgumentException("the reason must be one line without control characters or "
          + "leading/trailing blanks");
    }
    return reason;
  }

  public byte[] toBytes() {
    return (MAGIC + "\n"
        + "key=" + key + "\n"
        + "contents=" + String.join(",", contents) + "\n"
        + "divergent_attempts=" + divergentAttempts + "\n"
        + "acknowledged_by=" + by + "\n"
        + "acknowledged_at=" + at + "\n"
        + "reason=" + reason + "\n").getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Parses a document strictly: the magic line, every field exactly once, nothing unknown, and the key
   * the store found it under.
   *
   * @throws MalformedAcknowledgementException with a one-line reason; {@code source} names where it came from
   */
  public static Acknowledgement parse(byte[] bytes, String source, String key) throws MalformedAcknowledgementException {
    if (bytes.length > MAX_DOCUMENT_BYTES) {
      throw new MalformedAcknowledgementException(source, "larger than " + MAX_DOCUMENT_BYTES + " bytes");
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    if (!text.endsWith("\n")) {
      throw new MalformedAcknowledgementException(source, "truncated (no final newline)");
    }
    String[] lines = text.split("\n", -1);
    if (!lines[0].equals(MAGIC)) {
      throw new MalformedAcknowledgementException(source, "first line is not '" + MAGIC + "'");
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (int i = 1; i < lines.length - 1; i++) {
      int eq = lines[i].indexOf('=');
      if (eq <= 0) {
        throw new MalformedAcknowledgementException(source, "line " + (i + 1) + " is not name=value");
      }
      if (fields.put(lines[i].substring(0, eq), lines[i].substring(eq + 1)) != null) {
        throw new MalformedAcknowledgementException(source, "field " + lines[i].substring(0, eq) + " repeated");
      }
    }
    try {
      String[] contents = field(fields, "contents", source).split(",", -1);
      Acknowledgement a = new Acknowledgement(field(fields, "key", source), new TreeSet<>(List.of(contents)),
          Integer.parseInt(field(fields, "divergent_attempts", source)), field(fields, "acknowledged_by", source),
          Instant.parse(field(fields, "acknowledged_at", source)), field(fields, "reason", source));
      if (!fields.isEmpty()) {
        throw new MalformedAcknowledgementException(source, "unknown field " + fields.keySet().iterator().next());
      }
      if (!a.key().equals(key)) {
        throw new MalformedAcknowledgementException(source, "names key " + a.key() + ", not " + key);
      }
      return a;
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new MalformedAcknowledgementException(source, "bad value: " + e.getMessage());
    } catch (IllegalArgumentException e) {
      throw new MalformedAcknowledgementException(source, e.getMessage());
    }
  }

  private static String field(Map<String, String> fields, String name, String source)
      throws MalformedAcknowledgementException {
    String v = fields.remove(name);
    if (v == null) {
      throw new MalformedAcknowledgementException(source, "field " + name + " missing");
    }
    return v;
  }

  /** An acknowledgement document that is not one idem wrote: never trusted, so the key stays divergent. */
  public static final class MalformedAcknowledgementException extends java.io.IOException {
    private static final long serialVersionUID = 1L;

    public MalformedAcknowledgementException(String source, String reason) {
      super("malformed acknowledgement " + source + ": " + reason);
    }
  }
}
