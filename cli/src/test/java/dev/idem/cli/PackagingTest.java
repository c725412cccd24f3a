package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release pipeline's and CI's files agree with the build they drive: every Maven command in
 * .github/workflows/release.yml, Dockerfile.native and .ci/run names profiles and modules that exist,
 * the workflow runs the end-to-end tests against the native binary through the property ProcessesE2E
 * reads, CI and the workflow build the container image with the dist and run its tests, and the paths
 * they copy are the ones the build writes. Line-based: only these facts are read, so no YAML parser is
 * needed.
 */
class PackagingTest {
  static final Path CLI = Path.of("").toAbsolutePath();
  static final Path ROOT = CLI.getParent();

  static String read(Path p) throws IOException {
    assertTrue(Files.isRegularFile(p), p + " exists");
    return Files.readString(p);
  }

  static Set<String> matches(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    Set<String> found = new java.util.LinkedHashSet<>();
    while (m.find()) {
      found.add(m.group(1));
    }
    return found;
  }

  /** Every ./mvnw command line (a RUN or run: line may continue over backslash-newlines). */
  static List<String> mavenCommands(String text) {
    List<String> cmds = new ArrayList<>();
    for (String line : text.replace("\\\n", " ").split("\n")) {
      int i = line.indexOf("./mvnw ");
      if (i >= 0) {
        cmds.add(line.substring(i));
      }
    }
    return cmds;
  }

  static void assertBuildable(String file, String cmd, Set<String> profiles, Set<String> modules) {
    for (String p : matches(cmd, "-P([\\w,-]+)")) {
      for (String id : p.split(",")) {
        assertTrue(profiles.contains(id), file + ": profile '" + id + "' is not in cli/pom.xml " + profiles + ": " + cmd);
      }
    }
    for (String pl : matches(cmd, "-pl ([\\w,-]+)")) {
      for (String m : pl.split(",")) {
        assertTrue(modules.contains(m), file + ": module '" + m + "' is not in pom.xml " + modules + ": " + cmd);
      }
    }
  }

  @Test
  void workflowAndDockerfile_mavenCommandsNameExistingProfilesAndModules() throws IOException {
    Set<String> profiles = matches(read(CLI.resolve("pom.xml")), "<profile>\\s*<id>([\\w-]+)</id>");
    Set<String> modules = matches(read(ROOT.resolve("pom.xml")), "<module>([\\w-]+)</module>");
    assertTrue(profiles.containsAll(Set.of("native", "musl", "dist", "image")), profiles.toString());

    String workflow = read(ROOT.resolve(".github/workflows/release.yml"));
    List<String> wf = mavenCommands(workflow);
    assertTrue(wf.stream().anyMatch(c -> c.contains("-Pnative") && c.contains("package") && c.contains("-pl cli")), wf.toString());
    wf.forEach(c -> assertBuildable("release.yml", c, profiles, modules));

    String docker = read(ROOT.resolve("Dockerfile.native"));
    List<String> df = mavenCommands(docker);
    assertTrue(df.stream().anyMatch(c -> c.contains("-Pnative,musl") && c.contains("-pl cli")), df.toString());
    df.forEach(c -> assertBuildable("Dockerfile.native", c, profiles, modules));
    // The reactor reads every module's pom, and the build compiles the ones cli needs: each is copied in.
    for (String m : modules) {
      assertTrue(docker.contains("COPY " + m + " " + m + "\n") || docker.contains("COPY " + m + "/pom.xml " + m + "/\n"),
          "Dockerfile.native copies module " + m);
    }
  }

  @Test
  void ciAndWorkflow_buildTheImageWithTheDistOnJdk25AndRunItsTests() throws IOException {
    Set<String> profiles = matches(read(CLI.resolve("pom.xml")), "<profile>\\s*<id>([\\w-]+)</id>");
    Set<String> modules = matches(read(ROOT.resolve("pom.xml")), "<module>([\\w-]+)</module>");
    String ci = read(ROOT.resolve(".ci/run"));
    List<String> cmds = mavenCommands(ci);
    cmds.forEach(c -> assertBuildable(".ci/run", c, profiles, modules));
    // The image is made from the dist directory of the same build, and verify (not package) runs the
    // image tests; the AOT cache the image ships needs JDK 25.
    assertTrue(ci.contains("JAVA_HOME=\"$JDK25\" ./mvnw -B -Pdist,image verify -pl cli -am"), cmds.toString());
    String workflow = read(ROOT.resolve(".github/workflows/release.yml"));
    assertTrue(mavenCommands(workflow).stream().anyMatch(c -> c.contains("-Pdist,image") && c.contains("verify")),
        "the release builds and tests the JVM image");
    String pom = read(CLI.resolve("pom.xml"));
    assertTrue(pom.contains("<idem.image>${project.build.directory}/idem-image-${project.version}.tar</idem.image>"),
        "the image tests read the tar the image profile writes");
    assertTrue(read(CLI.resolve("src/image/build-image.sh")).contains("out=\"$target/idem-image-$version.tar\""),
        "build-image.sh writes that tar");
    assertTrue(workflow.contains("cp cli/target/idem-image-*.tar "), "the workflow ships the tar the build names");
    // The dist archive: build-dist.sh packs NAME.tar.xz (needing xz, which CI and the workflow install)
    // and the release ships that file.
    String dist = read(CLI.resolve("src/dist/build-dist.sh"));
    assertTrue(dist.contains("> \"$name.tar.xz\"") && dist.contains("sha256sum \"$name.tar.xz\""), "build-dist.sh packs tar.xz");
    assertTrue(workflow.contains("cp cli/target/idem-*-linux-x86_64.tar.xz "), "the workflow ships the dist the build names");
    assertTrue(workflow.contains("xz-utils") && ci.contains("xz-utils"), "CI and the workflow install xz");
  }

  @Test
  void workflow_runsTheEndToEndTestsAgainstTheNativeBinary() throws IOException {
    String workflow = read(ROOT.resolve(".github/workflows/release.yml"));
    String pom = read(CLI.resolve("pom.xml"));
    String e2e = read(CLI.resolve("src/test/java/dev/idem/cli/ProcessesE2E.java"));
    String image = matches(pom, "<imageName>([\\w-]+)</imageName>").iterator().next();

    assertTrue(mavenCommands(workflow).stream().anyMatch(c -> c.contains("verify")
        && c.contains("-Didem.binary=\"$PWD/cli/target/" + image + "\"")), "e2e against cli/target/" + image);
    assertTrue(pom.contains("<idem.binary>${idem.binary}</idem.binary>"), "surefire hands idem.binary to the tests");
    assertTrue(e2e.contains("System.getProperty(\"idem.binary\""), "ProcessesE2E reads idem.binary");
    assertTrue(workflow.contains("cp cli/target/" + image + " "), "the workflow ships the binary the build names");
  }

  @Test
  void workflow_buildsEveryPlatformOnATagWithChecksums() throws IOException {
    String workflow = read(ROOT.resolve(".github/workflows/release.yml"));
    assertTrue(workflow.contains("tags: [\"v*\"]"), "runs on v* tags");
    Set<String> runners = matches(workflow, "- os: ([\\w.-]+)");
    assertEquals(Set.of("ubuntu-latest", "ubuntu-24.04-arm", "macos-latest"), runners);
    assertTrue(workflow.contains("uses: graalvm/setup-graalvm@"), "GraalVM on each runner");
    assertTrue(workflow.contains("shasum -a 256"), "checksums");
    assertTrue(workflow.contains("file: Dockerfile.native"), "the image is built from Dockerfile.native");
    // The archive carries what the build generates (DocGenerator into target/).
    assertTrue(workflow.contains("cp -r cli/target/completion") && workflow.contains("cp -r cli/target/man"), "completion and man pages");
    assertTrue(read(CLI.resolve("pom.xml")).contains("<argument>dev.idem.cli.DocGenerator</argument>"));
  }

  @Test
  void dockerfile_staticBinaryFromScratchAsNonRoot() throws IOException {
    List<String> lines = read(ROOT.resolve("Dockerfile.native")).lines().filter(l -> !l.startsWith("#")).toList();
    List<String> froms = lines.stream().filter(l -> l.startsWith("FROM ")).toList();
    assertEquals(2, froms.size(), froms.toString());
    assertTrue(froms.get(0).contains("native-image") && froms.get(0).contains("muslib"), froms.get(0));
    assertEquals("FROM scratch", froms.get(1));
    String user = lines.stream().filter(l -> l.startsWith("USER ")).collect(Collectors.joining());
    assertTrue(user.matches("USER [1-9][0-9]*:[1-9][0-9]*"), "a numeric non-root user: " + user);
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("COPY --from=build") && l.contains("/tmp")), "a /tmp");
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("COPY --from=build") && l.contains("ca-certificates")), "CA certificates");
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("COPY --from=build") && l.contains("bash-completion")), "completion");
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("COPY --from=build") && l.contains("/man/")), "man pages");
  }

  @Test
  void buildWorkflow_runsTheReadmeTestCommandOnJdk17And25WithMoto() throws IOException {
    String workflow = read(ROOT.resolve(".github/workflows/build.yml"));
    assertTrue(workflow.contains("pull_request:"), "runs on pull requests");
    assertTrue(workflow.contains("java: [\"17\", \"25\"]") && workflow.contains("uses: actions/setup-java@"),
        "a JDK 17 and a JDK 25 job");
    List<String> example = List.of("./mvnw -B -q install -DskipTests -pl core,store-fs -am",
        "./mvnw -B -f examples/embedding/pom.xml verify exec:java",
        "./mvnw -B -f examples/scheduled-runner/pom.xml verify exec:java");
    List<String> expected = new ArrayList<>(List.of("./mvnw -B verify"));
    expected.addAll(example);
    assertEquals(expected, mavenCommands(workflow),
        "the README's test command, then the embedding examples against the installed jars, nothing else");
    String ci = read(ROOT.resolve(".ci/run"));
    assertTrue(example.stream().allMatch(ci::contains), ".ci/run builds and runs the same examples");
    assertTrue(read(ROOT.resolve("README.md")).contains("./mvnw -B verify"), "the README gives that command");
    assertTrue(workflow.contains("moto[server]=="), "moto installed for the S3 suites");
  }

  /** The function {@code .ci/run} finds JDK 25 with, run by bash with {@code env} and nothing else set. */
  private static String findJdk25(Map<String, String> env) throws IOException, InterruptedException {
    String ci = read(ROOT.resolve(".ci/run"));
    Matcher m = Pattern.compile("(?ms)^find_jdk25\\(\\) \\{.*?^}").matcher(ci);
    assertTrue(m.find(), ".ci/run defines find_jdk25");
    ProcessBuilder pb = new ProcessBuilder("bash", "-c", m.group() + "\nfind_jdk25");
    pb.environment().keySet().removeIf(k -> k.equals("JDK25") || k.startsWith("JAVA_HOME_25"));
    pb.environment().putAll(env);
    pb.redirectErrorStream(true);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
    return p.waitFor() == 0 ? out : "none: " + out;
  }

  private static Path fakeJdk(Path dir, String version) throws IOException {
    Path java = Files.createDirectories(dir.resolve("bin")).resolve("java");
    Files.writeString(java, "#!/bin/sh\necho 'openjdk version \"" + version + "\" 2025-10-21 LTS' >&2\n");
    assertTrue(java.toFile().setExecutable(true), "executable " + java);
    return dir;
  }

  @Test
  void ciRun_findsJdk25WithoutAFixedPath(@TempDir Path tmp) throws IOException, InterruptedException {
    Path jdk25 = fakeJdk(tmp.resolve("setup-java-25"), "25.0.1");
    Path jdk21 = fakeJdk(tmp.resolve("jdk-21"), "21.0.5");
    assertEquals(jdk25.toString(), findJdk25(Map.of("JAVA_HOME_25_X64", jdk25.toString())));
    assertEquals(jdk25.toString(), findJdk25(Map.of("JDK25", jdk21.toString(), "JAVA_HOME_25_X64", jdk25.toString())),
        "a JDK25 that is not version 25 is passed over");
    assertTrue(read(ROOT.resolve(".ci/run")).contains("no JDK 25 found (set JDK25="), "says so when none is there");
    assertTrue(!read(ROOT.resolve(".ci/run")).contains("JDK25=/usr/lib/jvm/"), "no path fixed in the script");
  }
}
