package dev.idem.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The JIT that {@code bin/idem} chooses per command, for a JVM started without it: the container image,
 * which has no shell to run the launcher, so its entrypoint starts every command with the one set of
 * flags the launcher gives the commands that end in a moment (C1 only, the AOT cache's training
 * replayed). The commands that hash a payload ({@code publish}, {@code run}, {@code get}) get {@link
 * #HASHING_FLAGS} from the launcher instead. Started with {@value #PROPERTY}
 * {@code =per-command} (the image's entrypoint passes it) for one of those, idem starts the same JVM again
 * with the launcher's flags for it, the same class path and arguments, sharing its stdin, stdout and
 * stderr, and exits with its code; a SIGTERM or SIGINT that ends this JVM is passed on as SIGTERM and
 * waited for, so {@code run}'s CMD still gets its grace period (or its drain), and this JVM then exits
 * with the child's code. Every other command runs in place.
 */
final class JitRelaunch {
  /** The system property that asks for the launcher's per-command JIT. */
  static final String PROPERTY = "idem.jit";
  /** C1 alone: how the image's entrypoint starts every command. */
  static final String C1_ONLY = "-XX:TieredStopAtLevel=1";
  /**
   * What every launcher gives the commands that hash a payload, in its order. The JDK's AES-GCM, GHASH
   * and SHA-256 intrinsics run only in C2-compiled callers; under C1 the cipher and the digest are
   * compiled Java, several times slower. So C2 compiles the JDK's cipher and digest code after a few
   * calls (at the default thresholds a short process encrypts and hashes much of a large payload before
   * their callers reach C2), and nothing else: C2 compiling the HTTP client and idem's own code costs a
   * large transfer more CPU than it saves. The young generation is 16 MiB: a transfer's garbage (TLS
   * records, request buffers) dies young, and a larger eden only grows the resident set. The heap starts
   * at 48 MiB and grows as the live set needs: started at the JVM's default (a 64th of the machine's
   * memory), the old generation filled with promoted garbage for the whole of a transfer before its first
   * full collection. The HTTP client reads a body 256 KiB at a time, not 16 KiB: each read is handed from
   * the client's selector thread to the reader, and at 16 KiB that hand-off cost a download a third of
   * its time. {@code bench/large-transfers.sh --sides idem,idem-jvm-defaults} measures them against the
   * JVM's defaults.
   */
  static final List<String> HASHING_FLAGS = List.of("-XX:Tier4InvocationThreshold=1000000",
      "-XX:Tier4MinInvocationThreshold=1000000", "-XX:Tier4CompileThreshold=1000000",
      "-XX:Tier4BackEdgeThreshold=100000000", "-XX:CompileCommand=quiet",
      "-XX:CompileCommand=CompileThresholdScaling,com/sun/crypto/provider/*.*,0.0005",
      "-XX:CompileCommand=CompileThresholdScaling,sun/security/provider/*.*,0.0005", "-Xmn16m", "-Xms48m",
      "-Djdk.httpclient.bufsize=262144");
  /**
   * What the launcher puts before {@link #HASHING_FLAGS} beside a JDK 25 AOT cache: its training,
   * recorded under C1 alone, is not replayed, since it would hold the cipher and digest code at C1.
   */
  static final List<String> WITH_C2 = List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:-AOTReplayTraining");
  private static final Set<String> HASHING_COMMANDS = Set.of("publish", "run", "get");
  private static final Set<String> COMMANDS = Set.of(CommandModels.NAMES);

  private JitRelaunch() {}

  /**
   * The command line to start again for {@code args}, from this process's own ({@code processArgs}: its
   * arguments after the java executable), or empty when {@code args} need no other JIT or the line cannot
   * be split into JVM options, the class or jar, and {@code args}.
   */
  static Optional<List<String>> commandLine(List<String> processArgs, String[] args) {
    if (!HASHING_COMMANDS.contains(command(args))) {
      return Optional.empty();
    }
    int target = processArgs.size() - args.length - 1;
    if (target < 0 || !processArgs.subList(target + 1, processArgs.size()).equals(List.of(args))) {
      return Optional.empty();
    }
    boolean jar = target > 0 && processArgs.get(target - 1).equals("-jar");
    int jvmEnd = jar ? target - 1 : target;
    // Without an AOT cache there is no training to leave out, and a JDK 17-24 runtime refuses the flag.
    boolean aotCache = processArgs.subList(0, jvmEnd).stream().anyMatch(o -> o.startsWith("-XX:AOTCache="));
    List<String> line = new ArrayList<>(aotCache ? WITH_C2 : List.of());
    line.addAll(HASHING_FLAGS);
    for (String option : processArgs.subList(0, jvmEnd)) {
      if (!option.equals(C1_ONLY) && !option.startsWith("-D" + PROPERTY + "=")) {
        line.add(option);
      }
    }
    line.addAll(processArgs.subList(jvmEnd, processArgs.size()));
    return Optional.of(line);
  }

  /** As bin/idem finds it: the first argument, or, when options come first, the first that names a command. */
  static String command(String[] args) {
    if (args.length == 0 || !args[0].startsWith("-")) {
      return args.length == 0 ? "" : args[0];
    }
    for (String arg : args) {
      if (arg.equals("--")) {
        break;
      }
      if (COMMANDS.contains(arg)) {
        return arg;
      }
    }
    return "";
  }

  /**
   * Runs {@code args} in a JVM with the launcher's JIT for them, when this one was asked to ({@value
   * #PROPERTY}{@code =per-command}) and they need another.
   *
   * @return the exit code of that JVM, or empty when {@code args} run here
   */
  static Optional<Integer> runIfNeeded(String[] args) {
    if (!"per-command".equals(System.getProperty(PROPERTY))) {
      return Optional.empty();
    }
    ProcessHandle.Info self = ProcessHandle.current().info();
    Optional<String> java = self.command();
    Optional<List<String>> line = self.arguments().flatMap(a -> commandLine(List.of(a), args));
    if (java.isEmpty() || line.isEmpty()) {
      return Optional.empty(); // no /proc to read the line from: run here, with C1
    }
    List<String> cmd = new ArrayList<>(line.get());
    cmd.add(0, java.get());
    Process child;
    try {
      child = new ProcessBuilder(cmd).inheritIO().start();
    } catch (IOException e) {
      return Optional.empty();
    }
    Thread passOn = new Thread(() -> {
      child.destroy();
      try {
        // The child's code, not this JVM's 143: a run that drained the SIGTERM (--on-term finish) exits with
        // its publish's code.
        Runtime.getRuntime().halt(child.waitFor());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "idem-jit-relaunch");
    Runtime.getRuntime().addShutdownHook(passOn);
    while (true) {
      try {
        return Optional.of(child.waitFor());
      } catch (InterruptedException e) {
        // Only a signal ends this wait: the hook passes it on.
      }
    }
  }
}
