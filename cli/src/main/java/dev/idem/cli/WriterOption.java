package dev.idem.cli;

import dev.idem.core.Names;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --writer ID}: who publishes, as recorded in ledgers, evidence and pointers. The default
 * ({@code $IDEM_WRITER}, else {@code host:pid}) tells replicas apart without configuration.
 */
final class WriterOption {
  @Option(names = "--writer", paramLabel = "ID",
      description = "Writer id recorded with what this replica publishes. Default: $IDEM_WRITER, else HOST:PID")
  String writer;

  String resolve(CliContext ctx) {
    String id = writer != null ? writer : ctx.env("IDEM_WRITER");
    if (id == null) {
      id = sanitize(hostname(ctx)) + ":" + ProcessHandle.current().pid();
    }
    try {
      return Names.requireWriterId(id);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
  }

  /** No DNS lookup (InetAddress.getLocalHost can stall for seconds): the kernel's name or $HOSTNAME. */
  private static String hostname(CliContext ctx) {
    String h = ctx.env("HOSTNAME");
    if (h == null) {
      try {
        h = Files.readString(Path.of("/proc/sys/kernel/hostname"), StandardCharsets.US_ASCII).strip();
      } catch (IOException | RuntimeException e) {
        h = "localhost";
      }
    }
    return h;
  }

  static String sanitize(String s) {
    String cleaned = s.replaceAll("[^A-Za-z0-9._@+-]", "-");
    if (cleaned.isEmpty() || !Character.isLetterOrDigit(cleaned.charAt(0))) {
      cleaned = "h" + cleaned;
    }
    return cleaned.length() > 100 ? cleaned.substring(0, 100) : cleaned;
  }
}
