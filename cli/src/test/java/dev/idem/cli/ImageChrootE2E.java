package dev.idem.cli;

import static dev.idem.cli.OciImage.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idem.store.s3.testing.S3ProxyServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The image run from an empty root: its layers are unpacked in the manifest's order into a fresh
 * directory, and idem is started with the config's entrypoint and user through {@code chroot}, with an
 * empty environment ({@code env -i}, plus the AWS variables for the S3 test), so nothing of the host
 * (no JDK, no libraries, no shell, no variables) can stand in for something the image lacks.
 *
 * <p>The chroot gets what every OCI runtime gives a container and nothing more: a private mount and
 * PID namespace ({@code unshare}) with its own /proc, and the device nodes null, zero, full, random
 * and urandom bind-mounted into /dev (the JVM resolves its own libraries through /proc/self/exe and
 * seeds SecureRandom from /dev/urandom). The network namespace is the host's, so the image reaches
 * the S3Proxy this test starts on 127.0.0.1, as a container with host networking would.
 *
 * <p>Needs root (chroot, mounts) and util-linux: where either is missing the tests are skipped and say
 * so, never passed. Runs after {@code package} on the image the {@code image} profile built.
 */
class ImageChrootE2E {
  private static final long LIMIT_SECONDS = 120;
  private static final List<String> DEVICES = List.of("null", "zero", "full", "random", "urandom");

  static Path root;
  static List<String> entrypoint;
  static String user;
  static String version;
  static Path scratch;
  static String chroot;
  static String unshare;
  static String env;

  record Run(int code, String out, String err) {
    String describe() {
      return "exit=" + code + "\n--- stdout ---\n" + out + "--- stderr ---\n" + err;
    }
  }

  /** Why the image cannot be run here, or null. */
  static String skip;

  @BeforeEach
  void runnable() {
    assumeTrue(skip == null, skip);
  }

  @BeforeAll
  static void unpack() throws Exception {
    Path tar = ImageE2E.imageTar();
    Optional<String> c = which("chroot");
    Optional<String> u = which("unshare");
    Optional<String> e = which("env");
    Optional<String> t = which("tar");
    if (tar == null) {
      skip = ImageE2E.NO_IMAGE;
    } else if (!System.getProperty("os.name").equals("Linux")) {
      skip = "not Linux: the image cannot run here";
    } else if ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") != 0) {
      skip = "not root (uid " + Files.getAttribute(Path.of("/proc/self"), "unix:uid")
          + "): chroot and the mounts need root, so the image was not run";
    } else if (c.isEmpty() || u.isEmpty() || e.isEmpty() || t.isEmpty()) {
      skip = "chroot, unshare (util-linux), env and tar are needed to run the image";
    }
    if (skip != null) {
      ImageE2E.announceSkip(skip, ImageChrootE2E.class);
      return;
    }
    chroot = c.get();
    unshare = u.get();
    env = e.get();

    OciImage image = OciImage.read(tar);
    Map<String, Object> config = image.config();
    entrypoint = at(config, "config", "Entrypoint");
    user = at(config, "config", "User");
    version = ImageE2E.version(tar);

    scratch = Files.createTempDirectory("idem-image-");
    root = Files.createDirectory(scratch.resolve("root"));
    List<Map<String, Object>> layers = at(image.manifest(), "layers");
    for (Map<String, Object> layer : layers) {
      Path blob = scratch.resolve("layer.tar.gz");
      Files.write(blob, image.blob((String) layer.get("digest")));
      Run r = exec(List.of(t.get(), "--extract", "--gzip", "--preserve-permissions", "--same-owner", "--numeric-owner",
          "--file", blob.toString(), "--directory", root.toString()), Map.of());
      assertEquals(0, r.code(), "unpacking " + layer.get("digest") + "\n" + r.describe());
      Files.delete(blob);
    }
    // What the container runtime provides: mount points for /proc and the device nodes.
    Files.createDirectory(root.resolve("proc"));
    Files.createDirectory(root.resolve("dev"));
    for (String d : DEVICES) {
      Files.createFile(root.resolve("dev").resolve(d));
    }
  }

  @AfterAll
  static void removeRoot() throws IOException {
    if (root == null) {
      return;
    }
    // The mounts lived in each run's own namespace and went with it; a mount still here would make
    // the removal below reach into the host's /proc or /dev, so it stops instead.
    try (Stream<Path> proc = Files.list(root.resolve("proc"))) {
      assertEquals(0, proc.count(), "/proc is still mounted in " + root);
    }
    for (String d : DEVICES) {
      assertTrue(Files.isRegularFile(root.resolve("dev").resolve(d), java.nio.file.LinkOption.NOFOLLOW_LINKS),
          "/dev/" + d + " is still mounted in " + root);
    }
    try (Stream<Path> all = Files.walk(scratch)) {
      for (Path p : all.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
        Files.delete(p);
      }
    }
  }

  static Optional<String> which(String tool) {
    for (String dir : List.of("/usr/sbin", "/usr/bin", "/sbin", "/bin")) {
      Path p = Path.of(dir, tool);
      if (Files.isExecutable(p)) {
        return Optional.of(p.toString());
      }
    }
    return Optional.empty();
  }

  static Run exec(List<String> cmd, Map<String, String> extraEnv) throws Exception {
    Path out = Files.createTempFile(scratch, "out", "");
    Path err = Files.createTempFile(scratch, "err", "");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    pb.environment().putAll(extraEnv);
    Process p = pb.start();
    if (!p.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
      fail("did not finish within " + LIMIT_SECONDS + " s: " + cmd);
    }
    Run r = new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    Files.delete(out);
    Files.delete(err);
    return r;
  }

  /** idem in the image: ENTRYPOINT + args, as the image's user, in the chroot, with only {@code vars}. */
  static Run idem(Map<String, String> vars, String... args) throws Exception {
    List<String> argv = new ArrayList<>(entrypoint);
    argv.addAll(List.of(args));
    return inRoot(vars, List.of(), argv);
  }

  /**
   * {@code argv} in the chroot as the image's user, with only {@code vars} in its environment (a bare
   * name is looked up on their PATH, inside the root); the directories {@code readOnly} (paths in the
   * root) are bind-mounted read-only over themselves for this run, as a volume mounted read-only is.
   */
  static Run inRoot(Map<String, String> vars, List<String> readOnly, List<String> argv) throws Exception {
    StringBuilder mounts = new StringBuilder();
    for (String d : readOnly) {
      String dir = "\"$root" + d + "\"";
      mounts.append("mount --bind ").append(dir).append(' ').append(dir).append(" && mount -o remount,bind,ro ")
          .append(dir).append(" || exit 125; ");
    }
    List<String> cmd = new ArrayList<>(List.of(unshare, "--mount", "--pid", "--fork", "--kill-child",
        "--mount-proc=" + root.resolve("proc"), "--", "/bin/sh", "-c",
        "root=$1; shift; for d in " + String.join(" ", DEVICES) + "; do "
            + "mount --bind \"/dev/$d\" \"$root/dev/$d\" || exit 125; done; " + mounts + "exec \"$@\"",
        "sh", root.toString(), env, "-i"));
    vars.forEach((k, v) -> cmd.add(k + "=" + v));
    cmd.addAll(List.of(chroot, "--userspec=" + user, root.toString()));
    cmd.addAll(argv);
    return exec(cmd, Map.of());
  }

  static Run idem(String... args) throws Exception {
    return idem(Map.of(), args);
  }

  static String[] spec(String store, String file) {
    return new String[] {"publish", "--store", store, "--pipeline", "border-state", "--window", "60s",
        "--at", "2024-09-10T20:27:30Z", "--schema", "3", "--writer", "image-test", "--file", file};
  }

  @Test
  void version_printsTheImagesVersionOnItsOwnRuntime() throws Exception {
    Run r = idem("--version");
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.out().startsWith("idem " + version + " "), r.describe());
    assertTrue(r.out().contains("Java 25"), r.describe());
  }

  @Test
  void aotCache_mapsInTheImage() throws Exception {
    // AOTMode=on makes a cache that cannot be used (wrong runtime, class path or layout) fatal.
    Run r = idem(Map.of("JDK_JAVA_OPTIONS", "-XX:AOTMode=on"), "--version");
    assertEquals(0, r.code(), r.describe());
  }

  @Test
  void fileStore_publishGetAndScanUnderTmp() throws Exception {
    Files.writeString(root.resolve("tmp/rows.txt"), "rows from the image\n");
    Run published = idem(spec("file:/tmp/store", "/tmp/rows.txt"));
    assertEquals(0, published.code(), published.describe());
    assertTrue(published.out().startsWith("CREATED border-state/"), published.describe());
    assertEquals(65532, (Integer) Files.getAttribute(root.resolve("tmp/store"), "unix:uid"), "written as the image's user");

    Run got = idem("get", "--store", "file:/tmp/store", "--pipeline", "border-state");
    assertEquals(0, got.code(), got.describe());
    assertEquals("rows from the image\n", got.out(), got.describe());

    Run scanned = idem("scan", "--store", "file:/tmp/store");
    assertEquals(0, scanned.code(), scanned.describe());
    assertTrue(scanned.out().contains("divergent_keys=0"), scanned.describe());
    assertTrue(scanned.err().contains("examined 1 keys"), scanned.describe());
  }

  @Test
  void s3Store_publishesToTheS3ProxyOnTheHostsLoopback() throws Exception {
    S3ProxyServer server = S3ProxyServer.shared();
    String store = "s3://" + server.createBucket(true) + "/image";
    Map<String, String> aws = new LinkedHashMap<>();
    aws.put("AWS_ENDPOINT_URL", server.endpoint().toString());
    aws.put("AWS_REGION", S3ProxyServer.REGION);
    aws.put("AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS_KEY);
    aws.put("AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET_KEY);
    aws.put("AWS_EC2_METADATA_DISABLED", "true");
    Files.writeString(root.resolve("tmp/s3-rows.txt"), "rows to S3\n");

    Run published = idem(aws, spec(store, "/tmp/s3-rows.txt"));
    assertEquals(0, published.code(), published.describe());
    assertTrue(published.out().startsWith("CREATED border-state/"), published.describe());

    // Read back on the host, in-process: what the image wrote is a real generation in the bucket.
    Cli.Result got = new Cli().env("AWS_ENDPOINT_URL", server.endpoint().toString())
        .env("AWS_REGION", S3ProxyServer.REGION).env("AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS_KEY)
        .env("AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET_KEY).env("AWS_EC2_METADATA_DISABLED", "true")
        .env("HOME", scratch.toString())
        .run("get", "--store", store, "--pipeline", "border-state");
    assertEquals(0, got.code(), got.describe());
    assertEquals("rows to S3\n", new String(got.raw(), StandardCharsets.UTF_8), got.describe());
  }
}
