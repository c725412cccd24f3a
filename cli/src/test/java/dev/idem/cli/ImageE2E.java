package dev.idem.cli;

import static dev.idem.cli.OciImage.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container image archive, checked as a daemon would check it on {@code docker load} / {@code
 * podman load} (none is available here): every blob matches the digest and size its descriptor
 * gives, the config's diff IDs are the uncompressed layers' digests, and the docker-archive
 * manifest.json names the same config and layers as the OCI index. Then what the image holds: a
 * shell-less entrypoint that starts the runtime's java with bin/idem's flags as user 65532, only
 * idem and the C libraries, the users, /tmp, certificates, completion and man pages, and at most 30 MB
 * of compressed layers. Runs when the build made the image ({@code -Pdist,image} sets {@code
 * idem.image}); otherwise it is skipped and says so. {@link ImageChrootE2E} runs the image.
 */
class ImageE2E {
  static final long MAX_COMPRESSED = 30_000_000;

  static Path tar;
  static OciImage image;
  static List<OciImage.Layer> layers;
  static Map<String, OciImage.Entry> byPath;

  /** The image tar this build wrote, or null when it made none (the image profile is off). */
  static Path imageTar() {
    String p = System.getProperty("idem.image", "");
    if (p.isEmpty()) {
      return null;
    }
    Path path = Path.of(p);
    assertTrue(Files.isRegularFile(path), "the image profile is on but wrote no " + path);
    return path;
  }

  /**
   * Prints why a class's tests skip, once, to the build log; each test then skips on its own
   * assumption, so the report counts and names every one.
   */
  static void announceSkip(String reason, Class<?> tests) {
    System.err.println(tests.getSimpleName() + " skipped: " + reason);
  }

  static final String NO_IMAGE = "no container image in this build (the image profile builds one: -Pdist,image)";

  @BeforeEach
  void imageBuilt() {
    assumeTrue(tar != null, NO_IMAGE);
  }

  @BeforeAll
  static void read() throws IOException {
    tar = imageTar();
    if (tar == null) {
      announceSkip(NO_IMAGE, ImageE2E.class);
      return;
    }
    image = OciImage.read(tar);
    layers = image.layers();
    byPath = new HashMap<>();
    for (OciImage.Layer l : layers) {
      for (OciImage.Entry e : l.entries()) {
        byPath.put(e.path().replaceAll("/$", ""), e);
      }
    }
  }

  static OciImage.Entry entry(String path) {
    OciImage.Entry e = byPath.get(path);
    assertTrue(e != null, "the image has no " + path);
    return e;
  }

  /** The version in the image tar's name, idem-image-VERSION.tar: the tag it carries. */
  static String version(Path tar) {
    return tar.getFileName().toString().replaceFirst("^idem-image-", "").replaceFirst("\\.tar$", "");
  }

  static List<String> entrypoint() {
    return at(image.config(), "config", "Entrypoint");
  }

  @Test
  void blobs_matchTheDigestsAndSizesTheirDescriptorsGive() {
    Map<String, Object> index = image.json("index.json");
    assertEquals(2L, (Long) at(index, "schemaVersion"));
    List<Map<String, Object>> manifests = at(index, "manifests");
    assertEquals(1, manifests.size(), "one image in the index: " + manifests);
    List<Map<String, Object>> descriptors = new ArrayList<>(manifests);
    Map<String, Object> manifest = image.manifest();
    assertEquals("application/vnd.oci.image.manifest.v1+json", at(manifest, "mediaType"));
    assertEquals("application/vnd.oci.image.config.v1+json", at(manifest, "config", "mediaType"));
    descriptors.add(at(manifest, "config"));
    List<Map<String, Object>> layerDescriptors = at(manifest, "layers");
    assertFalse(layerDescriptors.isEmpty());
    for (Map<String, Object> d : layerDescriptors) {
      assertEquals("application/vnd.oci.image.layer.v1.tar+gzip", d.get("mediaType"), d.toString());
      descriptors.add(d);
    }
    Set<String> referenced = new HashSet<>();
    for (Map<String, Object> d : descriptors) {
      String digest = (String) d.get("digest");
      byte[] blob = image.blob(digest);
      assertEquals(digest, OciImage.sha256(blob), "blob content matches its name and descriptor");
      assertEquals(((Long) d.get("size")).longValue(), blob.length, "size of " + digest);
      referenced.add("blobs/sha256/" + digest.substring("sha256:".length()));
    }
    Set<String> blobs = image.files.keySet().stream().filter(p -> p.startsWith("blobs/")).collect(Collectors.toSet());
    assertEquals(referenced, blobs, "every blob is referenced, and only those are in the archive");
    assertEquals("{\"imageLayoutVersion\":\"1.0.0\"}", new String(image.file("oci-layout"), StandardCharsets.UTF_8).strip());
    assertEquals(version(tar), at(manifests.get(0), "annotations", "org.opencontainers.image.ref.name"));
  }

  @Test
  void config_diffIdsAreTheDigestsOfTheUncompressedLayers() {
    Map<String, Object> config = image.config();
    assertEquals("layers", at(config, "rootfs", "type"));
    List<String> diffIds = at(config, "rootfs", "diff_ids");
    assertEquals(layers.stream().map(OciImage.Layer::diffId).toList(), diffIds);
    assertEquals(diffIds.size(), ((List<?>) at(config, "history")).size(), "one history entry per layer");
    assertEquals("linux", at(config, "os"));
    assertEquals(System.getProperty("os.arch").equals("aarch64") ? "arm64" : "amd64", at(config, "architecture"));
  }

  @Test
  void dockerManifest_namesTheOciConfigAndLayersInOrder() {
    List<Map<String, Object>> docker = at(MiniJson.parse(new String(image.file("manifest.json"), StandardCharsets.UTF_8)));
    assertEquals(1, docker.size(), docker.toString());
    Map<String, Object> m = docker.get(0);
    Map<String, Object> oci = image.manifest();
    assertEquals("blobs/sha256/" + ((String) at(oci, "config", "digest")).substring(7), m.get("Config"));
    List<Map<String, Object>> ociLayers = at(oci, "layers");
    assertEquals(ociLayers.stream().map(d -> "blobs/sha256/" + ((String) d.get("digest")).substring(7)).toList(),
        m.get("Layers"));
    assertEquals(List.of("idem:" + version(tar)), m.get("RepoTags"));
  }

  @Test
  void config_startsTheRuntimesJavaDirectlyAsNonRoot() {
    Map<String, Object> config = image.config();
    assertEquals("65532:65532", at(config, "config", "User"));
    List<String> ep = entrypoint();
    assertEquals("/opt/idem/runtime/bin/java", ep.get(0));
    OciImage.Entry java = entry("opt/idem/runtime/bin/java");
    assertTrue(java.isExecutable() && java.isElf(), "the entrypoint is an executable ELF file, not a script: " + java);
    assertEquals("dev.idem.cli.Main", ep.get(ep.size() - 1));
    String cp = ep.get(ep.indexOf("-cp") + 1);
    assertTrue(entry(cp.substring(1)).isFile(), cp);
    String aot = ep.stream().filter(a -> a.startsWith("-XX:AOTCache=")).findFirst().orElseThrow();
    assertTrue(entry(aot.substring("-XX:AOTCache=/".length())).size() > 0, aot);
    assertEquals(List.of("--help"), at(config, "config", "Cmd"));
  }

  @Test
  void layers_holdNoShellAndNoScript() {
    for (OciImage.Entry e : byPath.values()) {
      String name = e.path().substring(e.path().lastIndexOf('/') + 1);
      assertFalse(Set.of("sh", "bash", "dash", "ash", "busybox", "env").contains(name), "a shell or env: " + e.path());
      // The one script is the dist's launcher, for task images that copy /opt/idem and have a shell;
      // nothing in this image runs it (the entrypoint is java itself).
      if (e.isExecutable() && !e.path().equals("opt/idem/bin/idem")) {
        assertTrue(e.isElf(), "every executable is a binary (nothing runs a script): " + e.path());
      }
    }
    List<String> entrypoint = at(image.config(), "config", "Entrypoint");
    assertFalse(entrypoint.contains("/opt/idem/bin/idem"), entrypoint.toString());
  }

  @Test
  void entrypoint_passesTheFlagsTheDistLauncherPasses(@TempDir Path dir) throws Exception {
    // The image starts every command as the launcher starts those that end in a moment, and asks idem to
    // start the others again as the launcher starts them (JitRelaunch).
    List<String> image = new ArrayList<>(entrypoint().subList(1, entrypoint().size()));
    assertTrue(image.remove("-Didem.jit=per-command"), "the entrypoint asks for the per-command JIT: " + image);
    image.add("--version");
    assertSameJvmLine(image, launched(dir, "--version"));
  }

  @Test
  void entrypoint_publishStartedAgainWithTheFlagsTheDistLauncherPassesIt(@TempDir Path dir) throws Exception {
    List<String> image = new ArrayList<>(entrypoint().subList(1, entrypoint().size()));
    image.add("publish");
    List<String> again = JitRelaunch.commandLine(image, new String[] {"publish"}).orElseThrow();
    assertSameJvmLine(again, launched(dir, "publish"));
  }

  /**
   * bin/idem from the dist, run against a stand-in java that prints its arguments: the exact command
   * line the launcher starts for {@code command}, with its install dir written as the image's, /opt/idem.
   */
  private static List<String> launched(Path dir, String command) throws Exception {
    Path dist = tar.resolveSibling("dist").resolve("idem-" + version(tar) + "-linux-" + System.getProperty("os.arch")
        .replace("amd64", "x86_64"));
    Path install = dir.resolve("idem");
    Files.createDirectories(install.resolve("bin"));
    Files.createDirectories(install.resolve("runtime/bin"));
    Files.createDirectories(install.resolve("app"));
    Files.copy(dist.resolve("bin/idem"), install.resolve("bin/idem"));
    Files.writeString(install.resolve("runtime/bin/java"), "#!/bin/sh\nprintf '%s\\n' \"$@\"\n");
    assertTrue(install.resolve("runtime/bin/java").toFile().setExecutable(true));
    Files.createFile(install.resolve("app/idem.aot"));
    Files.createFile(install.resolve("app/idem-cli.jar"));

    ProcessBuilder pb = new ProcessBuilder(install.resolve("bin/idem").toString(), command).redirectErrorStream(true);
    pb.environment().remove("TMPDIR");
    pb.environment().remove("IDEM_JAVA_OPTS");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the launcher finished");
    assertEquals(0, p.exitValue(), out);
    String installed = install.toRealPath().toString();
    return out.lines().map(a -> a.replace(installed, "/opt/idem")).toList();
  }

  /**
   * The same JVM options (their order matters only among -Xlog options, which apply in turn), then the
   * same class path, main class and arguments.
   */
  private static void assertSameJvmLine(List<String> expected, List<String> launched) {
    int cp = expected.indexOf("-cp");
    int launchedCp = launched.indexOf("-cp");
    assertTrue(launchedCp > 0, "the launcher passes -cp: " + launched);
    assertEquals(expected.subList(cp, expected.size()), launched.subList(launchedCp, launched.size()));
    assertEquals(Set.copyOf(expected.subList(0, cp)), Set.copyOf(launched.subList(0, launchedCp)), "JVM options");
    assertEquals(expected.stream().filter(a -> a.startsWith("-Xlog")).toList(),
        launched.stream().filter(a -> a.startsWith("-Xlog")).toList(), "-Xlog options in order");
  }

  @Test
  void layers_holdTheUsersTmpCertificatesCompletionAndManPages() {
    assertTrue(entry("etc/passwd").text().lines().anyMatch(l -> l.startsWith("nonroot:x:65532:65532:")), entry("etc/passwd").text());
    assertTrue(entry("etc/group").text().lines().anyMatch(l -> l.equals("nonroot:x:65532:")), entry("etc/group").text());
    OciImage.Entry tmp = entry("tmp");
    assertTrue(tmp.isDirectory() && tmp.mode() == 01777 && tmp.uid() == 0, "/tmp is world-writable and sticky: " + tmp);
    OciImage.Entry home = entry("home/nonroot");
    assertTrue(home.isDirectory() && home.uid() == 65532 && home.gid() == 65532, "nonroot's home is its own: " + home);
    assertTrue(entry("opt/idem/runtime/lib/security/cacerts").size() > 50_000, "the runtime's CA certificates");
    assertTrue(entry("usr/local/share/bash-completion/completions/idem").text().contains("complete"), "completion");
    assertTrue(entry("usr/local/share/zsh/site-functions/_idem").text().startsWith("#compdef idem"), "zsh completion");
    assertTrue(entry("usr/local/share/fish/vendor_completions.d/idem.fish").text().contains("complete -c idem"),
        "fish completion");
    assertTrue(entry("usr/local/share/man/man1/idem.1").size() > 0, "man page");
    assertTrue(entry("usr/local/share/man/man1/idem-publish.1").size() > 0, "man page");
  }

  @Test
  void layers_holdOnlyIdemAndTheCLibrariesItsRuntimeNeeds() {
    Set<String> exact = Set.of("etc/passwd", "etc/group", "etc/nsswitch.conf", "tmp", "home/nonroot", "opt/idem/bin/idem");
    List<String> under = List.of("opt/idem/runtime/", "opt/idem/app/", "usr/local/share/bash-completion/completions/",
        "usr/local/share/zsh/site-functions/", "usr/local/share/fish/vendor_completions.d/", "usr/local/share/man/man1/", "usr/share/doc/", "lib/", "lib64/");
    for (OciImage.Entry e : byPath.values()) {
      String p = e.path().replaceAll("/$", "");
      if (e.isDirectory() && byPath.keySet().stream().anyMatch(q -> q.startsWith(p + "/"))) {
        continue; // a parent of something below
      }
      assertTrue(exact.contains(p) || under.stream().anyMatch(p::startsWith), "unexpected in the image: " + p);
      if (p.startsWith("usr/share/doc/")) {
        assertTrue(p.matches("usr/share/doc/[^/]+/copyright"), "only the Debian packages' copyright files: " + p);
      }
      if ((p.startsWith("lib/") || p.startsWith("lib64/")) && e.isFile()) {
        assertTrue(e.isElf() && p.matches(".*\\.so(\\.[0-9]+)*"), "only shared libraries under lib: " + p);
      }
    }
    assertTrue(byPath.values().stream().anyMatch(e -> e.path().matches("lib/[^/]+/libc\\.so\\.6") && e.isElf()), "libc");
    String packages = at(image.config(), "config", "Labels", "dev.idem.image.debian-packages");
    assertTrue(packages.matches("libc6=\\S+( \\S+=\\S+)*"), "the Debian packages the libraries came from: " + packages);
    for (String pkg : packages.split(" ")) {
      entry("usr/share/doc/" + pkg.substring(0, pkg.indexOf('=')) + "/copyright");
    }
  }

  @Test
  void layers_areSafeToUnpackInOrder() {
    Map<String, OciImage.Entry> seen = new HashMap<>();
    for (OciImage.Layer l : layers) {
      for (OciImage.Entry e : l.entries()) {
        String p = e.path().replaceAll("/$", "");
        assertFalse(p.startsWith("/") || p.equals("..") || p.startsWith("../") || p.contains("/../"), "a path outside the root: " + p);
        assertFalse(p.substring(p.lastIndexOf('/') + 1).startsWith(".wh."), "a whiteout: " + p);
        OciImage.Entry before = seen.put(p, e);
        // A parent directory recurs in the layers below it, the same each time; anything else would
        // be replaced by the later layer.
        assertTrue(before == null || e.isDirectory() && before.isDirectory() && e.mode() == before.mode()
            && e.uid() == before.uid() && e.gid() == before.gid(), "in two layers: " + before + " and " + e);
        if (e.type() != '2' && !p.equals("tmp")) {
          assertEquals(0, e.mode() & 0002, "world-writable: " + p + " " + Integer.toOctalString(e.mode()));
        }
        if (e.isFile()) {
          assertEquals(0444, e.mode() & 0444, "readable by nonroot: " + p + " " + Integer.toOctalString(e.mode()));
        }
        if (!p.equals("home/nonroot")) {
          assertEquals(0, e.uid(), "owned by root: " + p);
        }
      }
    }
  }

  @Test
  void compressedLayers_totalAtMost30MB() {
    List<Map<String, Object>> ls = at(image.manifest(), "layers");
    long compressed = ls.stream().mapToLong(d -> (Long) d.get("size")).sum();
    System.out.printf("image %s: %d layers, %,d bytes compressed, %,d bytes archive%n", tar.getFileName(), ls.size(),
        compressed, tar.toFile().length());
    assertTrue(compressed <= MAX_COMPRESSED, "compressed layers " + compressed + " bytes > " + MAX_COMPRESSED);
  }
}
