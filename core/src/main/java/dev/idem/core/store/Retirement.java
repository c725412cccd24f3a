package dev.idem.core.store;

import dev.idem.core.Names;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What retention ({@code idem gc}) retired in one pipeline: every window up to and including {@link
 * #windowStart()} is behind a gc run that deleted generations there. It exists so that a window published
 * again after gc removed it is told apart from a first publish ({@code REPUBLISHED}) and from a
 * divergence: gc removes a deleted generation's records, so without this mark nothing says the window
 * ever held an object.
 *
 * <p>One small document per pipeline, whatever the number of deleted keys ({@link
 * RetirementMarks#raiseRetirement}): it only moves forward, to a higher window start, so two gc runs can
 * never move it back. It is a range, not a list: a window in the range that never held an object (a
 * gap published late) also counts as retired, and is reported as republished.
 *
 * <p>Serialized as versioned, human-readable text ({@link #toBytes()}):
 *
 * <pre>
 * idem-retired 1
 * pipeline=border-state
 * window_start=1726000000
 * retired_at=2024-09-11T03:00:00Z
 * retired_by=idem 1.4.0
 * </pre>
 *
 * @param pipeline the pipeline
 * @param windowStart the highest window start (epoch seconds) a gc run deleted a generation of
 * @param retiredAt when that gc run started: every generation it deleted was written before this
 *     time, so content in a covered window written after it was published again
 * @param retiredBy what ran it (e.g. {@code idem 1.4.0}): one line, at most {@value #MAX_BY_LENGTH}
 *     characters, no control characters
 */
public record Retirement(String pipeline, long windowStart, Instant retiredAt, String retiredBy) {
  /** The format {@link #toBytes()} writes and {@link #parse} reads. */
  public static final int FORMAT_VERSION = 1;
  public static final int MAX_BY_LENGTH = 200;
  private static final String MAGIC = "idem-retired " + FORMAT_VERSION;
  private static final int MAX_DOCUMENT_BYTES = 4 * 1024;

  public Retirement {
    Names.requirePipeline(pipeline);
    if (windowStart < 0) {
      throw new IllegalArgumentException("retired window start must be >= 0, was " + windowStart);
    }
    Objects.requireNonNull(retiredAt, "retiredAt");
    if (retiredBy == null || retiredBy.isBlank() || retiredBy.length() > MAX_BY_LENGTH
        || retiredBy.codePoints().anyMatch(Character::isISOControl) || !retiredBy.equals(retiredBy.strip())) {
      throw new IllegalArgumentException("retired_by must be one line of 1-" + MAX_BY_LENGTH
          + " characters without control characters or leading/trailing blanks");
    }
  }

  /** Whether the window starting at {@code start} lies in the retired range. */
  public boolean covers(long start) {
    return start <= windowStart;
  }

  public byte[] toBytes() {
    return (MAGIC + "\n"
        + "pipeline=" + pipeline + "\n"
        + "window_start=" + windowStart + "\n"
        + "retired_at=" + retiredAt + "\n"
        + "retired_by=" + retiredBy + "\n").getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Parses a document strictly: the magic line, every field exactly once, nothing unknown.
   *
   * @throws MalformedRetirementException with a one-line reason; {@code source} names where it came from
   */
  public static Retirement parse(byte[] bytes, String source) throws MalformedRetirementException {
    if (bytes.length > MAX_DOCUMENT_BYTES) {
      throw new MalformedRetirementException(source, "larger than " + MAX_DOCUMENT_BYTES + " bytes");
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    if (!text.endsWith("\n")) {
      throw new MalformedRetirementException(source, "truncated (no final newline)");
    }
    String[] lines = text.split("\n", -1);
    if (!lines[0].equals(MAGIC)) {
      throw new MalformedRetirementException(source, "first line is not '" + MAGIC + "'");
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (int i = 1; i < lines.length - 1; i++) {
      int eq = lines[i].indexOf('=');
      if (eq <= 0) {
        throw new MalformedRetirementException(source, "line " + (i + 1) + " is not name=value");
      }
      if (fields.put(lines[i].substring(0, eq), lines[i].substring(eq + 1)) != null) {
        throw new MalformedRetirementException(source, "field " + lines[i].substring(0, eq) + " repeated");
      }
    }
    try {
      Retirement r = new Retirement(field(fields, "pipeline", source),
          Long.parseLong(field(fields, "window_start", source)),
          Instant.parse(field(fields, "retired_at", source)),
          field(fields, "retired_by", source));
      if (!fields.isEmpty()) {
        throw new MalformedRetirementException(source, "unknown field " + fields.keySet().iterator().next());
      }
      return r;
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new MalformedRetirementException(source, "bad value: " + e.getMessage());
    } catch (IllegalArgumentException e) {
      throw new MalformedRetirementException(source, e.getMessage());
    }
  }

  /**
   * Parses {@code bytes} and checks the document is the one of {@code pipeline}.
   *
   * @throws MalformedRetirementException when it is not a valid document, or names another pipeline
   */
  public static Retirement parse(byte[] bytes, String source, String pipeline) throws MalformedRetirementException {
    Retirement r = parse(bytes, source);
    if (!r.pipeline().equals(pipeline)) {
      throw new MalformedRetirementException(source, "names pipeline " + r.pipeline() + ", not " + pipeline);
    }
    return r;
  }

  private static String field(Map<String, String> fields, String name, String source)
      throws MalformedRetirementException {
    String v = fields.remove(name);
    if (v == null) {
      throw new MalformedRetirementException(source, "field " + name + " missing");
    }
    return v;
  }

  /** A retirement document that is not one idem wrote: never trusted, never overwritten blindly. */
  public static final class MalformedRetirementException extends java.io.IOException {
    private static final long serialVersionUID = 1L;

    public MalformedRetirementException(String source, String reason) {
      super("malformed retirement record " + source + ": " + reason);
    }
  }
}
