package dev.idem.cli;

import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsProvider;
import dev.idem.store.s3.internal.client.S3Client;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The S3 half of the distribution's training run: starts S3Proxy (a real S3 server, in-memory) in a
 * child JVM on a free 127.0.0.1 port, so the archive also holds the classes an S3 publish, get,
 * pointer show and scan load. Kept apart from {@link Training} so the S3 classes are named in one
 * place. Every wait has a deadline; the server is stopped when training ends, also on failure (and
 * by a shutdown hook if the JVM is ended early). When S3Proxy cannot run, training goes on without
 * the S3 path and says so: the build still succeeds.
 */
final class S3Training implements AutoCloseable {
  private static final String ACCESS_KEY = "AKIAIDEMTRAINING0001";
  private static final String SECRET_KEY = "idemTrainingSecretKey/NOTASECRET+0123456";
  private static final String REGION = "us-east-1";
  private static final Duration STARTUP_DEADLINE = Duration.ofSeconds(90);
  private static final Duration STOP_DEADLINE = Duration.ofSeconds(20);

  private final Process process;
  private final int port;
  private final Thread hook;

  private S3Training(Process process, int port) {
    this.process = process;
    this.port = port;
    this.hook = new Thread(this::stop, "s3proxy-training-stop");
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /**
   * Starts S3Proxy from {@code jar} with {@code java} (a full JDK: the distribution's runtime lacks
   * the modules S3Proxy needs) and waits until it accepts connections.
   *
   * @throws IOException when it cannot start, exits, or does not listen within {@link #STARTUP_DEADLINE}
   */
  static S3Training start(Path jar, Path java, Path workDir) throws IOException {
    if (!Files.isRegularFile(jar)) {
      throw new IOException("no S3Proxy jar at " + jar);
    }
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    Path props = workDir.resolve("s3proxy.properties");
    Files.writeString(props, String.join("\n",
        "s3proxy.endpoint=http://127.0.0.1:" + port,
        "s3proxy.authorization=aws-v2-or-v4",
        "s3proxy.identity=" + ACCESS_KEY,
        "s3proxy.credential=" + SECRET_KEY,
        "jclouds.provider=transient-nio2",
        "jclouds.identity=" + ACCESS_KEY,
        "jclouds.credential=" + SECRET_KEY,
        ""), StandardCharsets.UTF_8);
    Path log = workDir.resolve("s3proxy.log");
    ProcessBuilder pb = new ProcessBuilder(List.of(java.toString(), "-Xmx512m", "-XX:+UseSerialGC", "-jar",
        jar.toString(), "--properties", props.toString())).redirectErrorStream(true).redirectOutput(log.toFile());
    // The training JVM's own options (an AOT output among them) are not S3Proxy's.
    pb.environment().remove("JAVA_TOOL_OPTIONS");
    pb.environment().put("LOG_LEVEL", "warn");
    S3Training server = new S3Training(pb.start(), port);
    try {
      server.awaitListening(log);
      return server;
    } catch (IOException e) {
      server.close();
      throw e;
    }
  }

  /** The environment an idem process is given for this server. */
  Map<String, String> env() {
    return Map.of("AWS_ENDPOINT_URL", "http://127.0.0.1:" + port, "AWS_REGION", REGION,
        "AWS_ACCESS_KEY_ID", ACCESS_KEY, "AWS_SECRET_ACCESS_KEY", SECRET_KEY, "AWS_EC2_METADATA_DISABLED", "true");
  }

  /** Creates a versioned bucket, as the S3 stores idem is pointed at are. */
  void createBucket(String bucket) throws IOException {
    S3Client client = S3Client.builder(URI.create("http://127.0.0.1:" + port), REGION,
        CredentialsProvider.of(AwsCredentials.of(ACCESS_KEY, SECRET_KEY))).pathStyle(true).build();
    client.createBucket(bucket);
    client.putBucketVersioning(bucket, true);
  }

  private void awaitListening(Path log) throws IOException {
    Instant deadline = Instant.now().plus(STARTUP_DEADLINE);
    while (true) {
      if (!process.isAlive()) {
        throw new IOException("S3Proxy exited with " + process.exitValue() + " (see " + log + ")");
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
        return;
      } catch (IOException notYet) {
        if (Instant.now().isAfter(deadline)) {
          throw new IOException("S3Proxy did not listen on 127.0.0.1:" + port + " within " + STARTUP_DEADLINE
              + " (see " + log + ")");
        }
      }
      try {
        // Polling a child's port: nothing to wait on but time; the deadline above bounds it.
        process.waitFor(200, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while S3Proxy started", e);
      }
    }
  }

  private void stop() {
    process.destroy();
    try {
      if (!process.waitFor(STOP_DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(STOP_DEADLINE.toSeconds(), TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running or has run: it stops the server itself.
    }
  }
}
