package dev.idem.store.s3.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * S3Proxy as a test server ({@link S3TestServer}): the in-memory {@code transient-nio2} backend (the only
 * one with versioning), SigV4 checked, in a child JVM on 127.0.0.1 started as {@code java -cp
 * s3proxy.jar:TEST-CLASSES ServerLauncher org.gaul.s3proxy.Main --properties FILE}, the properties file
 * written next to the log.
 *
 * <p>The server's heap is {@code -Xmx1g}, or the system property {@code s3proxy.xmx} (the benchmarks
 * store 256 MiB objects in memory). The jar comes from the system property {@code s3proxy.jar} (the
 * module's build copies it to {@code target/s3proxy/s3proxy.jar}), else from the local Maven repository.
 * S3Proxy needs Java 17+; it runs on the same JVM as the tests. Ready in about a second.
 */
public final class S3ProxyServer extends S3TestServer {
  public static final String VERSION = "4.1.0";

  private S3ProxyServer(Process process, int port, Path log) {
    super(S3Implementation.S3PROXY, process, port, log);
  }

  /** The S3Proxy server shared by every test in this JVM; started on first use, stopped when the JVM exits. */
  public static S3ProxyServer shared() throws IOException {
    return (S3ProxyServer) S3TestServer.shared(S3Implementation.S3PROXY);
  }

  /** A new server of its own, for tests that stop or kill it; close it when done. */
  public static S3ProxyServer start() throws IOException {
    Path jar = locateJar("s3proxy.jar", Paths.get("org", "gaul", "s3proxy", VERSION,
        "s3proxy-" + VERSION + "-jar-with-dependencies.jar"), "org.gaul:s3proxy:" + VERSION);
    return start(S3Implementation.S3PROXY, Duration.ofSeconds(60), (port, log) -> {
      Path props = log.resolveSibling("s3proxy-" + port + ".properties");
      Files.writeString(props, String.join("\n",
          "s3proxy.endpoint=http://127.0.0.1:" + port,
          "s3proxy.authorization=aws-v2-or-v4",
          "s3proxy.identity=" + ACCESS_KEY,
          "s3proxy.credential=" + SECRET_KEY,
          "jclouds.provider=transient-nio2",
          "jclouds.identity=" + ACCESS_KEY,
          "jclouds.credential=" + SECRET_KEY,
          ""), StandardCharsets.UTF_8);
      List<String> cmd = new ArrayList<>(javaCommand(System.getProperty("s3proxy.xmx", "1g")));
      cmd.addAll(List.of("-cp", jar + File.pathSeparator + launcherLocation(), ServerLauncher.class.getName(),
          "org.gaul.s3proxy.Main", "--properties", props.toString()));
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
      pb.environment().put("LOG_LEVEL", "warn");
      return pb.start();
    }, S3ProxyServer::new);
  }

  @Override
  public String toString() {
    return "S3Proxy " + VERSION + " at " + endpoint() + " (log " + log() + ")";
  }
}
