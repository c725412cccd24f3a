package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The command line {@link JitRelaunch} starts again: the launcher's JIT for the commands that hash a payload. */
class JitRelaunchTest {
  /** How the container image's entrypoint starts every command. */
  static final List<String> IMAGE = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xlog:disable",
      "-Xlog:all=error:stderr", "-XX:AOTCache=/opt/idem/app/idem.aot", "-Djava.io.tmpdir=/tmp",
      "-Didem.jit=per-command", "-cp", "/opt/idem/app/idem-cli.jar", "dev.idem.cli.Main");

  /** The flags the launchers give the commands that hash a payload, then {@code rest}. */
  private static List<String> hashing(List<String> rest) {
    List<String> line = new java.util.ArrayList<>(JitRelaunch.HASHING_FLAGS);
    line.addAll(rest);
    return line;
  }

  /** Beside an AOT cache: its training not replayed, then {@link #hashing}. */
  private static List<String> hashingWithAotCache(List<String> rest) {
    List<String> line = new java.util.ArrayList<>(List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:-AOTReplayTraining"));
    line.addAll(hashing(rest));
    return line;
  }

  private static Optional<List<String>> relaunch(List<String> jvm, String... args) {
    List<String> process = new java.util.ArrayList<>(jvm);
    process.addAll(List.of(args));
    return JitRelaunch.commandLine(process, args);
  }

  @Test
  void commandLine_commandsThatHash_c2InsteadOfC1Only_restAsStarted() {
    for (String command : List.of("publish", "run", "get")) {
      assertEquals(Optional.of(hashingWithAotCache(List.of("-XX:+UseSerialGC", "-Xlog:disable",
          "-Xlog:all=error:stderr", "-XX:AOTCache=/opt/idem/app/idem.aot", "-Djava.io.tmpdir=/tmp", "-cp",
          "/opt/idem/app/idem-cli.jar", "dev.idem.cli.Main", command, "--pipeline", "p"))),
          relaunch(IMAGE, command, "--pipeline", "p"));
    }
  }

  @Test
  void commandLine_otherCommandsAndHelp_runInPlace() {
    for (String[] args : List.of(new String[] {"scan", "--pipeline", "p"}, new String[] {"key"},
        new String[] {"--help"}, new String[] {}, new String[] {"pointer", "show"})) {
      assertEquals(Optional.empty(), relaunch(IMAGE, args), List.of(args).toString());
    }
  }

  @Test
  void commandLine_optionsBeforeTheCommand_foundAsTheLauncherFindsIt() {
    assertEquals("get", JitRelaunch.command(new String[] {"--store", "s3://b", "get", "--pipeline", "p"}));
    assertEquals("", JitRelaunch.command(new String[] {"--store", "x", "--", "run"}));
    assertTrue(relaunch(IMAGE, "--store", "file:s", "run", "--", "sh").isPresent());
    assertEquals(Optional.empty(), relaunch(IMAGE, "--store", "file:s", "key", "--", "publish"));
  }

  @Test
  void commandLine_startedWithJar_keepsIt() {
    assertEquals(Optional.of(hashingWithAotCache(List.of("-Xmx64m", "-XX:AOTCache=idem.aot", "-jar", "idem.jar",
        "publish"))), relaunch(List.of("-XX:TieredStopAtLevel=1", "-Xmx64m",
            "-XX:AOTCache=idem.aot", "-Didem.jit=per-command", "-jar", "idem.jar"), "publish"));
  }

  @Test
  void commandLine_withoutAotCache_hashingFlagsAndNoAotFlag() {
    // A JDK 17-24 runtime refuses the AOT flags; without a cache there is no training to leave out.
    assertEquals(Optional.of(hashing(List.of("-Xmx64m", "-XX:SharedArchiveFile=idem.jsa", "-cp", "idem-cli.jar",
        "dev.idem.cli.Main", "get"))), relaunch(List.of("-XX:TieredStopAtLevel=1", "-Xmx64m",
            "-XX:SharedArchiveFile=idem.jsa", "-Didem.jit=per-command", "-cp", "idem-cli.jar", "dev.idem.cli.Main"),
            "get"));
  }

  @Test
  void commandLine_argumentsNotAtTheEndOfTheProcessLine_runInPlace() {
    assertEquals(Optional.empty(), JitRelaunch.commandLine(List.of("-cp", "x", "dev.idem.cli.Main", "publish"),
        new String[] {"publish", "--file", "f"}));
  }
}
