package dev.idem.store.s3.testing;

import dev.idem.store.s3.S3Location;
import dev.idem.store.s3.auth.AwsCredentials;
import dev.idem.store.s3.auth.CredentialsProvider;
import dev.idem.store.s3.client.S3Client;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real S3 server for integration tests: S3Proxy (in-memory {@code transient-nio2} backend, SigV4
 * checked, versioning supported) in a child JVM on 127.0.0.1.
 *
 * <h2>Lifecycle</h2>
 *
 * <ol>
 *   <li>Pick a free loopback port; write a properties file next to the log file.
 *   <li>Start {@code java -cp s3proxy.jar:TEST-CLASSES S3ProxyLauncher --properties FILE} with output to
 *       {@code s3proxy-PORT.log}; {@link S3ProxyLauncher} runs S3Proxy's main and halts that JVM when
 *       this one dies, even by a kill that runs no shutdown hook (standard input is a pipe from this
 *       JVM, left open, whose end of file says so).
 *   <li>Poll an unsigned {@code GET /} until it answers (403) or the process exits or 60 s pass; a port
 *       lost to another process in between is retried on a new port.
 *   <li>Stop: destroy, wait, destroy forcibly. A JVM shutdown hook does the same on an orderly exit;
 *       the launcher's watch covers the rest, so an aborted or killed test run leaks no server.
 * </ol>
 *
 * {@link #shared()} gives one server per test JVM (started once, stopped at exit), which keeps a
 * module's suite fast; tests isolate themselves with their own buckets ({@link #createBucket}). Tests
 * that kill the server start their own with {@link #start()}.
 *
 * <p>The server's heap is {@code -Xmx1g}, or the system property {@code s3proxy.xmx} (the benchmarks
 * store 256 MiB objects in memory). The jar comes from the system property {@code s3proxy.jar} (the module's build copies it to {@code
 * target/s3proxy/s3proxy.jar}), else from the local Maven repository. S3Proxy needs Java 17+; it runs
 * on the same JVM as the tests.
 */
public final class S3ProxyServer implements AutoCloseable {
  public static final String ACCESS_KEY = "AKIAIDEMTESTEXAMPLE1";
  public static final String SECRET_KEY = "idemTestSecretKey/EXAMPLEKEY+0123456789";
  public static final String REGION = "us-east-1";
  public static final String VERSION = "4.1.0";

  private static final Duration STARTUP_DEADLINE = Duration.ofSeconds(60);
  private static final AtomicInteger BUCKETS = new AtomicInteger();
  private static S3ProxyServer shared;

  private final Process process;
  private final int port;
  private final Path log;
  private final Thread hook;
  private final S3Client client;

  private S3ProxyServer(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
    this.hook = new Thread(this::stop, "s3proxy-" + port + "-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    this.client = clientBuilder().build();
  }

  /** The server shared by every test in this JVM; started on first use, stopped when the JVM exits. */
  public static synchronized S3ProxyServer shared() throws IOException {
    if (shared == null || !shared.isAlive()) {
      shared = start();
    }
    return shared;
  }

  /** A new server of its own, for tests that stop or kill it; close it when done. */
  public static S3ProxyServer start() throws IOException {
    Path jar = locateJar();
    Path dir = workDir();
    IOException last = null;
    for (int tries = 1; tries <= 3; tries++) {
      int port = freePort();
      Path props = dir.resolve("s3proxy-" + port + ".properties");
      Path log = dir.resolve("s3proxy-" + port + ".log");
      Files.writeString(props, String.join("\n",
          "s3proxy.endpoint=http://127.0.0.1:" + port,
          "s3proxy.authorization=aws-v2-or-v4",
          "s3proxy.identity=" + ACCESS_KEY,
          "s3proxy.credential=" + SECRET_KEY,
          "jclouds.provider=transient-nio2",
          "jclouds.identity=" + ACCESS_KEY,
          "jclouds.credential=" + SECRET_KEY,
          "") , StandardCharsets.UTF_8);
      Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
      String classPath = jar + File.pathSeparator + launcherLocation();
      ProcessBuilder pb = new ProcessBuilder(List.of(java.toString(), "-Xmx" + System.getProperty("s3proxy.xmx", "1g"),
          "-XX:+UseSerialGC", "-cp", classPath, S3ProxyLauncher.class.getName(),
          "--properties", props.toString()))
          .redirectErrorStream(true)
          .redirectOutput(log.toFile());
      pb.environment().put("LOG_LEVEL", "warn");
      Process p = pb.start();
      try {
        awaitReady(p, port, log);
        return new S3ProxyServer(p, port, log);
      } catch (IOException e) {
        p.destroyForcibly();
        last = e;
      }
    }
    throw last;
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  public int port() {
    return port;
  }

  /** Where the server's output goes. */
  public Path log() {
    return log;
  }

  /** The server JVM's process id. */
  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public CredentialsProvider credentials() {
    return CredentialsProvider.of(AwsCredentials.of(ACCESS_KEY, SECRET_KEY));
  }

  /** A client builder for this server: path-style, {@value #REGION}, the test credentials. */
  public S3Client.Builder clientBuilder() {
    return S3Client.builder(endpoint(), REGION, credentials()).pathStyle(true);
  }

  /** A shared client for setup and inspection. */
  public S3Client client() {
    return client;
  }

  /** {@code s3://bucket/prefix} on this server. */
  public S3Location location(String bucket, String prefix) {
    return new S3Location(bucket, prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/", endpoint(),
        REGION, true);
  }

  /** Creates a bucket with a fresh name; versioning enabled with PutBucketVersioning when asked. */
  public String createBucket(boolean versioned) throws IOException {
    String name = String.format(Locale.ROOT, "idem-test-%d-%08x", BUCKETS.incrementAndGet(),
        ThreadLocalRandom.current().nextInt());
    client.createBucket(name);
    if (versioned) {
      client.putBucketVersioning(name, true);
    }
    return name;
  }

  /** Kills the server at once (SIGKILL), as a crash would. */
  public void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // the JVM is already shutting down; the hook is running or has run
    }
  }

  private void stop() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "S3Proxy " + VERSION + " at " + endpoint() + " (log " + log + ")";
  }

  private static void awaitReady(Process p, int port, Path log) throws IOException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest probe = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
        .timeout(Duration.ofSeconds(5)).GET().build();
    Instant deadline = Instant.now().plus(STARTUP_DEADLINE);
    while (Instant.now().isBefore(deadline)) {
      if (!p.isAlive()) {
        throw new IOException("S3Proxy exited with " + p.exitValue() + " before it answered; see " + log);
      }
      try {
        http.send(probe, HttpResponse.BodyHandlers.discarding());
        return;
      } catch (ConnectException e) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for S3Proxy", e);
      } catch (IOException e) {
        // connection accepted but dropped while Jetty starts
      }
      try {
        p.waitFor(50, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for S3Proxy", e);
      }
    }
    throw new IOException("S3Proxy did not answer on port " + port + " within " + STARTUP_DEADLINE + "; see " + log);
  }

  private static Path locateJar() throws IOException {
    String prop = System.getProperty("s3proxy.jar");
    if (prop != null && Files.isRegularFile(Paths.get(prop))) {
      return Paths.get(prop);
    }
    Path m2 = Paths.get(System.getProperty("user.home"), ".m2", "repository", "org", "gaul", "s3proxy", VERSION,
        "s3proxy-" + VERSION + "-jar-with-dependencies.jar");
    if (Files.isRegularFile(m2)) {
      return m2;
    }
    throw new IOException("S3Proxy jar not found (system property s3proxy.jar=" + prop + ", nor " + m2
        + "): run ./mvnw -pl store-s3-http generate-test-resources, which downloads org.gaul:s3proxy:" + VERSION);
  }

  /** The class path entry (directory or test jar) that holds {@link S3ProxyLauncher}. */
  private static String launcherLocation() throws IOException {
    try {
      return Paths.get(S3ProxyLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (URISyntaxException | RuntimeException e) {
      throw new IOException("cannot locate the class path entry of " + S3ProxyLauncher.class.getName(), e);
    }
  }

  private static Path workDir() throws IOException {
    String prop = System.getProperty("s3proxy.workdir");
    Path dir = prop != null ? Paths.get(prop) : Paths.get(System.getProperty("java.io.tmpdir"), "idem-s3proxy");
    return Files.createDirectories(dir);
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
    }
  }
}
