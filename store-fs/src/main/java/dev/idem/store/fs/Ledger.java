package dev.idem.store.fs;

import dev.idem.core.Names;
import dev.idem.core.Sha256;
import dev.idem.core.store.PutStatus;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The text form of one publish attempt: the content of each {@link Records record}, and the line format
 * of the per-key {@code .log} ledgers the previous version appended to, which are still read so a
 * store written by it keeps its history (never written any more: {@code O_APPEND} is not atomic across
 * NFS clients).
 *
 * <ul>
 *   <li>{@code v3 <ISO-8601 time> DIVERGENT <sha256> <size> <schema|-> <met sha256> <writer>\n}: what a
 *       DIVERGENT record holds now, its divergence marker (P8): the {@code v2} fields and the SHA-256 of
 *       the stored object the attempt met, so the scan counts that object when retention has deleted it;
 *   <li>{@code v2 <ISO-8601 time> <CREATED|IDENTICAL|DIVERGENT> <sha256> <size> <schema|-> <writer>\n}:
 *       what every other record holds; the schema version the publisher declared ({@code -} when none
 *       was), so the scan can tell a schema bump's overlap from keying drift;
 *   <li>{@code v1 <time> <status> <sha256> <size> <writer>\n}: records and ledgers of the versions before,
 *       read with an unknown schema.
 * </ul>
 *
 * A version that does not read a tag reads such a record as torn, from its name: status and SHA-256
 * are kept (a DIVERGENT record stays divergent), only time, size, writer, schema and the met object are
 * lost. That is why only DIVERGENT records, which no earlier reader needs more of, are written {@code v3}.
 *
 * <p>The reader drops any line without its final newline and any line that does not parse, and, where
 * a torn line was followed by a later append on the same text line, reads the later record from its
 * last {@code "v1 "}, {@code "v2 "} or {@code "v3 "} (no field can contain those sequences: times,
 * statuses, hashes, sizes and schemas hold no {@code 'v'} or space, and the writer id, which holds no
 * space, comes last).
 */
final class Ledger {
  static final String VERSION_TAG = "v2";
  /** The tag of a DIVERGENT record that names the object its attempt met. */
  static final String MARKER_TAG = "v3";
  private static final String OLD_VERSION_TAG = "v1";

  private Ledger() {}

  /**
   * One publish attempt; {@code size} is -1 and {@code writer} null when a torn record lost them, and
   * {@code schema} null when the publisher declared none, the line is {@code v1}, or a record was torn.
   * {@code metSha256} is, for a DIVERGENT attempt, the SHA-256 of the stored object it met ({@code null}
   * for every other status, and for DIVERGENT lines written before it was recorded or torn).
   */
  record Line(Instant time, PutStatus status, String sha256, long size, String writer, Integer schema,
      String metSha256) {
    Line {
      if (metSha256 != null && status != PutStatus.DIVERGENT) {
        throw new IllegalArgumentException("only a DIVERGENT attempt met another object");
      }
    }

    Line(Instant time, PutStatus status, String sha256, long size, String writer, Integer schema) {
      this(time, status, sha256, size, writer, schema, null);
    }

    String format() {
      String schemaField = schema == null ? "-" : schema.toString();
      return metSha256 == null
          ? VERSION_TAG + " " + time + " " + status + " " + sha256 + " " + size + " " + schemaField + " " + writer + "\n"
          : MARKER_TAG + " " + time + " " + status + " " + sha256 + " " + size + " " + schemaField + " " + metSha256
              + " " + writer + "\n";
    }
  }

  /** Every complete, well-formed line of the old ledger at {@code file}, in file order; empty if none. */
  static List<Line> read(StorePaths paths, Path file) throws IOException {
    byte[] bytes;
    InputStream opened = paths.open(file);
    if (opened == null) {
      return List.of();
    }
    try (InputStream in = opened) {
      bytes = in.readAllBytes();
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    List<Line> lines = new ArrayList<>();
    int start = 0;
    for (int nl; (nl = text.indexOf('\n', start)) >= 0; start = nl + 1) {
      parse(text.substring(start, nl)).ifPresent(lines::add);
    }
    return lines;
  }

  /** Parses one line (without its newline); empty for anything that is not a whole, valid record. */
  static Optional<Line> parse(String raw) {
    int at = Math.max(raw.lastIndexOf(MARKER_TAG + " "),
        Math.max(raw.lastIndexOf(VERSION_TAG + " "), raw.lastIndexOf(OLD_VERSION_TAG + " ")));
    if (at < 0) {
      return Optional.empty();
    }
    String[] f = raw.substring(at).split(" ", -1);
    boolean v3 = f[0].equals(MARKER_TAG);
    boolean v1 = f[0].equals(OLD_VERSION_TAG);
    if (f.length != (v3 ? 8 : v1 ? 6 : 7)) {
      return Optional.empty();
    }
    try {
      Instant time = Instant.parse(f[1]);
      PutStatus status = PutStatus.valueOf(f[2]);
      long size = Long.parseLong(f[4]);
      Integer schema = !v1 && !f[5].equals("-") ? Integer.valueOf(f[5]) : null;
      String met = v3 ? f[6] : null;
      String writer = f[f.length - 1];
      if (!Sha256.isHex(f[3]) || size < 0 || (schema != null && schema < 0) || !validWriter(writer)
          || (v3 && (status != PutStatus.DIVERGENT || !Sha256.isHex(met)))) {
        return Optional.empty();
      }
      return Optional.of(new Line(time, status, f[3], size, writer, schema, met));
    } catch (DateTimeParseException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static boolean validWriter(String writer) {
    try {
      Names.requireWriterId(writer);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
