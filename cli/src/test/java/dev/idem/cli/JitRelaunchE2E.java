package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar started as the container image starts it (C1 only, {@code -Didem.jit=per-command}):
 * a command that hashes a payload runs in a JVM with the JIT bin/idem gives it, and its result and exit
 * code are the command's. Started without an AOT cache, the relaunched JVM gets the default tiers and
 * none of JDK 25's AOT flags, which the JDK 17 this may run on would refuse ({@code JitRelaunchTest}
 * covers the line beside a cache).
 */
class JitRelaunchE2E {
  @TempDir
  Path dir;

  private List<String> imageLike(String... args) {
    String jar = System.getProperty("idem.jar");
    if (jar == null || !Files.isRegularFile(Path.of(jar))) {
      fail("idem.jar not built: " + jar);
    }
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Djava.io.tmpdir=" + dir, "-Didem.jit=per-command", "-cp", jar, "dev.idem.cli.Main"));
    cmd.addAll(List.of(args));
    return cmd;
  }

  @Test
  void publish_startedAsTheImageStartsIt_runsWithTheLaunchersJitForIt() throws Exception {
    String[] args = {"publish", "--file", "-", "--store", "file:" + dir.resolve("store"), "--pipeline", "p",
        "--window", "60s", "--at", "1726000030", "--schema", "3"};
    Path out = dir.resolve("out");
    Path err = dir.resolve("err");
    Process p = new ProcessBuilder(imageLike(args)).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    // The publish waits for stdin, held open here: its JVM is there to be looked at.
    ProcessHandle worker = null;
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (worker == null && p.isAlive() && System.nanoTime() < until) {
      // The child is the JVM once it runs idem's main class: until the JDK's spawn helper (jspawnhelper,
      // whose arguments are the JDK's version and descriptor numbers) has exec'd it, it is not. Between
      // its fork and its exec a child shows its parent's command line, idem's main class and the
      // per-command property included, which the worker's line never carries.
      Optional<ProcessHandle> child = p.toHandle().children().findFirst();
      if (child.isPresent() && child.get().info().arguments().map(a -> List.of(a).contains("dev.idem.cli.Main")
          && !List.of(a).contains("-D" + JitRelaunch.PROPERTY + "=per-command")).orElse(false)) {
        worker = child.get();
      } else {
        Thread.sleep(10);
      }
    }
    List<String> workerArgs = worker == null ? List.of() : List.of(worker.info().arguments().orElseThrow());
    try (OutputStream stdin = p.getOutputStream()) {
      stdin.write("rows\n".getBytes(StandardCharsets.UTF_8));
    }
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "idem finished");
    String said = "exit=" + p.exitValue() + " stdout=" + Files.readString(out) + " stderr=" + Files.readString(err);

    assertTrue(worker != null, "no JVM was started for publish: " + said);
    assertFalse(workerArgs.contains("-XX:-AOTReplayTraining"), workerArgs.toString());
    assertFalse(workerArgs.contains("-XX:TieredStopAtLevel=1"), workerArgs.toString());
    assertTrue(workerArgs.contains("-XX:+UseSerialGC"), workerArgs.toString());
    assertTrue(workerArgs.containsAll(JitRelaunch.HASHING_FLAGS), workerArgs.toString());
    assertEquals(List.of(args), workerArgs.subList(workerArgs.size() - args.length, workerArgs.size()));
    assertEquals(0, p.exitValue(), said);
    assertTrue(Files.readString(out).startsWith("CREATED p/1725999960/"), said);
  }

  @Test
  void get_relaunched_exitCodeAndErrorAreTheCommands() throws Exception {
    Process p = new ProcessBuilder(imageLike("get", "--store", "file:" + dir.resolve("none"), "--pipeline", "p"))
        .redirectErrorStream(true).start();
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(ExitCodes.NOT_FOUND, p.exitValue(), said);
    assertTrue(said.startsWith("idem get: no pointer for pipeline p"), said);
  }
}
