package dev.idem.store.s3.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Adobe S3Mock as a test server ({@link S3TestServer}): a Spring Boot application that keeps buckets in
 * a root folder on disk and checks no signature, in a child JVM started as {@code java -cp
 * s3mock.jar:TEST-CLASSES ServerLauncher org.springframework.boot.loader.launch.JarLauncher ARGS}.
 *
 * <p>S3Mock 5.2.0 is Java 17 bytecode on Spring Boot 4, so it runs on the JVM that runs the tests (17 or
 * 25). Its settings are Spring properties given as arguments:
 *
 * <ul>
 *   <li>{@code server.port}, {@code server.address=127.0.0.1} and {@code server.ssl.enabled=false}: the
 *       main connector, plain HTTP on the loopback interface, which the tests use. S3Mock always adds a
 *       second plain connector on {@code http.port} bound to every interface (it has no address
 *       setting); {@code http.port=0} puts it on a port of the kernel's choosing that nothing uses;
 *   <li>{@code com.adobe.testing.s3mock.store.root}: the root folder, {@code s3mock-PORT/} in the work
 *       directory, removed when the server is closed;
 *   <li>{@code com.adobe.testing.s3mock.store.initialBuckets} (a comma list) is not used: tests create
 *       their own buckets.
 * </ul>
 *
 * The jar comes from the system property {@code s3mock.jar} (the module's build copies {@code
 * com.adobe.testing:s3mock:5.2.0:exec} to {@code target/s3mock/s3mock.jar}), else from the local Maven
 * repository. It takes several seconds to start (Spring Boot), more on a loaded machine.
 */
public final class S3MockServer extends S3TestServer {
  public static final String VERSION = "5.2.0";

  private final Path root;

  private S3MockServer(Process process, int port, Path log) {
    super(S3Implementation.S3MOCK, process, port, log);
    this.root = rootOf(log, port);
  }

  /** A new server of its own; close it when done. */
  public static S3MockServer start() throws IOException {
    Path jar = locateJar("s3mock.jar", Paths.get("com", "adobe", "testing", "s3mock", VERSION,
        "s3mock-" + VERSION + "-exec.jar"), "com.adobe.testing:s3mock:" + VERSION + ":jar:exec");
    return start(S3Implementation.S3MOCK, Duration.ofSeconds(180), (port, log) -> {
      Path root = Files.createDirectories(rootOf(log, port));
      List<String> cmd = new ArrayList<>(javaCommand("512m"));
      // C1 only: Spring Boot starts in about half the time, and a test server does little work.
      cmd.addAll(List.of("-XX:TieredStopAtLevel=1", "-cp", jar + File.pathSeparator + launcherLocation(),
          ServerLauncher.class.getName(), "org.springframework.boot.loader.launch.JarLauncher",
          "--server.port=" + port, "--server.address=127.0.0.1", "--server.ssl.enabled=false", "--http.port=0",
          "--com.adobe.testing.s3mock.store.root=" + root, "--spring.main.banner-mode=off",
          "--logging.level.root=WARN"));
      return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }, S3MockServer::new);
  }

  @Override
  protected void stop() {
    super.stop();
    if (Files.isDirectory(root)) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot remove S3Mock's root folder " + root, e);
      }
    }
  }

  private static Path rootOf(Path log, int port) {
    return log.resolveSibling("s3mock-" + port);
  }
}
