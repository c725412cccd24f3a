package dev.idem.cli;

import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

/**
 * The training workload for the distribution's class-data archive (AOT cache or CDS): runs the
 * commands a scheduled job and a deploy gate use, in one JVM, with output discarded: {@code run},
 * {@code publish}, {@code get}, {@code pointer show} and {@code scan} on a {@code file:} store, the
 * same on an S3 store when S3Proxy can be started ({@link S3Training}), {@code key} and help. Not part
 * of the command line nor of its jar: the {@code dist} build packs these classes into a jar of their own
 * and runs {@code java -cp idem-cli.jar:idem-training.jar dev.idem.cli.Training DIR [S3PROXY_JAR
 * JDK_JAVA]}, which prints whether the S3 path was trained.
 */
final class Training {
  private Training() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args.length > 0 ? args[0] : "training-store");
    String store = "file:" + dir;
    Path payload = Files.createTempFile("idem-training-", ".txt");
    try {
      Files.writeString(payload, "training payload\n");
      // The real environment, as bin/idem reads it (the runs below take a Map.of): copying it loads
      // ProcessEnvironment's entry classes, which idem key otherwise read from the runtime image.
      CliContext.system();
      run("--help");
      run("--version");
      run("run", "--help");
      run("key", "--pipeline", "training", "--window", "1h", "--schema", "1", "--input", "snapshot=v1", "--json");
      run("key", "--bogus");
      storeCommands(Map.of(), store, payload);
      run("gc", "--pipeline", "training", "--keep", "1", "--dry-run", "--store", store);
      if (args.length >= 3) {
        System.out.println(trainS3(Path.of(args[1]), Path.of(args[2]), dir, payload));
      }
    } finally {
      Files.deleteIfExists(payload);
    }
  }

  /** What a job and a gate run against one store; the exit code of the last {@code get}. */
  private static int storeCommands(Map<String, String> env, String store, Path payload) {
    String[] spec = {"--pipeline", "training", "--window", "60s", "--at", "1726000030", "--schema", "1", "--store", store};
    String[] next = {"--pipeline", "training", "--window", "60s", "--at", "1726000090", "--schema", "1", "--store", store};
    int published = run(env, concat(new String[] {"publish", "--file", payload.toString()}, spec));
    run(env, concat(new String[] {"publish", "--file", payload.toString(), "--json"}, spec));
    run(env, concat(new String[] {"run", "--stdout"}, concat(next, new String[] {"--", "/bin/sh", "-c", "echo rows"})));
    run(env, "pointer", "show", "--pipeline", "training", "--store", store);
    run(env, "scan", "--store", store);
    run(env, "scan", "--pipeline", "training", "--since", "30d", "--store", store, "--json");
    int got = run(env, "get", "--pipeline", "training", "--store", store);
    return published != 0 ? published : got;
  }

  /** The S3 commands against S3Proxy, or why they were not run; a line for the build's output. */
  private static String trainS3(Path jar, Path java, Path dir, Path payload) {
    try (S3Training server = S3Training.start(jar, java, Files.createDirectories(dir.resolveSibling("s3proxy")))) {
      server.createBucket("idem-training");
      int code = storeCommands(server.env(), "s3://idem-training/exports", payload);
      return code == 0 ? "dist: S3 path trained (publish, run, pointer show, scan, get against S3Proxy)"
          : "dist: S3 path NOT trained: an S3 command against S3Proxy exited " + code;
    } catch (IOException e) {
      return "dist: S3 path NOT trained: " + ExitCodes.oneLine(e);
    }
  }

  private static int run(String... args) {
    return run(Map.of(), args);
  }

  private static int run(Map<String, String> env, String... args) {
    PrintWriter sink = new PrintWriter(PrintWriter.nullWriter());
    CliContext ctx = new CliContext(new ByteArrayInputStream("stdin".getBytes(StandardCharsets.UTF_8)),
        OutputStream.nullOutputStream(), env, Clock.systemUTC(), null);
    return Main.execute(ctx, sink, sink, args);
  }

  private static String[] concat(String[] a, String[] b) {
    String[] r = new String[a.length + b.length];
    System.arraycopy(a, 0, r, 0, a.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }
}
