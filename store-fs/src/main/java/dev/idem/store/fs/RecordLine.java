package dev.idem.store.fs;

import dev.idem.core.Names;
import dev.idem.core.Sha256;
import dev.idem.core.store.PutStatus;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * The text form of one publish attempt: the content of each {@link Records record}, one line.
 *
 * <ul>
 *   <li>{@code v3 <ISO-8601 time> DIVERGENT <sha256> <size> <schema|-> <met sha256> <writer>\n}: what a
 *       DIVERGENT record holds, its divergence marker (P8): the {@code v2} fields and the SHA-256 of the
 *       stored object the attempt met, so the scan counts that object when retention has deleted it;
 *   <li>{@code v2 <ISO-8601 time> <CREATED|IDENTICAL|DIVERGENT> <sha256> <size> <schema|-> <writer>\n}:
 *       what every other record holds; the schema version the publisher declared ({@code -} when none
 *       was), so the scan can tell a schema bump's overlap from keying drift.
 * </ul>
 *
 * A version that does not read a tag reads such a record as torn, from its name: status and SHA-256
 * are kept (a DIVERGENT record stays divergent), only time, size, writer, schema and the met object are
 * lost. That is why only DIVERGENT records, which no earlier reader needs more of, are written {@code v3}.
 *
 * <p>The reader refuses a line that does not parse whole; {@link Records} then reads the record from
 * its name.
 *
 * @param size -1 when a torn record lost it
 * @param writer {@code null} when a torn record lost it
 * @param schema {@code null} when the publisher declared none or a record was torn
 * @param metSha256 for a DIVERGENT attempt, the SHA-256 of the stored object it met ({@code null} for
 *     every other status, and for DIVERGENT lines written before it was recorded or torn)
 */
record RecordLine(Instant time, PutStatus status, String sha256, long size, String writer, Integer schema,
    String metSha256) {
  static final String VERSION_TAG = "v2";
  /** The tag of a DIVERGENT record that names the object its attempt met. */
  static final String MARKER_TAG = "v3";

  RecordLine {
    if (metSha256 != null && status != PutStatus.DIVERGENT) {
      throw new IllegalArgumentException("only a DIVERGENT attempt met another object");
    }
  }

  RecordLine(Instant time, PutStatus status, String sha256, long size, String writer, Integer schema) {
    this(time, status, sha256, size, writer, schema, null);
  }

  String format() {
    String schemaField = schema == null ? "-" : schema.toString();
    return metSha256 == null
        ? VERSION_TAG + " " + time + " " + status + " " + sha256 + " " + size + " " + schemaField + " " + writer + "\n"
        : MARKER_TAG + " " + time + " " + status + " " + sha256 + " " + size + " " + schemaField + " " + metSha256
            + " " + writer + "\n";
  }

  /** Parses one line (without its newline); empty for anything that is not a whole, valid record. */
  static Optional<RecordLine> parse(String raw) {
    String[] f = raw.split(" ", -1);
    boolean v3 = f[0].equals(MARKER_TAG);
    if (!v3 && !f[0].equals(VERSION_TAG) || f.length != (v3 ? 8 : 7)) {
      return Optional.empty();
    }
    try {
      Instant time = Instant.parse(f[1]);
      PutStatus status = PutStatus.valueOf(f[2]);
      long size = Long.parseLong(f[4]);
      Integer schema = f[5].equals("-") ? null : Integer.valueOf(f[5]);
      String met = v3 ? f[6] : null;
      String writer = f[f.length - 1];
      if (!Sha256.isHex(f[3]) || size < 0 || (schema != null && schema < 0) || !validWriter(writer)
          || (v3 && (status != PutStatus.DIVERGENT || !Sha256.isHex(met)))) {
        return Optional.empty();
      }
      return Optional.of(new RecordLine(time, status, f[3], size, writer, schema, met));
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
