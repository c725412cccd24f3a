package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution's launcher ({@code src/dist/idem}) under {@code dash}, the strictest common POSIX
 * sh, installed in a directory whose name has a space. Its {@code runtime/bin/java} is a stand-in that
 * prints its process id and arguments, so every test sees exactly what the JVM would be given, and
 * whether the launcher replaced itself with it (exec). DistArchiveE2E runs the real archive.
 */
class LauncherTest {
  private static final Path LAUNCHER = Path.of("src/dist/idem").toAbsolutePath();
  /** C1 only, except for the commands that hash a payload ({@link JitRelaunch#HASHING_FLAGS}). */
  private static final List<String> C1_ONLY = List.of("-XX:TieredStopAtLevel=1");
  private static final List<String> WITH_C2 = JitRelaunch.WITH_C2;
  private static final List<String> HASHING_FLAGS = JitRelaunch.HASHING_FLAGS;
  private static final List<String> VM_FLAGS = List.of("-XX:+UseSerialGC", "-Xlog:disable", "-Xlog:all=error:stderr");

  @TempDir
  Path dir;

  Path install;

  record Launched(long pid, long javaPid, List<String> javaArgs) {}

  @BeforeEach
  void install() throws IOException {
    install = dir.resolve("opt dir/idem 1.0");
    Files.createDirectories(install.resolve("bin"));
    Files.createDirectories(install.resolve("app"));
    Files.createDirectories(install.resolve("runtime/bin"));
    Files.copy(LAUNCHER, install.resolve("bin/idem"));
    executable(install.resolve("bin/idem"));
    Path java = install.resolve("runtime/bin/java");
    Files.writeString(java, "#!/bin/sh\necho \"pid=$$\"\nfor a in \"$@\"; do printf '[%s]\\n' \"$a\"; done\n");
    executable(java);
  }

  @Test
  void launcher_pathWithSpace_passesArgumentsVerbatim() throws Exception {
    List<String> args = List.of("key", "two words", "", "*", "$HOME", "a'b\"c", "--x=`id`", "-");

    Launched run = dash(install.resolve("bin/idem"), Map.of(), args);

    assertEquals(expected(List.of(), args), run.javaArgs());
  }

  @Test
  void launcher_always_execsTheJvmSoSignalsReachIt() throws Exception {
    Launched run = dash(install.resolve("bin/idem"), Map.of(), List.of("--help"));

    assertEquals(run.pid(), run.javaPid(), "java ran in a child of the shell, not in its place");
  }

  @Test
  void launcher_symlinkChainFromElsewhere_findsItsInstall() throws Exception {
    Path usrBin = Files.createDirectories(dir.resolve("usr local/bin"));
    Path links = Files.createDirectories(dir.resolve("links"));
    // Relative first link (as `ln -s ../../opt...`), absolute second: both kinds are resolved.
    Files.createSymbolicLink(links.resolve("idem-current"), install.resolve("bin/idem"));
    Files.createSymbolicLink(usrBin.resolve("idem"), usrBin.relativize(links.resolve("idem-current")));

    Launched run = dash(usrBin.resolve("idem"), Map.of(), List.of("--version"));

    assertEquals(expected(List.of(), List.of("--version")), run.javaArgs());
  }

  @Test
  void launcher_invokedByBareNameFromItsDirectory_findsItsInstall() throws Exception {
    Launched run = run(install.resolve("bin"), List.of("dash", "idem", "--version"), Map.of());

    assertEquals(expected(List.of(), List.of("--version")), run.javaArgs());
  }

  @Test
  void launcher_idemJavaOpts_splitOnBlanksNotGlobbedAndAfterIdemsFlags() throws Exception {
    Files.writeString(install.resolve("app/glob-bait"), "");

    Launched run = dash(install.resolve("bin/idem"), Map.of("IDEM_JAVA_OPTS", " -Xmx64m  -Dx=* "), List.of("--help"));

    assertEquals(expected(List.of("-Xmx64m", "-Dx=*"), List.of("--help")), run.javaArgs());
  }

  @Test
  void launcher_aotCacheBeside_isPassedToTheJvm() throws Exception {
    Files.writeString(install.resolve("app/idem.aot"), "");

    Launched run = dash(install.resolve("bin/idem"), Map.of(), List.of("--help"));

    String cache = "-XX:AOTCache=" + install.toRealPath().resolve("app/idem.aot");
    assertEquals(expected(List.of(cache), List.of(), List.of("--help")), run.javaArgs());
  }

  @Test
  void launcher_cdsArchiveBeside_runsWithTheTrainingClassPathItWasMadeWith() throws Exception {
    Files.writeString(install.resolve("app/idem.jsa"), "");
    Files.writeString(install.resolve("app/idem-training.jar"), "");

    Launched run = dash(install.resolve("bin/idem"), Map.of(), List.of("--help"));

    Path app = install.toRealPath().resolve("app");
    List<String> want = expected(List.of("-XX:SharedArchiveFile=" + app.resolve("idem.jsa")), List.of(), List.of("--help"));
    want.set(want.indexOf("-cp") + 1, app.resolve("idem-cli.jar") + ":" + app.resolve("idem-training.jar"));
    assertEquals(want, run.javaArgs());
  }

  @Test
  void launcher_aotCacheBeside_leavesAnyTrainingJarOffTheClassPath() throws Exception {
    Files.writeString(install.resolve("app/idem.aot"), "");
    Files.writeString(install.resolve("app/idem-training.jar"), "");

    Launched run = dash(install.resolve("bin/idem"), Map.of(), List.of("--help"));

    String cache = "-XX:AOTCache=" + install.toRealPath().resolve("app/idem.aot");
    assertEquals(expected(List.of(cache), List.of(), List.of("--help")), run.javaArgs());
  }

  @Test
  void launcher_commandsThatHashAPayload_getC2_theRestC1Only() throws Exception {
    for (List<String> args : List.<List<String>>of(List.of("publish", "--file", "f"), List.of("run", "--", "sh"), List.of("get"),
        List.of("key"), List.of("scan"), List.of("pointer", "show"), List.of("gc"), List.of("--help"), List.of(),
        List.of("--", "publish"), List.of("publisher"), List.of("--store", "s3://b/p", "publish", "--file", "f"),
        List.of("--json", "scan", "--pipeline", "run"), List.of("-q", "--", "get"))) {
      Launched run = dash(install.resolve("bin/idem"), Map.of(), args);

      assertEquals(expected(List.of(), args), run.javaArgs(), args::toString);
    }
    // Spelled out once, so the rule above cannot drift with the code it checks: without an AOT cache
    // the hashing commands run with the image's flags for them, with one they also do not replay its
    // training.
    List<String> run = dash(install.resolve("bin/idem"), Map.of(), List.of("run")).javaArgs();
    assertEquals(HASHING_FLAGS, run.subList(0, HASHING_FLAGS.size()));
    assertEquals(VM_FLAGS.get(0), run.get(HASHING_FLAGS.size()));
    Files.writeString(install.resolve("app/idem.aot"), "");
    List<String> withCache = dash(install.resolve("bin/idem"), Map.of(), List.of("run")).javaArgs();
    assertEquals(WITH_C2, withCache.subList(0, 2));
    assertEquals(HASHING_FLAGS, withCache.subList(2, 2 + HASHING_FLAGS.size()));
    Files.delete(install.resolve("app/idem.aot"));
    assertEquals(C1_ONLY, dash(install.resolve("bin/idem"), Map.of(), List.of("scan")).javaArgs().subList(0, 1));
  }

  @Test
  void launcher_commandsThatHashAPayloadOnAJdkWithoutAotCache_startTheJvm() throws Exception {
    // A dist built on JDK 17-24 has a CDS archive, no AOT cache, and a runtime that refuses JDK 25's
    // AOT flags: the launcher must not pass them. The runtime here is the JDK running this test.
    Path java = install.resolve("runtime/bin/java");
    Files.delete(java);
    Files.createSymbolicLink(java, Path.of(System.getProperty("java.home"), "bin", "java"));
    Files.writeString(install.resolve("app/idem.jsa"), "");

    for (String command : List.of("publish", "run", "get")) {
      ProcessBuilder pb = new ProcessBuilder("dash", install.resolve("bin/idem").toString(), command)
          .directory(dir.toFile()).redirectErrorStream(true);
      pb.environment().remove("IDEM_JAVA_OPTS");
      Process p = pb.start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(p.waitFor(30, TimeUnit.SECONDS), command);
      // The jar is not there, so the JVM stops at the main class: that it got that far is the point.
      assertFalse(out.contains("Unrecognized VM option"), command + ": " + out);
      // The compile commands are quiet: a JVM echoes them on stdout, where get writes the payload.
      assertFalse(out.contains("CompileCommand"), command + ": " + out);
      assertTrue(out.contains("dev.idem.cli.Main"), command + ": " + out);
    }
  }

  @Test
  void sourceLauncher_hashingCommandsGetTheDistributionsFlags_idemJavaOptsAfterIdemsFlags() throws Exception {
    // The checkout's ./idem, in a copy of the checkout whose jar is built (nothing is newer than it), run
    // by bash with a stand-in JDK that prints what it is given.
    Path checkout = dir.resolve("checkout dir");
    Files.createDirectories(checkout.resolve("cli/target/lib"));
    Files.writeString(checkout.resolve("cli/target/idem-cli.jar"), "");
    Files.copy(Path.of("../idem").toAbsolutePath(), checkout.resolve("idem"));
    executable(checkout.resolve("idem"));
    Path jdk = install.resolve("runtime");
    String jar = checkout.toRealPath().resolve("cli/target/idem-cli.jar").toString();
    Map<String, String> env = Map.of("JAVA_HOME", jdk.toString(), "IDEM_JAVA_OPTS", " -Xmx64m  -Dx=* ");

    for (String command : List.of("publish", "get", "scan")) {
      Launched launched = run(dir, List.of("bash", checkout.resolve("idem").toString(), command), env);

      List<String> want = new ArrayList<>(command.equals("scan") ? C1_ONLY : HASHING_FLAGS);
      want.addAll(List.of("-XX:+UseSerialGC", "-Xshare:auto", "-Xlog:disable", "-Xlog:all=error:stderr",
          "-Djava.io.tmpdir=/tmp", "-Xmx64m", "-Dx=*", "-cp", jar, "dev.idem.cli.Main", command));
      assertEquals(want, launched.javaArgs(), command);
    }
  }

  /** The JVM's arguments with no class-data archive present. */
  private List<String> expected(List<String> javaOpts, List<String> args) throws IOException {
    return expected(List.of(), javaOpts, args);
  }

  private List<String> expected(List<String> archive, List<String> javaOpts, List<String> args) throws IOException {
    boolean hashes = List.of("publish", "run", "get").contains(command(args));
    boolean aotCache = archive.stream().anyMatch(a -> a.startsWith("-XX:AOTCache="));
    List<String> want = new ArrayList<>(hashes ? (aotCache ? WITH_C2 : List.of()) : C1_ONLY);
    if (hashes) {
      want.addAll(HASHING_FLAGS);
    }
    want.addAll(VM_FLAGS);
    want.addAll(archive);
    want.add("-Djava.io.tmpdir=/tmp");
    want.addAll(javaOpts);
    want.add("-cp");
    want.add(install.toRealPath().resolve("app/idem-cli.jar").toString());
    want.add("dev.idem.cli.Main");
    want.addAll(args);
    return want;
  }

  /** The command a line runs: its first argument, or the first command name after leading options. */
  private static String command(List<String> args) {
    if (args.isEmpty() || !args.get(0).startsWith("-")) {
      return args.isEmpty() ? "" : args.get(0);
    }
    for (String a : args) {
      if (a.equals("--")) {
        return "";
      }
      if (List.of(CommandModels.NAMES).contains(a)) {
        return a;
      }
    }
    return "";
  }

  private Launched dash(Path launcher, Map<String, String> env, List<String> args) throws Exception {
    List<String> command = new ArrayList<>(List.of("dash", launcher.toString()));
    command.addAll(args);
    return run(dir, command, env);
  }

  private Launched run(Path cwd, List<String> command, Map<String, String> env) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true);
    pb.environment().remove("IDEM_JAVA_OPTS");
    pb.environment().remove("TMPDIR");
    pb.environment().remove("CDPATH");
    pb.environment().putAll(env);
    Process p = pb.start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("launcher did not finish: " + out);
    }
    assertEquals(0, p.exitValue(), out);
    List<String> lines = out.lines().toList();
    if (lines.isEmpty() || !lines.get(0).startsWith("pid=")) {
      fail("the stand-in java did not run: " + out);
    }
    List<String> javaArgs = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      javaArgs.add(line.substring(1, line.length() - 1));
    }
    return new Launched(p.pid(), Long.parseLong(lines.get(0).substring(4)), javaArgs);
  }

  private static void executable(Path file) throws IOException {
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }
}
