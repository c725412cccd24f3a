package dev.idem.core.store;

import dev.idem.core.Names;
import dev.idem.core.OutputKey;
import dev.idem.core.Sha256;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code latest} pointer document of one pipeline: names one complete generation and enough about
 * it (hash, size) for a reader to verify what it fetched.
 *
 * <p>Serialized as small, versioned, human-readable text ({@link #toBytes()}):
 *
 * <pre>
 * idem-pointer 1
 * pipeline=border-state
 * key=border-state/1726000000/state-…
 * window_start=1726000000
 * window_length=60
 * schema_version=3
 * sha256=…
 * size=1234
 * writer=host-a:4242:k3j9
 * published_at=2024-09-10T20:27:00Z
 * </pre>
 *
 * Pointers are ordered by {@link #position()}, i.e. {@code (window_start, schema_version)} (G2).
 *
 * <p>A pointer an operator moved backwards ({@code idem pointer rewind}) carries the record of the last
 * such move, {@link Rewind}, and is written as format 2: the same lines, the magic {@code idem-pointer
 * 2}, and five more ({@code rewound_from}, {@code rewound_to}, {@code rewound_by}, {@code rewound_at},
 * {@code rewind_reason}). A pointer without one is written as format 1, byte for byte as before, so
 * documents written by earlier releases still parse and a store that never saw a rewind never holds
 * format 2. An earlier release refuses a format-2 document as malformed (it never follows or
 * overwrites what it cannot read); the record rides along with every later forward advance, so the
 * one way backwards stays visible.
 */
public record Pointer(
    String pipeline,
    String key,
    long windowStart,
    long windowLength,
    int schemaVersion,
    String sha256,
    long size,
    String writer,
    Instant publishedAt,
    Rewind rewind) {

  /** The format written for a pointer that carries no rewind record. */
  public static final int FORMAT_VERSION = 1;
  /** The format written for a pointer that carries one: {@link #FORMAT_VERSION} plus the rewind lines. */
  public static final int REWOUND_FORMAT_VERSION = 2;
  private static final String MAGIC = "idem-pointer " + FORMAT_VERSION;
  private static final String REWOUND_MAGIC = "idem-pointer " + REWOUND_FORMAT_VERSION;
  private static final int MAX_DOCUMENT_BYTES = 8 * 1024;

  public Pointer {
    Names.requirePipeline(pipeline);
    OutputKey parsed = OutputKey.parse(key);
    if (!parsed.pipeline().equals(pipeline) || parsed.windowStartEpochSecond() != windowStart) {
      throw new IllegalArgumentException("pointer key " + key + " does not belong to pipeline "
          + pipeline + " window " + windowStart);
    }
    if (windowLength <= 0 || schemaVersion < 0 || size < 0) {
      throw new IllegalArgumentException("pointer has a negative or zero field");
    }
    if (!Sha256.isHex(sha256)) {
      throw new IllegalArgumentException("pointer sha256 must be 64 lowercase hex digits");
    }
    Names.requireWriterId(writer);
    Objects.requireNonNull(publishedAt, "publishedAt");
    // The record names where this pointer was sent back to; later advances only move it forward from there.
    if (rewind != null && (!OutputKey.parse(rewind.to()).pipeline().equals(pipeline)
        || OutputKey.parse(rewind.to()).windowStartEpochSecond() > windowStart)) {
      throw new IllegalArgumentException("rewind record to " + rewind.to() + " does not fit pointer " + key);
    }
  }

  /** A pointer with no rewind record: what every forward advance asks for. */
  public Pointer(String pipeline, String key, long windowStart, long windowLength, int schemaVersion, String sha256,
      long size, String writer, Instant publishedAt) {
    this(pipeline, key, windowStart, windowLength, schemaVersion, sha256, size, writer, publishedAt, null);
  }

  /** This pointer carrying {@code r} (or none, for {@code null}) as its last rewind. */
  public Pointer withRewind(Rewind r) {
    return new Pointer(pipeline, key, windowStart, windowLength, schemaVersion, sha256, size, writer, publishedAt, r);
  }

  /**
   * The record of an operator moving a pointer backwards: from which key, to which key, by whom, when
   * and why. Only {@code idem pointer rewind} creates one; forward advances carry the last one on.
   *
   * @param reason why, in the operator's words: 1-{@value #MAX_REASON_LENGTH} characters, no control
   *     characters (it is one line of the pointer document)
   */
  public record Rewind(String from, String to, String by, Instant at, String reason) {
    public static final int MAX_REASON_LENGTH = 500;

    public Rewind {
      OutputKey f = OutputKey.parse(from);
      OutputKey t = OutputKey.parse(to);
      if (!f.pipeline().equals(t.pipeline())) {
        throw new IllegalArgumentException("a rewind stays in one pipeline, was from " + from + " to " + to);
      }
      Names.requireWriterId(by);
      Objects.requireNonNull(at, "at");
      requireReason(reason);
    }

    /**
     * Checks an operator's reason before it is recorded.
     *
     * @throws IllegalArgumentException when it is blank, too long or holds a control character
     */
    public static String requireReason(String reason) {
      if (reason == null || reason.isBlank()) {
        throw new IllegalArgumentException("a rewind needs a reason (who asked, which incident)");
      }
      if (reason.length() > MAX_REASON_LENGTH) {
        throw new IllegalArgumentException("rewind reason must be at most " + MAX_REASON_LENGTH + " characters, was "
            + reason.length());
      }
      if (reason.codePoints().anyMatch(Character::isISOControl) || !reason.equals(reason.strip())) {
        throw new IllegalArgumentException("rewind reason must be one line without control characters or "
            + "leading/trailing blanks");
      }
      return reason;
    }
  }

  /** The pointer to {@code object}, published for the spec with this window and schema. */
  public static Pointer to(ObjectInfo object, long windowLength, int schemaVersion, String fallbackWriter, Instant fallbackTime) {
    OutputKey k = OutputKey.parse(object.key());
    return new Pointer(k.pipeline(), object.key(), k.windowStartEpochSecond(), windowLength, schemaVersion,
        object.sha256(), object.size(),
        object.writer() != null ? object.writer() : fallbackWriter,
        object.publishedAt() != null ? object.publishedAt() : fallbackTime);
  }

  public Position position() {
    return new Position(windowStart, schemaVersion);
  }

  /** The order pointers advance in: window start first, then schema version (G2). */
  public record Position(long windowStart, int schemaVersion) implements Comparable<Position> {
    @Override
    public int compareTo(Position o) {
      int c = Long.compare(windowStart, o.windowStart);
      return c != 0 ? c : Integer.compare(schemaVersion, o.schemaVersion);
    }

    @Override
    public String toString() {
      return "(window_start=" + windowStart + ", schema=" + schemaVersion + ")";
    }
  }

  public byte[] toBytes() {
    String s = (rewind == null ? MAGIC : REWOUND_MAGIC) + "\n"
        + "pipeline=" + pipeline + "\n"
        + "key=" + key + "\n"
        + "window_start=" + windowStart + "\n"
        + "window_length=" + windowLength + "\n"
        + "schema_version=" + schemaVersion + "\n"
        + "sha256=" + sha256 + "\n"
        + "size=" + size + "\n"
        + "writer=" + writer + "\n"
        + "published_at=" + publishedAt + "\n";
    if (rewind != null) {
      s += "rewound_from=" + rewind.from() + "\n"
          + "rewound_to=" + rewind.to() + "\n"
          + "rewound_by=" + rewind.by() + "\n"
          + "rewound_at=" + rewind.at() + "\n"
          + "rewind_reason=" + rewind.reason() + "\n";
    }
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Parses a pointer document strictly: the magic line (format 1 or 2), every field of that format
   * exactly once, nothing unknown.
   *
   * @throws MalformedPointerException with a one-line reason; {@code source} names where it came from
   */
  public static Pointer parse(byte[] bytes, String source) throws MalformedPointerException {
    if (bytes.length > MAX_DOCUMENT_BYTES) {
      throw new MalformedPointerException(source, "larger than " + MAX_DOCUMENT_BYTES + " bytes");
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    if (!text.endsWith("\n")) {
      throw new MalformedPointerException(source, "truncated (no final newline)");
    }
    String[] lines = text.split("\n", -1);
    boolean rewound = lines[0].equals(REWOUND_MAGIC);
    if (!rewound && !lines[0].equals(MAGIC)) {
      throw new MalformedPointerException(source, "first line is not '" + MAGIC + "' or '" + REWOUND_MAGIC + "'");
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (int i = 1; i < lines.length - 1; i++) {
      int eq = lines[i].indexOf('=');
      if (eq <= 0) {
        throw new MalformedPointerException(source, "line " + (i + 1) + " is not name=value");
      }
      if (fields.put(lines[i].substring(0, eq), lines[i].substring(eq + 1)) != null) {
        throw new MalformedPointerException(source, "field " + lines[i].substring(0, eq) + " repeated");
      }
    }
    try {
      Pointer p = new Pointer(
          field(fields, "pipeline", source),
          field(fields, "key", source),
          Long.parseLong(field(fields, "window_start", source)),
          Long.parseLong(field(fields, "window_length", source)),
          Integer.parseInt(field(fields, "schema_version", source)),
          field(fields, "sha256", source),
          Long.parseLong(field(fields, "size", source)),
          field(fields, "writer", source),
          Instant.parse(field(fields, "published_at", source)),
          rewound ? new Rewind(
              field(fields, "rewound_from", source),
              field(fields, "rewound_to", source),
              field(fields, "rewound_by", source),
              Instant.parse(field(fields, "rewound_at", source)),
              field(fields, "rewind_reason", source)) : null);
      if (!fields.isEmpty()) {
        throw new MalformedPointerException(source, "unknown field " + fields.keySet().iterator().next());
      }
      return p;
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new MalformedPointerException(source, "bad value: " + e.getMessage());
    } catch (IllegalArgumentException e) {
      throw new MalformedPointerException(source, e.getMessage());
    }
  }

  /**
   * {@link #parse(byte[], String)} of the document stored as {@code pipeline}'s pointer, which must name
   * that pipeline: a store never follows (or overwrites on the strength of) another pipeline's document.
   *
   * @throws MalformedPointerException also when the document names another pipeline
   */
  public static Pointer parse(byte[] bytes, String source, String pipeline) throws MalformedPointerException {
    Pointer p = parse(bytes, source);
    if (!p.pipeline().equals(pipeline)) {
      throw new MalformedPointerException(source, "names pipeline " + p.pipeline() + ", not " + pipeline);
    }
    return p;
  }

  private static String field(Map<String, String> fields, String name, String source)
      throws MalformedPointerException {
    String v = fields.remove(name);
    if (v == null) {
      throw new MalformedPointerException(source, "field " + name + " missing");
    }
    return v;
  }

  /** A pointer document that is not one idem wrote: never followed, never overwritten blindly. */
  public static final class MalformedPointerException extends java.io.IOException {
    private static final long serialVersionUID = 1L;

    public MalformedPointerException(String source, String reason) {
      super("malformed pointer " + source + ": " + reason);
    }
  }
}
