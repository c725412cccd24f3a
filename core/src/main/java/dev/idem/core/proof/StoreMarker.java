package dev.idem.core.proof;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The store marker: created once, create-only, at {@value #KEY} under the store root or bucket prefix,
 * by the first idem process that proved the store. It fixes the store's pointer mode and records what
 * was probed and the answers, so later processes trust the store without probing it again.
 *
 * <p>Serialized as small, versioned, human-readable text, like the pointer document:
 *
 * <pre>
 * idem-store 1
 * kind=s3
 * pointer_mode=cas
 * created_at=2026-12-02T14:00:00Z
 * created_by=idem 0.1.0
 * probes=2
 * probe.if-none-match=HELD | required | TEST | OBSERVED | RELIANCE
 * probe.if-match=HELD | required | TEST | OBSERVED | RELIANCE
 * </pre>
 *
 * Parsing is strict (magic line, each field once, as many probe lines as {@code probes} says, nothing
 * unknown), so a document idem did not write
 * is never mistaken for proof. A marker of a newer format version is refused rather than half-read.
 *
 * @param kind the store kind, {@code s3} or {@code file}
 * @param pointerMode the pointer mode every writer of this store must use ({@code cas}, {@code log},
 *     {@code lock})
 * @param createdAt when the marker was created (the creating process's clock)
 * @param createdBy which idem created it, e.g. {@code idem 0.1.0}
 * @param probes what was probed and the answers, in probe order
 */
public record StoreMarker(String kind, String pointerMode, Instant createdAt, String createdBy,
    List<ProbeResult> probes) {

  /** Where the marker lives, relative to the store root or bucket prefix. */
  public static final String KEY = "_idem/store";
  /** Where probes write (and then remove) their scratch objects. */
  public static final String PROBE_PREFIX = "_idem/probe/";
  public static final int FORMAT_VERSION = 1;
  private static final String MAGIC_WORD = "idem-store ";
  private static final String MAGIC = MAGIC_WORD + FORMAT_VERSION;
  private static final int MAX_DOCUMENT_BYTES = 16 * 1024;
  private static final String PROBE = "probe.";
  private static final String SEPARATOR = " | ";

  public StoreMarker {
    kind = token(kind, "kind");
    pointerMode = token(pointerMode, "pointer mode");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(createdBy, "createdBy");
    if (createdBy.isBlank() || createdBy.chars().anyMatch(c -> c < 0x20)) {
      throw new IllegalArgumentException("marker creator must be one non-empty line");
    }
    probes = List.copyOf(probes);
  }

  public byte[] toBytes() {
    StringBuilder s = new StringBuilder(MAGIC).append('\n')
        .append("kind=").append(kind).append('\n')
        .append("pointer_mode=").append(pointerMode).append('\n')
        .append("created_at=").append(createdAt).append('\n')
        .append("created_by=").append(createdBy).append('\n')
        .append("probes=").append(probes.size()).append('\n');
    for (ProbeResult p : probes) {
      s.append(PROBE).append(p.guarantee()).append('=')
          .append(p.held() ? "HELD" : "MISSING").append(SEPARATOR)
          .append(p.required() ? "required" : "optional").append(SEPARATOR)
          .append(p.test()).append(SEPARATOR)
          .append(p.observed()).append(SEPARATOR)
          .append(p.reliance()).append('\n');
    }
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Parses a marker document strictly.
   *
   * @param source where it came from, for the message (e.g. {@code s3://bucket/prefix/_idem/store})
   * @throws StoreRefusedException with a one-line reason when it is not a marker this idem wrote or can
   *     read
   */
  public static StoreMarker parse(byte[] bytes, String source) throws StoreRefusedException {
    if (bytes.length > MAX_DOCUMENT_BYTES) {
      throw malformed(source, "larger than " + MAX_DOCUMENT_BYTES + " bytes");
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    if (!text.endsWith("\n")) {
      throw malformed(source, "truncated (no final newline)");
    }
    String[] lines = text.split("\n", -1);
    if (!lines[0].equals(MAGIC)) {
      if (lines[0].startsWith(MAGIC_WORD)) {
        throw new StoreRefusedException("store marker " + source + " has format '" + lines[0]
            + "', this idem reads '" + MAGIC + "': upgrade idem before writing to this store");
      }
      throw malformed(source, "first line is not '" + MAGIC + "'");
    }
    Map<String, String> fields = new LinkedHashMap<>();
    List<ProbeResult> probes = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 1; i < lines.length - 1; i++) {
      int eq = lines[i].indexOf('=');
      if (eq <= 0) {
        throw malformed(source, "line " + (i + 1) + " is not name=value");
      }
      String name = lines[i].substring(0, eq);
      String value = lines[i].substring(eq + 1);
      if (!seen.add(name)) {
        throw malformed(source, "field " + name + " repeated");
      }
      if (name.startsWith(PROBE)) {
        probes.add(probe(name.substring(PROBE.length()), value, source));
      } else {
        fields.put(name, value);
      }
    }
    try {
      StoreMarker m = new StoreMarker(
          required(fields, "kind", source),
          required(fields, "pointer_mode", source),
          Instant.parse(required(fields, "created_at", source)),
          required(fields, "created_by", source),
          probes);
      String count = required(fields, "probes", source);
      if (!count.equals(Integer.toString(probes.size()))) {
        throw malformed(source, "probes=" + count + " but " + probes.size() + " probe lines");
      }
      if (!fields.isEmpty()) {
        throw malformed(source, "unknown field " + fields.keySet().iterator().next());
      }
      return m;
    } catch (DateTimeParseException e) {
      throw malformed(source, "bad created_at: " + e.getParsedString());
    } catch (IllegalArgumentException e) {
      throw malformed(source, e.getMessage());
    }
  }

  private static ProbeResult probe(String name, String value, String source) throws StoreRefusedException {
    String[] parts = value.split(" \\| ", -1);
    if (parts.length != 5) {
      throw malformed(source, "probe." + name + " does not have 5 fields separated by ' | '");
    }
    boolean held;
    if (parts[0].equals("HELD") || parts[0].equals("MISSING")) {
      held = parts[0].equals("HELD");
    } else {
      throw malformed(source, "probe." + name + " answer is not HELD or MISSING");
    }
    boolean required;
    if (parts[1].equals("required") || parts[1].equals("optional")) {
      required = parts[1].equals("required");
    } else {
      throw malformed(source, "probe." + name + " is not marked required or optional");
    }
    try {
      return new ProbeResult(name, parts[2], held, required, parts[3], parts[4]);
    } catch (IllegalArgumentException e) {
      throw malformed(source, e.getMessage());
    }
  }

  /** The answer recorded for {@code guarantee}, if it was probed. */
  public Optional<ProbeResult> probe(String guarantee) {
    return probes.stream().filter(p -> p.guarantee().equals(guarantee)).findFirst();
  }

  private static String required(Map<String, String> fields, String name, String source)
      throws StoreRefusedException {
    String v = fields.remove(name);
    if (v == null) {
      throw malformed(source, "field " + name + " missing");
    }
    return v;
  }

  private static String token(String s, String what) {
    Objects.requireNonNull(s, what);
    if (!s.matches("[a-z0-9][a-z0-9-]{0,19}")) {
      throw new IllegalArgumentException("marker " + what + " must be 1-20 of [a-z0-9-], was '" + s + "'");
    }
    return s;
  }

  private static StoreRefusedException malformed(String source, String reason) {
    return new StoreRefusedException("malformed store marker " + source + ": " + reason
        + "; idem does not write to a store whose marker it cannot read");
  }
}
