package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The self-contained archive as a user gets it: its checksum file, unpacked with {@code tar} into a
 * directory whose name has a space, started through {@code bin/idem} under {@code dash}. Runs in the
 * {@code dist} profile, which builds the archive in {@code package} and passes its directory as
 * {@code idem.dist.dir}; without it (a plain build makes no archive) the tests are skipped, saying so.
 */
class DistArchiveE2E {
  @TempDir
  static Path dir;

  static Path archive;
  static Path install;

  record Done(int code, String out, String err) {}

  @BeforeAll
  static void unpack() throws Exception {
    String target = System.getProperty("idem.dist.dir", "");
    Assumptions.assumeFalse(target.isEmpty(), "no idem.dist.dir: the archive is built by -Pdist");
    try (Stream<Path> files = Files.list(Path.of(target))) {
      archive = files.filter(p -> p.getFileName().toString().matches("idem-.*\\.tar\\.xz")).findFirst()
          .orElseThrow(() -> new AssertionError("no idem-*.tar.xz in " + target));
    }
    Path into = Files.createDirectories(dir.resolve("opt dir"));
    Done untar = exec(into, Map.of(), List.of("tar", "-xJf", archive.toString()));
    assertEquals(0, untar.code(), untar.err());
    String name = archive.getFileName().toString().replaceFirst("\\.tar\\.xz$", "");
    install = into.resolve(name);
  }

  /** The bound on what a user downloads: 25 MB (decimal), the checksum file aside. */
  @Test
  void archive_atMost25MB() throws Exception {
    long size = Files.size(archive);
    assertTrue(size <= 25_000_000L, archive.getFileName() + " is " + size + " bytes, over 25 MB");
  }

  @Test
  void checksumFile_besideArchive_matchesItInSha256sumFormat() throws Exception {
    Path sums = archive.resolveSibling(archive.getFileName() + ".sha256");
    String line = Files.readString(sums, StandardCharsets.US_ASCII);

    assertEquals(sha256(archive) + "  " + archive.getFileName() + "\n", line);
    Done check = exec(archive.getParent(), Map.of(), List.of("sha256sum", "-c", sums.getFileName().toString()));
    assertEquals(0, check.code(), check.out() + check.err());
  }

  @Test
  void launcher_underDashFromPathWithSpace_runsVersion() throws Exception {
    Done version = idem(Map.of(), "--version");

    assertEquals(0, version.code(), version.err());
    assertTrue(version.out().startsWith("idem "), version.out());
    assertEquals("", version.err());
  }

  @Test
  void publishThenGet_fileStoreUnderPathWithSpace_returnsTheBytes() throws Exception {
    Path payload = dir.resolve("payload file.txt");
    Files.writeString(payload, "dist bytes\n");
    String store = "file:" + dir.resolve("store dir");
    String[] spec = {"--pipeline", "dist", "--window", "60s", "--at", "1726000030", "--schema", "1", "--store", store};

    Done publish = idem(Map.of(), concat(new String[] {"publish", "--file", payload.toString()}, spec));
    Done get = idem(Map.of(), "get", "--pipeline", "dist", "--store", store);

    assertEquals(0, publish.code(), publish.err());
    assertTrue(publish.out().startsWith("CREATED "), publish.out());
    assertEquals(0, get.code(), get.err());
    assertEquals("dist bytes\n", get.out());
  }

  /**
   * The training workload that made the AOT cache ships nowhere: not in the jar, and (the cache taking a
   * prefix of the training class path) not beside it; the cache is still used (the test below).
   */
  @Test
  void unpackedArchive_withAotCache_holdsNoTrainingClass() throws Exception {
    Path app = install.resolve("app");
    assertTrue(Files.isRegularFile(app.resolve("idem.aot")), "a JDK 25 dist has an AOT cache");
    assertFalse(Files.exists(app.resolve("idem-training.jar")), "the training jar was left in app/");
    try (JarFile jar = new JarFile(app.resolve("idem-cli.jar").toFile())) {
      assertEquals(List.of(), jar.stream().map(JarEntry::getName).filter(n -> n.contains("Training")).toList());
    }
  }

  @Test
  void helpKeyAndFilePublish_fromTheAotCache_initializeNoS3HttpOrXmlClass() throws Exception {
    // The cache holds the S3 path's classes (training ran it) and, linked, loads them all at startup;
    // none of their initializers may run unless the S3 store is used.
    Path payload = Files.writeString(dir.resolve("lazy payload"), "lazy\n");
    List<String[]> commands = List.of(new String[] {"--help"},
        new String[] {"key", "--pipeline", "lazy", "--window", "1h", "--schema", "1", "--input", "snapshot=v1"},
        new String[] {"publish", "--file", payload.toString(), "--pipeline", "lazy", "--window", "60s", "--at",
            "1726000030", "--schema", "1", "--store", "file:" + dir.resolve("lazy store")});
    for (String[] command : commands) {
      Path log = Files.createTempFile(dir, "classes", ".log");

      Done done = idem(Map.of("IDEM_JAVA_OPTS", "-Xlog:class+load=info,class+init=info:file=" + log), command);

      assertEquals(0, done.code(), done.err());
      List<String> lines = Files.readAllLines(log);
      assertTrue(lines.stream().anyMatch(l -> l.contains("dev.idem.cli.Main source: shared objects file")),
          "the AOT cache was not used");
      assertTrue(lines.stream().anyMatch(l -> l.contains("java.net.http.HttpClient source: shared objects file")),
          "the cache holds the S3 path, linked: its classes load at startup");
      assertEquals(List.of(), lines.stream()
          .filter(l -> S3_HTTP_XML_INIT.matcher(l).find()).toList(), String.join(" ", command));
    }
    // The same log does show them initialized when the S3 store is used (nothing listens on port 1).
    Path log = Files.createTempFile(dir, "classes", ".log");
    Done s3 = idem(Map.of("IDEM_JAVA_OPTS", "-Xlog:class+init=info:file=" + log, "AWS_ENDPOINT_URL",
        "http://127.0.0.1:1", "AWS_REGION", "us-east-1", "AWS_ACCESS_KEY_ID", "AKIAIDEMLAZYEXAMPLE1",
        "AWS_SECRET_ACCESS_KEY", "lazy"), "publish", "--file", payload.toString(), "--pipeline", "lazy", "--window",
        "60s", "--at", "1726000030", "--schema", "1", "--store", "s3://lazy-bucket/exports");
    assertEquals(ExitCodes.STORE_UNAVAILABLE, s3.code(), s3.err());
    assertTrue(Files.readAllLines(log).stream().anyMatch(l -> S3_HTTP_XML_INIT.matcher(l).find()));
  }

  /** A class+init log line for an S3 store, HTTP client or XML class (the log spells names with slashes). */
  private static final Pattern S3_HTTP_XML_INIT =
      Pattern.compile("Initializing '(dev/idem/store/s3/|java/net/http/|javax/xml/)");

  @Test
  void badInput_throughLauncher_oneLineAndUsageCode() throws Exception {
    Done bad = idem(Map.of(), "key", "--pipeline", "two words", "--window", "1h", "--schema", "1");

    assertEquals(ExitCodes.USAGE, bad.code());
    assertEquals(1, bad.err().lines().count(), bad.err());
  }

  static Done idem(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("dash", install.resolve("bin/idem").toString()));
    command.addAll(List.of(args));
    return exec(dir, env, command);
  }

  static Done exec(Path cwd, Map<String, String> env, List<String> command) throws Exception {
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE);
    pb.environment().remove("IDEM_JAVA_OPTS");
    pb.environment().remove("IDEM_STORE");
    pb.environment().putAll(env);
    Process p = pb.start();
    p.getOutputStream().close();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail(command + " did not finish within 120 s");
    }
    return new Done(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  private static String sha256(Path file) throws IOException, java.security.NoSuchAlgorithmException {
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0; ) {
        md.update(buf, 0, n);
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }

  private static String[] concat(String[] a, String[] b) {
    String[] r = new String[a.length + b.length];
    System.arraycopy(a, 0, r, 0, a.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }
}
