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
 * The text form of one publish attempt, {@code v1 <ISO-8601 time> <CREATED|IDENTICAL|DIVERGENT> <sha256>
 * <size> <writer>\n}: the content of each {@link Records record}, and the line format of the per-key
 * {@code .log} ledgers the previous version appended to, which are still read so a store written by it
 * keeps its history (never written any more: {@code O_APPEND} is not atomic across NFS clients).
 *
 * <p>The reader drops any line without its final newline and any line that does not parse, and, where
 * a torn line was followed by a later append on the same text line, reads the later record from its
 * last {@code "v1 "} (no field can contain that sequence: times, statuses, hashes and sizes hold no
 * {@code 'v'} or space, and writer ids hold no space).
 */
final class Ledger {
  static final String VERSION_TAG = "v1";

  private Ledger() {}

  /** One publish attempt; {@code size} is -1 and {@code writer} null when a torn record lost them. */
  record Line(Instant time, PutStatus status, String sha256, long size, String writer) {
    String format() {
      return VERSION_TAG + " " + time + " " + status + " " + sha256 + " " + size + " " + writer + "\n";
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
    int at = raw.lastIndexOf(VERSION_TAG + " ");
    if (at < 0) {
      return Optional.empty();
    }
    String[] f = raw.substring(at).split(" ", -1);
    if (f.length != 6) {
      return Optional.empty();
    }
    try {
      Instant time = Instant.parse(f[1]);
      PutStatus status = PutStatus.valueOf(f[2]);
      long size = Long.parseLong(f[4]);
      if (!Sha256.isHex(f[3]) || size < 0 || !validWriter(f[5])) {
        return Optional.empty();
      }
      return Optional.of(new Line(time, status, f[3], size, f[5]));
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
