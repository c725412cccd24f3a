package dev.idem.store.fs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A {@link StoreWorker} in its own JVM, started with this JVM's classpath. Its stdout lines are queued
 * by a reader thread so the test waits on them with a timeout (never by sleeping); its stderr goes to a
 * file that failures quote.
 */
final class Child implements AutoCloseable {
  private static final String EOF = "\u0000EOF";
  private static final long TIMEOUT_SECONDS = 60;

  private final Process process;
  private final Path stderr;
  private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final List<String> seen = new ArrayList<>();

  private Child(Process process, Path stderr) {
    this.process = process;
    this.stderr = stderr;
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = in.readLine()) != null; ) {
          lines.add(line);
        }
      } catch (IOException ignored) {
        // The process died: EOF below tells the waiter.
      }
      lines.add(EOF);
    }, "child-stdout-" + process.pid());
    reader.setDaemon(true);
    reader.start();
  }

  static Child start(Path logDir, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
        "-cp", System.getProperty("java.class.path"),
        StoreWorker.class.getName()));
    cmd.addAll(List.of(args));
    Files.createDirectories(logDir);
    Path err = Files.createTempFile(logDir, "child-", ".stderr");
    Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
    return new Child(p, err);
  }

  /** The next line matching {@code wanted}; fails if the child exits or is silent for a minute first. */
  String await(Predicate<String> wanted) throws IOException, InterruptedException {
    while (true) {
      String line = lines.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      if (line == null || line.equals(EOF)) {
        throw new AssertionError((line == null ? "child silent for " + TIMEOUT_SECONDS + " s" : "child exited")
            + "; output " + seen + "; stderr: " + Files.readString(stderr));
      }
      seen.add(line);
      if (wanted.test(line)) {
        return line;
      }
    }
  }

  String await(String prefix) throws IOException, InterruptedException {
    return await(l -> l.startsWith(prefix));
  }

  void send(String line) throws IOException {
    OutputStream in = process.getOutputStream();
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /** Closes the child's stdin, as the end of this process would: the pipe's other end sees end of file. */
  void closeStdin() throws IOException {
    process.getOutputStream().close();
  }

  /** Every line seen so far (by {@link #await}). */
  List<String> seen() {
    return seen;
  }

  /** Waits for a normal exit and returns its code. */
  int exit() throws InterruptedException, IOException {
    if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      throw new AssertionError("child did not exit; stderr: " + Files.readString(stderr));
    }
    return process.exitValue();
  }

  String stderr() throws IOException {
    return Files.readString(stderr);
  }

  /** SIGKILL on Linux ({@link Process#destroyForcibly()}), then wait until it is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      throw new AssertionError("child survived SIGKILL");
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      try {
        kill();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
