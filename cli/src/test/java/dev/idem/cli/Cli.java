package dev.idem.cli;

import dev.idem.store.s3.testing.S3TestServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/** Runs the idem command in-process with captured stdout, stderr and raw stdout bytes. */
final class Cli {
  private final Map<String, String> env = new HashMap<>();
  private Duration progressAfter = Duration.ofDays(1);
  private byte[] stdin = new byte[0];
  private InputStream stdinStream;
  private Clock clock = Clock.systemUTC();
  private CliContext.StoreOpener opener;
  private LongSupplier ticker = System::nanoTime;

  /** Exit code and everything printed; {@link #describe()} goes into every assertion message. */
  record Result(int code, String out, String err, byte[] raw) {
    String describe() {
      return "exit=" + code + "\n--- stdout ---\n" + out + "--- raw stdout ---\n"
          + new String(raw, StandardCharsets.UTF_8) + "--- stderr ---\n" + err;
    }

    String[] outLines() {
      return out.isEmpty() ? new String[0] : out.split("\n");
    }

    String[] errLines() {
      return err.isEmpty() ? new String[0] : err.split("\n");
    }
  }

  Cli env(String name, String value) {
    env.put(name, value);
    return this;
  }

  /**
   * A command line with the environment a job on {@code server} has: its endpoint and region, the
   * test credentials, no instance metadata, and {@code home} as HOME (no real AWS config is read).
   */
  static Cli onS3(S3TestServer server, Path home) {
    return new Cli()
        .env("AWS_ENDPOINT_URL", server.endpoint().toString())
        .env("AWS_REGION", S3TestServer.REGION)
        .env("AWS_ACCESS_KEY_ID", S3TestServer.ACCESS_KEY)
        .env("AWS_SECRET_ACCESS_KEY", S3TestServer.SECRET_KEY)
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("HOME", home.toString());
  }

  Cli stdin(String text) {
    stdin = text.getBytes(StandardCharsets.UTF_8);
    return this;
  }

  /** Stdin read from {@code in} (a producer that takes its time), for one run. */
  Cli stdin(InputStream in) {
    stdinStream = in;
    return this;
  }

  /** The monotonic ticker deadlines read (nanoseconds, as {@link System#nanoTime}). */
  Cli ticker(LongSupplier t) {
    ticker = t;
    return this;
  }

  Cli clock(Clock c) {
    clock = c;
    return this;
  }

  /**
   * Progress lines come only after {@code after}; by default a day, so a test's stderr does not depend
   * on how long the work took on a loaded machine.
   */
  Cli progressAfter(Duration after) {
    progressAfter = after;
    return this;
  }

  Cli opener(CliContext.StoreOpener o) {
    opener = o;
    return this;
  }

  Result run(String... args) {
    ByteArrayOutputStream raw = new ByteArrayOutputStream();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CliContext ctx = new CliContext(stdinStream != null ? stdinStream : new ByteArrayInputStream(stdin), raw, env, clock,
        opener)
        .withProgressAfter(progressAfter).withTicker(ticker);
    int code = Main.execute(ctx, new PrintWriter(out), new PrintWriter(err), args);
    return new Result(code, out.toString(), err.toString(), raw.toByteArray());
  }
}
