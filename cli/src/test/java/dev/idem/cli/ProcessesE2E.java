package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar as real processes: racing replicas, SIGTERM, bad input. Runs after {@code package}
 * (surefire's e2e execution), with the jar's path in {@code idem.jar}; with {@code -Didem.binary=PATH}
 * the same tests run a native binary instead (the release workflow does, on every platform it ships).
 */
class ProcessesE2E {
  private static final Duration LIMIT = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  Path storeRoot;
  Path tmp;

  @BeforeEach
  void setUp() throws IOException {
    storeRoot = dir.resolve("store");
    tmp = Files.createDirectories(dir.resolve("tmp"));
  }

  record Done(int code, String out, String err) {
    String describe() {
      return "exit=" + code + "\n--- stdout ---\n" + out + "--- stderr ---\n" + err;
    }
  }

  /** Runs to the end; stdout and stderr are read from the files they were redirected to. */
  Done finish(Process p) throws Exception {
    if (!p.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("idem did not finish within " + LIMIT);
    }
    return new Done(p.exitValue(), read(p, "out"), read(p, "err"));
  }

  private final java.util.Map<Process, Path[]> outputs = new java.util.HashMap<>();

  /** A test that failed before it finished its processes leaves none running: idem, CMD or CMD's children. */
  @org.junit.jupiter.api.AfterEach
  void stopTracked() {
    for (Process p : outputs.keySet()) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
  }

  Process startTracked(String... args) throws IOException {
    Path out = dir.resolve("out-" + outputs.size());
    Path err = dir.resolve("err-" + outputs.size());
    List<String> cmd = new ArrayList<>(launcher());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().remove("IDEM_STORE");
    pb.environment().put("DIR", dir.toString());
    Process p = pb.start();
    outputs.put(p, new Path[] {out, err});
    return p;
  }

  /** The native binary when {@code idem.binary} names one, else the packaged jar on this JVM. */
  List<String> launcher() {
    String binary = System.getProperty("idem.binary", "");
    if (!binary.isEmpty()) {
      if (!Files.isExecutable(Path.of(binary))) {
        fail("idem.binary is not an executable file: " + binary);
      }
      // A native image reads -D options at run time like a JVM.
      return List.of(binary, "-Djava.io.tmpdir=" + tmp);
    }
    String jar = System.getProperty("idem.jar");
    if (jar == null || !Files.isRegularFile(Path.of(jar))) {
      fail("idem.jar not built: " + jar);
    }
    return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Djava.io.tmpdir=" + tmp, "-jar", jar);
  }

  private String read(Process p, String which) throws IOException {
    Path[] files = outputs.get(p);
    return Files.readString(which.equals("out") ? files[0] : files[1], StandardCharsets.UTF_8);
  }

  Done idem(String... args) throws Exception {
    return finish(startTracked(args));
  }

  String[] runArgs(String writer, String script) {
    return new String[] {"run", "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "3",
        "--store", "file:" + storeRoot, "--writer", writer, "--json", "--", "sh", "-c", script};
  }

  String key() throws Exception {
    return idem("key", "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "3").out().strip();
  }

  /** Waits for files a CMD creates: a condition, not a guess at how long something takes. */
  void awaitFiles(Path... files) throws InterruptedException {
    Instant deadline = Instant.now().plus(LIMIT);
    while (!Stream.of(files).allMatch(Files::exists)) {
      if (Instant.now().isAfter(deadline)) {
        fail("timed out waiting for " + List.of(files));
      }
      Thread.sleep(10);
    }
  }

  /** Waits for {@code text} on a running idem's stderr: it has reached that point (a wait, a drain). */
  void awaitErr(Process p, String text) throws Exception {
    Instant deadline = Instant.now().plus(LIMIT);
    while (!read(p, "err").contains(text)) {
      if (Instant.now().isAfter(deadline)) {
        fail("timed out waiting for '" + text + "' on stderr:\n" + read(p, "err"));
      }
      if (!p.isAlive()) {
        fail("idem ended before saying '" + text + "': exit=" + p.exitValue() + "\n" + read(p, "err"));
      }
      Thread.sleep(10);
    }
  }

  /** {@link #runArgs} with {@code flags} before the {@code --}. */
  String[] runArgs(String writer, String script, String... flags) {
    List<String> args = new ArrayList<>(List.of(runArgs(writer, script)));
    args.addAll(args.indexOf("--"), List.of(flags));
    return args.toArray(new String[0]);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> claimOf(Done d) {
    return (Map<String, Object>) MiniJson.object(d.out()).get("claim");
  }

  @SuppressWarnings("unchecked")
  static String claimantOf(Done d) {
    return (String) ((Map<String, Object>) claimOf(d).get("claimant")).get("writer");
  }

  /** A CMD that says it runs, waits for {@code go}, then writes {@code result}; and notes it ran. */
  static String blockingCmd(String name) {
    return "touch \"$DIR/ran." + name + "\"; while [ ! -e \"$DIR/go\" ]; do sleep 0.01; done; "
        + "printf result > \"$IDEM_OUTPUT\"";
  }

  @Test
  void claims_aReplicaFindingAFreshClaimWaitsAndSkipsNamingTheClaimant() throws Exception {
    Process a = startTracked(runArgs("host-a", blockingCmd("a")));
    awaitFiles(dir.resolve("ran.a"));
    Process b = startTracked(runArgs("host-b", blockingCmd("b"), "--claim-poll", "1s"));
    awaitErr(b, "idem: waiting for host-a's claim on " + key() + " (");
    Files.createFile(dir.resolve("go"));
    Done da = finish(a);
    Done db = finish(b);
    assertEquals(0, da.code(), da.describe());
    assertEquals("CREATED", MiniJson.object(da.out()).get("status"), da.describe());
    assertEquals("HELD", claimOf(da).get("status"), da.describe());
    assertEquals(0, db.code(), db.describe());
    assertEquals("SKIPPED", MiniJson.object(db.out()).get("status"), db.describe());
    assertEquals("WAITED_SKIPPED", claimOf(db).get("status"), db.describe());
    assertEquals("host-a", claimantOf(db), db.describe());
    assertTrue(((Number) claimOf(db).get("waited_ms")).longValue() > 0, db.describe());
    assertFalse(Files.exists(dir.resolve("ran.b")), "the waiting replica never ran CMD: " + db.describe());
  }

  @Test
  void claims_aClaimantKilledGoesStaleAndTheNextReplicaTakesOver() throws Exception {
    String script = "echo $$ > \"$DIR/a.pid\"; touch \"$DIR/running\"; while :; do sleep 0.05; done";
    Process a = startTracked(runArgs("host-a", script, "--claim-ttl", "2s"));
    awaitFiles(dir.resolve("running"));
    a.destroyForcibly(); // SIGKILL: no release, no signal to CMD; the claim is left to go stale
    finish(a);
    ProcessHandle.of(Long.parseLong(Files.readString(dir.resolve("a.pid")).strip()))
        .ifPresent(ProcessHandle::destroyForcibly);
    Done b = idem(runArgs("host-b", "printf result > \"$IDEM_OUTPUT\"", "--claim-ttl", "2s", "--claim-poll", "1s"));
    assertEquals(0, b.code(), b.describe());
    assertEquals("CREATED", MiniJson.object(b.out()).get("status"), b.describe());
    assertEquals("TAKEN_OVER", claimOf(b).get("status"), b.describe());
    assertEquals("host-a", claimantOf(b), b.describe());
    assertEquals("result", Files.readString(storeRoot.resolve(key())));
  }

  @Test
  void claims_noClaims_bothReplicasRun() throws Exception {
    Process a = startTracked(runArgs("host-a", blockingCmd("a")));
    awaitFiles(dir.resolve("ran.a"));
    Process b = startTracked(runArgs("host-b", blockingCmd("b"), "--no-claims"));
    awaitFiles(dir.resolve("ran.b"));
    Files.createFile(dir.resolve("go"));
    Done da = finish(a);
    Done db = finish(b);
    assertEquals(0, da.code(), da.describe());
    assertEquals(0, db.code(), db.describe());
    assertEquals("OFF", claimOf(db).get("status"), db.describe());
    Set<Object> statuses = new HashSet<>(List.of(MiniJson.object(da.out()).get("status"), MiniJson.object(db.out()).get("status")));
    assertEquals(Set.of("CREATED", "IDENTICAL"), statuses, da.describe() + db.describe());
  }

  /** A CMD that notes a SIGTERM it gets, says it runs, waits for {@code go}, then writes its result. */
  static final String DRAINED_CMD = "trap 'touch \"$DIR/cmd-got-term\"; exit 1' TERM; touch \"$DIR/running\"; "
      + "while [ ! -e \"$DIR/go\" ]; do sleep 0.05; done; printf drained > \"$IDEM_OUTPUT\"";

  @Test
  void drain_sigtermWithOnTermFinish_publishesCmdsResultAndExitsWithThePublishsCode() throws Exception {
    Process p = startTracked(runArgs("old-replica", DRAINED_CMD, "--on-term", "finish", "--drain-deadline", "60s"));
    awaitFiles(dir.resolve("running"));
    p.destroy(); // SIGTERM, what a rolling deployment sends the old replica
    awaitErr(p, "idem: SIGTERM: draining (--on-term finish)");
    Files.createFile(dir.resolve("go"));
    Done d = finish(p);
    assertEquals(0, d.code(), d.describe());
    assertEquals("CREATED", MiniJson.object(d.out()).get("status"), d.describe());
    assertEquals("HELD", claimOf(d).get("status"), d.describe());
    assertTrue(d.err().contains("idem: drained: CMD finished after SIGTERM and its result is CREATED at " + key()),
        d.describe());
    assertFalse(Files.exists(dir.resolve("cmd-got-term")), "CMD was not signalled: " + d.describe());
    assertEquals("drained", Files.readString(storeRoot.resolve(key())));
  }

  @Test
  void drain_pastTheDeadline_abortsExit143NothingPublished() throws Exception {
    Process p = startTracked(runArgs("old-replica", DRAINED_CMD, "--on-term", "finish", "--drain-deadline", "1s"));
    awaitFiles(dir.resolve("running"));
    p.destroy();
    Done d = finish(p);
    assertEquals(ExitCodes.INTERRUPTED_SIGTERM, d.code(), d.describe());
    assertTrue(d.err().contains("idem: the drain deadline (1s, --drain-deadline) passed"), d.describe());
    assertTrue(Files.exists(dir.resolve("cmd-got-term")), "CMD was stopped after the deadline: " + d.describe());
    assertFalse(Files.exists(storeRoot.resolve(key())), "nothing published: " + d.describe());
  }

  @Test
  void drain_aSecondSigtermAbortsAtOnce() throws Exception {
    Process p = startTracked(runArgs("old-replica", DRAINED_CMD, "--on-term", "finish", "--drain-deadline", "10m"));
    awaitFiles(dir.resolve("running"));
    p.destroy();
    awaitErr(p, "idem: SIGTERM: draining (--on-term finish)");
    p.destroy();
    Done d = finish(p);
    assertEquals(ExitCodes.INTERRUPTED_SIGTERM, d.code(), d.describe());
    assertTrue(Files.exists(dir.resolve("cmd-got-term")), "CMD was stopped: " + d.describe());
    assertFalse(Files.exists(storeRoot.resolve(key())), "nothing published: " + d.describe());
  }

  @Test
  void drain_aSigintAbortsAtOnce() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeFalse(sigintIgnored(),
        "SIGINT is ignored here (a background job of a non-interactive shell): idem inherits that, as every "
            + "program does, and never receives it");
    Process p = startTracked(runArgs("old-replica", DRAINED_CMD, "--on-term", "finish", "--drain-deadline", "10m"));
    awaitFiles(dir.resolve("running"));
    p.destroy();
    awaitErr(p, "idem: SIGTERM: draining (--on-term finish)");
    Process kill = new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).inheritIO().start();
    assertEquals(0, kill.waitFor(), "kill -INT");
    Done d = finish(p);
    assertEquals(ExitCodes.INTERRUPTED_SIGINT, d.code(), d.describe());
    assertTrue(Files.exists(dir.resolve("cmd-got-term")), "CMD was stopped: " + d.describe());
    assertFalse(Files.exists(storeRoot.resolve(key())), "nothing published: " + d.describe());
  }

  /** Whether this JVM, and so every process it starts, ignores SIGINT (bit 2 of /proc's SigIgn mask). */
  private static boolean sigintIgnored() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("SigIgn:")) {
        return (Long.parseLong(line.substring("SigIgn:".length()).trim(), 16) & (1L << 1)) != 0;
      }
    }
    return false;
  }

  @Test
  void drain_sigtermWhileWaitingForAClaim_exits143WithoutStartingCmd() throws Exception {
    Process a = startTracked(runArgs("host-a", blockingCmd("a")));
    awaitFiles(dir.resolve("ran.a"));
    Process b = startTracked(runArgs("host-b", blockingCmd("b"), "--on-term", "finish", "--claim-poll", "1s"));
    awaitErr(b, "idem: waiting for host-a's claim on ");
    b.destroy();
    Done db = finish(b);
    assertEquals(ExitCodes.INTERRUPTED_SIGTERM, db.code(), db.describe());
    assertFalse(Files.exists(dir.resolve("ran.b")), "CMD never started: " + db.describe());
    Files.createFile(dir.resolve("go"));
    Done da = finish(a);
    assertEquals(0, da.code(), da.describe());
  }

  @Test
  void twoReplicasRacing_oneCreatedTheOtherIdentical() throws Exception {
    // Each CMD announces it is running, then waits for "go": both replicas are past the skip check
    // and produce before either publishes, so both reach the create-only put. Without claims: with them,
    // the second would wait for the first's object instead of running (the claims_ tests).
    String script = "touch \"$DIR/ready.$0\"; while [ ! -e \"$DIR/go\" ]; do sleep 0.01; done; "
        + "printf 'same bytes' > \"$IDEM_OUTPUT\"";
    Process a = startTracked(concat(runArgs("old-replica", script, "--no-claims"), "a"));
    Process b = startTracked(concat(runArgs("new-replica", script, "--no-claims"), "b"));
    awaitFiles(dir.resolve("ready.a"), dir.resolve("ready.b"));
    Files.createFile(dir.resolve("go"));
    Done da = finish(a);
    Done db = finish(b);
    assertEquals(0, da.code(), da.describe());
    assertEquals(0, db.code(), db.describe());
    Set<Object> statuses = new HashSet<>(List.of(MiniJson.object(da.out()).get("status"), MiniJson.object(db.out()).get("status")));
    assertEquals(Set.of("CREATED", "IDENTICAL"), statuses, da.describe() + db.describe());
    assertEquals("same bytes", Files.readString(storeRoot.resolve(key())));
    Done scan = idem("scan", "--store", "file:" + storeRoot);
    assertEquals(0, scan.code(), scan.describe());
    assertEquals("scanned prefix= divergent_keys=0\n", scan.out(), scan.describe());

    Done third = idem(concat(runArgs("late-replica", "touch \"$DIR/third-ran\"; printf x > \"$IDEM_OUTPUT\""), "c"));
    assertEquals(0, third.code(), third.describe());
    assertEquals("SKIPPED", MiniJson.object(third.out()).get("status"), third.describe());
    assertFalse(Files.exists(dir.resolve("third-ran")), "a replica that finds the key published never runs CMD");
  }

  @Test
  void sigterm_isForwardedToCmdNothingIsPublishedAndIdemExits143() throws Exception {
    String script = "trap 'echo term > \"$DIR/cmd-got-term\"; exit 0' TERM; printf partial > \"$IDEM_OUTPUT\"; "
        + "touch \"$DIR/running\"; while :; do sleep 0.05; done";
    Process p = startTracked(runArgs("doomed", script));
    awaitFiles(dir.resolve("running"));
    p.destroy(); // SIGTERM, what a rolling deployment sends the old replica
    Done d = finish(p);
    assertEquals(ExitCodes.INTERRUPTED_SIGTERM, d.code(), d.describe());
    assertTrue(Files.exists(dir.resolve("cmd-got-term")), "CMD received SIGTERM: " + d.describe());
    assertFalse(Files.exists(storeRoot.resolve(key())), "nothing published: " + d.describe());
    try (Stream<Path> left = Files.list(tmp)) {
      assertEquals(List.of(), left.toList(), "the temporary output was removed");
    }
    Done get = idem("get", "--pipeline", "p", "--store", "file:" + storeRoot);
    assertEquals(ExitCodes.NOT_FOUND, get.code(), get.describe());
  }

  @Test
  void sigterm_cmdIgnoringItIsKilledAfterTheGrace() throws Exception {
    String script = "trap '' TERM; touch \"$DIR/running\"; while :; do sleep 0.05; done";
    String[] args = runArgs("stubborn", script);
    List<String> withGrace = new ArrayList<>(List.of(args));
    withGrace.add(withGrace.indexOf("--"), "--grace");
    withGrace.add(withGrace.indexOf("--"), "1s");
    Process p = startTracked(withGrace.toArray(new String[0]));
    awaitFiles(dir.resolve("running"));
    p.destroy();
    Done d = finish(p);
    assertEquals(ExitCodes.INTERRUPTED_SIGTERM, d.code(), d.describe());
    assertFalse(Files.exists(storeRoot.resolve(key())), d.describe());
  }

  @Test
  void cmdFailure_passesItsExitCode() throws Exception {
    Done d = idem(runArgs("w", "exit 9"));
    assertEquals(9, d.code(), d.describe());
    // The writable check before CMD proved the store and made its directories: the marker is the only
    // file, so nothing is published (no object, record or pointer).
    try (Stream<Path> files = Files.walk(storeRoot)) {
      assertEquals(List.of(Path.of("_idem/store")),
          files.filter(Files::isRegularFile).map(storeRoot::relativize).toList(), d.describe());
    }
  }

  @Test
  void badInput_oneLineDocumentedCodeNothingWritten() throws Exception {
    Path notADir = Files.writeString(dir.resolve("plain"), "x");
    List<Object[]> cases = List.of(
        new Object[] {ExitCodes.USAGE, new String[] {"key", "--pipeline", "p", "--window", "60s", "--schema", "1", "--bogus"}},
        new Object[] {ExitCodes.USAGE, new String[] {"scan", "--store", "webdav://x"}},
        new Object[] {ExitCodes.USAGE, new String[] {"publish", "--file", dir.resolve("missing").toString(), "--pipeline", "p",
            "--window", "60s", "--schema", "1", "--store", "file:" + storeRoot}},
        new Object[] {ExitCodes.STORE_UNAVAILABLE, new String[] {"publish", "--file", notADir.toString(), "--pipeline", "p",
            "--window", "60s", "--schema", "1", "--store", "file:" + notADir}});
    for (Object[] c : cases) {
      Done d = idem((String[]) c[1]);
      assertEquals(c[0], d.code(), d.describe());
      assertEquals(1, d.err().split("\n").length, d.describe());
      assertEquals("", d.out(), d.describe());
    }
    assertFalse(Files.exists(storeRoot), "nothing written");
    assertFalse(Files.exists(dir.resolve(".idem")), "nothing written to the default store");
  }

  @Test
  void demo_runsAndExits0() throws Exception {
    Done d = idem("demo");
    assertEquals(0, d.code(), d.describe());
    assertTrue(d.out().contains("divergent_keys=1"), d.describe());
  }

  static String[] concat(String[] a, String... b) {
    List<String> l = new ArrayList<>(List.of(a));
    l.addAll(List.of(b));
    return l.toArray(new String[0]);
  }
}
