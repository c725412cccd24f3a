package dev.idem.store.s3.testing;

import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsProvider;
import dev.idem.store.s3.S3Location;
import dev.idem.store.s3.internal.client.S3Client;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real S3 server for integration tests, in a child process on 127.0.0.1 that the tests start and stop
 * themselves: S3Proxy ({@link S3ProxyServer}), moto ({@link MotoServer}) or Adobe S3Mock ({@link
 * S3MockServer}). Running the same suites on independent implementations is how idem learns where each
 * deviates from S3 (see {@link S3Implementation} for which suites run where).
 *
 * <h2>Lifecycle</h2>
 *
 * <ol>
 *   <li>Pick a free loopback port; start the server's process with its output to {@code NAME-PORT.log}
 *       in the work directory. Every child watches its standard input, a pipe from this JVM that is
 *       never written to, and exits at its end of file, which the kernel gives when this JVM dies, even
 *       by a kill that runs no shutdown hook ({@link ServerLauncher}; {@link MotoServer} for Python).
 *   <li>Poll an unsigned {@code GET /} until it answers (any status) or the process exits or the
 *       startup deadline passes; a port lost to another process in between is retried on a new port.
 *   <li>Stop by process id: destroy, wait, destroy forcibly. A JVM shutdown hook does the same on an
 *       orderly exit; the stdin watch covers the rest, so an aborted or killed test run leaks no server.
 * </ol>
 *
 * {@link #shared(S3Implementation)} gives one server of each implementation per test JVM (started on
 * first use, stopped at exit), which keeps a module's suite fast; tests isolate themselves with their
 * own buckets ({@link #createBucket}). Tests that kill a server start their own.
 *
 * <p>Every server takes the same test credentials in region {@value #REGION}, path-style.
 */
public abstract class S3TestServer implements AutoCloseable {
  public static final String ACCESS_KEY = "AKIAIDEMTESTEXAMPLE1";
  public static final String SECRET_KEY = "idemTestSecretKey/EXAMPLEKEY+0123456789";
  public static final String REGION = "us-east-1";

  private static final AtomicInteger BUCKETS = new AtomicInteger();
  private static final Map<S3Implementation, S3TestServer> SHARED = new EnumMap<>(S3Implementation.class);

  private final S3Implementation implementation;
  private final Process process;
  private final int port;
  private final Path log;
  private final S3Client client;
  private Thread hook;

  /** How a server's process is started on a port, its output going to {@code log}. */
  @FunctionalInterface
  protected interface Starter {
    Process start(int port, Path log) throws IOException;
  }

  /** Wraps a started process that answered on {@code port}. */
  @FunctionalInterface
  protected interface Wrapper<T extends S3TestServer> {
    T wrap(Process process, int port, Path log);
  }

  protected S3TestServer(S3Implementation implementation, Process process, int port, Path log) {
    this.implementation = implementation;
    this.process = process;
    this.port = port;
    this.log = log;
    this.client = S3Client.builder(URI.create("http://127.0.0.1:" + port), REGION,
        CredentialsProvider.of(AwsCredentials.of(ACCESS_KEY, SECRET_KEY))).pathStyle(true).build();
  }

  /** The server of {@code implementation} shared by every test in this JVM; started on first use. */
  public static S3TestServer shared(S3Implementation implementation) throws IOException {
    synchronized (SHARED) {
      S3TestServer s = SHARED.get(implementation);
      if (s == null || !s.isAlive()) {
        s = implementation.start();
        SHARED.put(implementation, s);
      }
      return s;
    }
  }

  /**
   * Starts a server: picks a port, starts the process, waits until it answers; up to three ports, in
   * case another process takes the chosen one before the server binds it.
   */
  protected static <T extends S3TestServer> T start(S3Implementation implementation, Duration startup,
      Starter starter, Wrapper<T> wrapper) throws IOException {
    Path dir = workDir();
    String name = implementation.name().toLowerCase(Locale.ROOT);
    IOException last = null;
    for (int tries = 1; tries <= 3; tries++) {
      int port = freePort();
      Path log = dir.resolve(name + "-" + port + ".log");
      Process p = starter.start(port, log);
      try {
        awaitReady(implementation, p, port, log, startup);
        T server = wrapper.wrap(p, port, log);
        ((S3TestServer) server).stopAtExit();
        return server;
      } catch (IOException e) {
        p.destroyForcibly();
        last = e;
      }
    }
    throw last;
  }

  /** Stops the server when this JVM ends in order (set up once the subclass is constructed). */
  private void stopAtExit() {
    hook = new Thread(this::stop, implementation.name().toLowerCase(Locale.ROOT) + "-" + port + "-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
  }

  public final S3Implementation implementation() {
    return implementation;
  }

  public final URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  public final int port() {
    return port;
  }

  /** Where the server's output goes. */
  public final Path log() {
    return log;
  }

  /** The server's process id. */
  public final long pid() {
    return process.pid();
  }

  public final boolean isAlive() {
    return process.isAlive();
  }

  public final CredentialsProvider credentials() {
    return CredentialsProvider.of(AwsCredentials.of(ACCESS_KEY, SECRET_KEY));
  }

  /** A client builder for this server: path-style, {@value #REGION}, the test credentials. */
  public final S3Client.Builder clientBuilder() {
    return S3Client.builder(endpoint(), REGION, credentials()).pathStyle(true);
  }

  /** A shared client for setup and inspection. */
  public final S3Client client() {
    return client;
  }

  /** {@code s3://bucket/prefix} on this server. */
  public final S3Location location(String bucket, String prefix) {
    return new S3Location(bucket, prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/", endpoint(),
        REGION, true);
  }

  /** Creates a bucket with a fresh name; versioning enabled with PutBucketVersioning when asked. */
  public final String createBucket(boolean versioned) throws IOException {
    String name = String.format(Locale.ROOT, "idem-test-%d-%08x", BUCKETS.incrementAndGet(),
        ThreadLocalRandom.current().nextInt());
    client.createBucket(name);
    if (versioned) {
      client.putBucketVersioning(name, true);
    }
    return name;
  }

  /** Kills the server at once (SIGKILL), as a crash would. */
  public final void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public final void close() {
    stop();
    try {
      if (hook != null) {
        Runtime.getRuntime().removeShutdownHook(hook);
      }
    } catch (IllegalStateException e) {
      // the JVM is already shutting down; the hook is running or has run
    }
  }

  /** Stops the process by its id; subclasses add the removal of what it left on disk. */
  protected void stop() {
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
    return implementation + " at " + endpoint() + " (pid " + pid() + ", log " + log + ")";
  }

  private static void awaitReady(S3Implementation implementation, Process p, int port, Path log, Duration startup)
      throws IOException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest probe = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
        .timeout(Duration.ofSeconds(5)).GET().build();
    Instant deadline = Instant.now().plus(startup);
    while (Instant.now().isBefore(deadline)) {
      if (!p.isAlive()) {
        throw new IOException(implementation + " exited with " + p.exitValue() + " before it answered; see " + log);
      }
      try {
        http.send(probe, HttpResponse.BodyHandlers.discarding());
        return;
      } catch (ConnectException e) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for " + implementation, e);
      } catch (IOException e) {
        // connection accepted but dropped while the server starts
      }
      try {
        p.waitFor(50, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for " + implementation, e);
      }
    }
    throw new IOException(implementation + " did not answer on port " + port + " within " + startup + "; see " + log);
  }

  /** The java of the JVM running the tests, and its arguments for a small server JVM. */
  protected static List<String> javaCommand(String heap) {
    return List.of(Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + heap,
        "-XX:+UseSerialGC");
  }

  /** The class path entry (directory or test jar) that holds {@link ServerLauncher}. */
  protected static String launcherLocation() throws IOException {
    try {
      return Paths.get(ServerLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (URISyntaxException | RuntimeException e) {
      throw new IOException("cannot locate the class path entry of " + ServerLauncher.class.getName(), e);
    }
  }

  /**
   * A jar the module's build copies to {@code target/} (system property {@code property}), else the
   * local Maven repository's copy at {@code m2Path}.
   */
  protected static Path locateJar(String property, Path m2Path, String artifact) throws IOException {
    String prop = System.getProperty(property);
    if (prop != null && Files.isRegularFile(Paths.get(prop))) {
      return Paths.get(prop);
    }
    Path m2 = Paths.get(System.getProperty("user.home"), ".m2", "repository").resolve(m2Path);
    if (Files.isRegularFile(m2)) {
      return m2;
    }
    throw new IOException("test server jar not found (system property " + property + "=" + prop + ", nor " + m2
        + "): run ./mvnw -pl store-s3-http generate-test-resources, which downloads " + artifact);
  }

  /** Where servers write their logs and files: {@code s3servers.workdir}, else a temporary directory. */
  protected static Path workDir() throws IOException {
    String prop = System.getProperty("s3servers.workdir");
    Path dir = prop != null ? Paths.get(prop) : Paths.get(System.getProperty("java.io.tmpdir"), "idem-s3servers");
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
