package dev.idem.store.s3.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The server child of a test JVM ends when that JVM is killed outright (SIGKILL: no shutdown hook
 * runs), as PIT does to a timed-out minion: the Java servers through {@link ServerLauncher}, moto
 * through its own watch of standard input ({@link MotoServer}). Without them, each such kill left a
 * running server behind. One server per watch: S3Mock is started through the same {@link
 * ServerLauncher} as S3Proxy, and takes far longer to start.
 */
class S3TestServerOrphanTest {
  /** How long the orphaned server may take to notice and halt. */
  private static final long EXIT_BOUND_SECONDS = 30;

  /** The chosen implementations, one per way of watching the parent. */
  static Stream<S3Implementation> watches() {
    return S3Implementation.selected().stream().filter(i -> i != S3Implementation.S3MOCK);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("watches")
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void serverEndsWhenTheJvmThatStartedItIsKilled(S3Implementation implementation) throws Exception {
    Process parent = startParent(implementation);
    ProcessHandle server = null;
    try {
      String line;
      try (BufferedReader out = new BufferedReader(new InputStreamReader(parent.getInputStream(), StandardCharsets.UTF_8))) {
        line = out.readLine();
        assertNotNull(line, "the parent JVM exited before it reported a server; see " + parentLog());
        Optional<ProcessHandle> found = ProcessHandle.of(Long.parseLong(line.trim()));
        assertTrue(found.isPresent() && found.get().isAlive(), "server " + line + " not running");
        server = found.get();

        parent.destroyForcibly();
        assertTrue(parent.waitFor(30, TimeUnit.SECONDS), "the parent JVM survived SIGKILL");
        assertEquals(137, parent.exitValue(), "the parent was killed, not ended in order");
      }
      try {
        server.onExit().get(EXIT_BOUND_SECONDS, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        fail(implementation + " (pid " + server.pid() + ") still running " + EXIT_BOUND_SECONDS
            + " s after the JVM that started it was killed");
      }
    } finally {
      parent.destroyForcibly();
      if (server != null) {
        server.destroyForcibly();
      }
    }
  }

  private static Process startParent(S3Implementation implementation) throws IOException {
    Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
    List<String> cmd = new ArrayList<>(List.of(java.toString(), "-XX:+UseSerialGC", "-Xmx128m"));
    for (String prop : List.of("s3proxy.jar", "s3mock.jar", "moto.python", "s3servers.workdir")) {
      String value = System.getProperty(prop);
      if (value != null) {
        cmd.add("-D" + prop + "=" + value);
      }
    }
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Parent.class.getName(), implementation.name()));
    return new ProcessBuilder(cmd).redirectError(parentLog().toFile()).start();
  }

  private static Path parentLog() throws IOException {
    return S3TestServer.workDir().resolve("orphan-test-parent.log");
  }

  /** The JVM that is killed: starts a server, prints its pid, then waits for its own stdin to end. */
  public static final class Parent {
    private Parent() {}

    public static void main(String[] args) throws IOException {
      S3TestServer server = S3Implementation.valueOf(args[0]).start();
      System.out.println(server.pid());
      System.out.flush();
      while (System.in.read() >= 0) {
        // wait; the test kills this JVM (or, should the test die, its pipe's end of file ends it)
      }
      server.close();
    }
  }
}
