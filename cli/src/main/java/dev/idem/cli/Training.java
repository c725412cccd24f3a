package dev.idem.cli;

import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

/**
 * The training workload for the distribution's class-data archive (AOT cache or CDS): runs the
 * commands a scheduled job and a deploy gate use, in one JVM, with output discarded. Not part of the
 * command line; the {@code dist} build runs it as {@code java -cp idem-cli.jar dev.idem.cli.Training DIR}.
 */
final class Training {
  private Training() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args.length > 0 ? args[0] : "training-store");
    String store = "file:" + dir;
    Path payload = Files.createTempFile("idem-training-", ".txt");
    try {
      Files.writeString(payload, "training payload\n");
      String[] spec = {"--pipeline", "training", "--window", "60s", "--at", "1726000030", "--schema", "1", "--store", store};
      run("--help");
      run("--version");
      run("run", "--help");
      run("key", "--pipeline", "training", "--window", "1h", "--schema", "1", "--input", "snapshot=v1", "--json");
      run("key", "--bogus");
      run(concat(new String[] {"publish", "--file", payload.toString()}, spec));
      run(concat(new String[] {"publish", "--file", payload.toString(), "--json"}, spec));
      run("pointer", "show", "--pipeline", "training", "--store", store);
      run("get", "--pipeline", "training", "--store", store);
      run("scan", "--store", store);
      run("scan", "--pipeline", "training", "--since", "30d", "--store", store, "--json");
      run("gc", "--pipeline", "training", "--keep", "1", "--dry-run", "--store", store);
      run("demo");
    } finally {
      Files.deleteIfExists(payload);
    }
  }

  private static void run(String... args) {
    PrintWriter sink = new PrintWriter(PrintWriter.nullWriter());
    CliContext ctx = new CliContext(new ByteArrayInputStream("stdin".getBytes(StandardCharsets.UTF_8)),
        OutputStream.nullOutputStream(), Map.of(), Clock.systemUTC(), null);
    Main.execute(ctx, sink, sink, args);
  }

  private static String[] concat(String[] a, String[] b) {
    String[] r = new String[a.length + b.length];
    System.arraycopy(a, 0, r, 0, a.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }
}
