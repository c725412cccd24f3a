package dev.idem.core.store;

import dev.idem.core.Names;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One writer's advisory claim on a key ({@link Claims}): "I am producing this key's object, started at
 * {@link #started()}, expect to take about {@link #expected()}". It exists so that a replica about to
 * do the same work can wait for the claimant's object instead; it is advice, never a lock ({@link
 * Claims} says what each kind of bad claim costs).
 *
 * <p>The document is what its writer stored; {@link #id()} and {@link #age()} are the store's: the
 * entry's name (what {@link Claims#renewClaim} and {@link Claims#releaseClaim} act on) and how long
 * ago it was written or last renewed, judged by the store's clock when it was read.
 *
 * <p>Serialized as versioned, human-readable text ({@link #toBytes()}):
 *
 * <pre>
 * idem-claim 1
 * key=border-state/1726000000/state-3f2a
 * writer=host-a:4711
 * started=2024-09-11T03:00:00Z
 * expected=PT2M
 * </pre>
 *
 * ({@code expected} is left out when unknown.)
 *
 * @param key the claimed key
 * @param id the store's name for this claim entry
 * @param writer who claims ({@link Names#requireWriterId})
 * @param started when the claimant first claimed (kept across renewals)
 * @param expected how long the claimant expects its work to take, or {@code null} when unknown
 * @param age how long ago the entry was written or renewed, by the store's clock; never negative
 */
public record Claim(String key, String id, String writer, Instant started, Duration expected, Duration age) {
  /** The format {@link #toBytes()} writes and {@link #parse} reads. */
  public static final int FORMAT_VERSION = 1;
  /** The largest document {@link #parse} reads; a store reads at most one byte more. */
  public static final int MAX_DOCUMENT_BYTES = 4 * 1024;
  private static final String MAGIC = "idem-claim " + FORMAT_VERSION;

  public Claim {
    Names.requireSafeKey(key);
    Objects.requireNonNull(id, "id");
    Names.requireWriterId(writer);
    Objects.requireNonNull(started, "started");
    if (expected != null && expected.isNegative()) {
      throw new IllegalArgumentException("expected duration must be >= 0, was " + expected);
    }
    Objects.requireNonNull(age, "age");
    if (age.isNegative()) {
      throw new IllegalArgumentException("age must be >= 0, was " + age);
    }
  }

  /** How long the claimant expects its work to take, when it said. */
  public Optional<Duration> expectedDuration() {
    return Optional.ofNullable(expected);
  }

  /** Whether the claim was written or renewed less than {@code ttl} ago: a claimant still at work. */
  public boolean isFresh(Duration ttl) {
    return age.compareTo(ttl) < 0;
  }

  /** This claim as a store keeps it after writing or renewing it now: entry {@code newId}, age zero. */
  public Claim renewedAs(String newId) {
    return new Claim(key, newId, writer, started, expected, Duration.ZERO);
  }

  /** The stored document: key, writer, start and expected duration (not the id or age, which are the store's). */
  public byte[] toBytes() {
    return (MAGIC + "\n"
        + "key=" + key + "\n"
        + "writer=" + writer + "\n"
        + "started=" + started + "\n"
        + (expected == null ? "" : "expected=" + expected + "\n")).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Parses a stored document strictly (the magic line, each field once, nothing unknown) and checks it
   * claims {@code key}.
   *
   * @param id the store's name for the entry
   * @param age the entry's age by the store's clock
   * @throws MalformedClaimException with a one-line reason; {@code source} names where it came from
   */
  public static Claim parse(byte[] bytes, String source, String key, String id, Duration age)
      throws MalformedClaimException {
    if (bytes.length > MAX_DOCUMENT_BYTES) {
      throw new MalformedClaimException(source, "larger than " + MAX_DOCUMENT_BYTES + " bytes");
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    if (!text.endsWith("\n")) {
      throw new MalformedClaimException(source, "truncated (no final newline)");
    }
    String[] lines = text.split("\n", -1);
    if (!lines[0].equals(MAGIC)) {
      throw new MalformedClaimException(source, "first line is not '" + MAGIC + "'");
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (int i = 1; i < lines.length - 1; i++) {
      int eq = lines[i].indexOf('=');
      if (eq <= 0) {
        throw new MalformedClaimException(source, "line " + (i + 1) + " is not name=value");
      }
      if (fields.put(lines[i].substring(0, eq), lines[i].substring(eq + 1)) != null) {
        throw new MalformedClaimException(source, "field " + lines[i].substring(0, eq) + " repeated");
      }
    }
    try {
      String claimed = field(fields, "key", source);
      if (!claimed.equals(key)) {
        throw new MalformedClaimException(source, "claims key " + claimed + ", not " + key);
      }
      String writer = field(fields, "writer", source);
      Instant started = Instant.parse(field(fields, "started", source));
      String expected = fields.remove("expected");
      if (!fields.isEmpty()) {
        throw new MalformedClaimException(source, "unknown field " + fields.keySet().iterator().next());
      }
      return new Claim(key, id, writer, started, expected == null ? null : Duration.parse(expected), age);
    } catch (DateTimeParseException e) {
      throw new MalformedClaimException(source, "bad value: " + e.getMessage());
    } catch (IllegalArgumentException e) {
      throw new MalformedClaimException(source, e.getMessage());
    }
  }

  private static String field(Map<String, String> fields, String name, String source)
      throws MalformedClaimException {
    String v = fields.remove(name);
    if (v == null) {
      throw new MalformedClaimException(source, "field " + name + " missing");
    }
    return v;
  }

  /** A stored claim that is not one idem wrote: a store treats it as absent, never as a claim. */
  public static final class MalformedClaimException extends java.io.IOException {
    private static final long serialVersionUID = 1L;

    public MalformedClaimException(String source, String reason) {
      super("malformed claim " + source + ": " + reason);
    }
  }
}
