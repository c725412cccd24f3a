package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import dev.idem.store.fs.FsObjectStore;
import dev.idem.store.fs.ForwardingOps;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code idem run} in-process, with real CMD processes (sh). */
class RunCommandTest {
  @TempDir
  Path dir;

  Path storeRoot;
  Path marker;

  @BeforeEach
  void setUp() {
    storeRoot = dir.resolve("store");
    marker = dir.resolve("ran");
  }

  Cli.Result run(List<String> extra, String script) {
    List<String> a = new ArrayList<>(List.of("run", "--pipeline", "p", "--window", "60s", "--at", "1726000030",
        "--schema", "3", "--store", "file:" + storeRoot, "--writer", "test"));
    a.addAll(extra);
    a.addAll(List.of("--", "sh", "-c", "echo x >> '" + marker + "'; " + script));
    return new Cli().run(a.toArray(new String[0]));
  }

  String key() {
    return new Cli().run("key", "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "3").out().strip();
  }

  int runs() throws Exception {
    return Files.exists(marker) ? Files.readAllLines(marker).size() : 0;
  }

  @Test
  void run_publishesWhatCmdWroteToIdemOutput() throws Exception {
    Cli.Result r = run(List.of(), "printf 'result' > \"$IDEM_OUTPUT\"");
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.out().startsWith("CREATED " + key() + " size=6 "), r.describe());
    assertEquals("result", Files.readString(storeRoot.resolve(key())));
    assertEquals(1, runs());
  }

  @Test
  void run_skipsCmdWhenAlreadyPublished() throws Exception {
    run(List.of(), "printf 'result' > \"$IDEM_OUTPUT\"");
    Cli.Result again = run(List.of(), "printf 'other' > \"$IDEM_OUTPUT\"");
    assertEquals(0, again.code(), again.describe());
    assertTrue(again.out().startsWith("SKIPPED " + key()), again.describe());
    assertTrue(again.out().contains("task not run"), again.describe());
    assertEquals(1, runs(), "CMD ran once");
  }

  @Test
  void run_passesTheSpecInTheEnvironment() throws Exception {
    Cli.Result r = run(List.of("--stdout"),
        "echo \"$IDEM_KEY $IDEM_PIPELINE $IDEM_WINDOW_START $IDEM_WINDOW_END $IDEM_WINDOW_LENGTH $IDEM_SCHEMA ${IDEM_OUTPUT:-none}\"");
    assertEquals(0, r.code(), r.describe());
    assertEquals(key() + " p 1725999960 1726000020 60 3 none\n", Files.readString(storeRoot.resolve(key())), r.describe());
  }

  @Test
  void run_cmdStdoutIsCopiedButNotPublished() throws Exception {
    Cli.Result r = run(List.of(), "echo hello from cmd; printf r > \"$IDEM_OUTPUT\"");
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.out().startsWith("hello from cmd\nCREATED "), r.describe());
    Cli.Result json = new Cli().run("run", "--pipeline", "q", "--window", "60s", "--schema", "1", "--store", "file:" + storeRoot,
        "--json", "--", "sh", "-c", "echo chatter; printf r > \"$IDEM_OUTPUT\"");
    assertEquals(0, json.code(), json.describe());
    assertEquals("CREATED", MiniJson.object(json.out()).get("status"), "stdout holds only the report: " + json.describe());
    assertTrue(json.err().contains("chatter"), json.describe());
  }

  @Test
  void run_cmdFailingPublishesNothingAndPassesItsCode() throws Exception {
    Cli.Result r = run(List.of(), "printf partial > \"$IDEM_OUTPUT\"; exit 42");
    assertEquals(42, r.code(), r.describe());
    assertTrue(r.err().contains("CMD exited with code 42; nothing published"), r.describe());
    assertFalse(Files.exists(storeRoot.resolve(key())), r.describe());
    Cli.Result json = run(List.of("--json"), "exit 3");
    assertEquals(3, json.code(), json.describe());
    Map<String, Object> j = MiniJson.object(json.out());
    assertEquals("TASK_FAILED", j.get("status"));
    assertEquals(3L, j.get("exit_code"));
  }

  @Test
  void run_cmdKilledByASignal_namesTheSignal() throws Exception {
    Cli.Result r = run(List.of(), "kill -KILL $$");
    assertEquals(137, r.code(), "the status passes through as a shell reports it: " + r.describe());
    assertEquals("idem run: CMD was killed by SIGKILL (signal 9, exit status 137); nothing published for " + key()
        + "\n", r.err(), r.describe());
    Cli.Result json = run(List.of("--json"), "kill -TERM $$");
    assertEquals(143, json.code(), json.describe());
    Map<String, Object> j = MiniJson.object(json.out());
    assertEquals(143L, j.get("exit_code"), json.describe());
    assertEquals("SIGTERM", j.get("signal"), json.describe());
  }

  @Test
  void run_cmdExitOption_mapsEveryCmdFailureToOneCode() throws Exception {
    Cli.Result r = run(List.of("--cmd-exit", "100"), "exit 4");
    assertEquals(100, r.code(), "CMD's 4 would read as 'store unavailable': " + r.describe());
    assertEquals("idem run: CMD exited with code 4; nothing published for " + key() + " (idem exits 100: --cmd-exit)\n",
        r.err(), r.describe());
    Cli.Result json = run(List.of("--cmd-exit", "100", "--json"), "exit 4");
    assertEquals(100, json.code(), json.describe());
    Map<String, Object> j = MiniJson.object(json.out());
    assertEquals(4L, j.get("exit_code"), "CMD's own code stays in the report: " + json.describe());
    assertEquals(100L, j.get("idem_exit_code"), json.describe());
    Cli.Result pass = run(List.of("--cmd-exit", "pass"), "exit 4");
    assertEquals(4, pass.code(), pass.describe());
    for (String bad : List.of("0", "256", "x")) {
      Cli.Result b = run(List.of("--cmd-exit", bad), "exit 4");
      assertEquals(ExitCodes.USAGE, b.code(), b.describe());
      assertTrue(b.err().contains("--cmd-exit"), b.describe());
    }
    assertEquals(0, run(List.of("--cmd-exit", "100"), "printf r > \"$IDEM_OUTPUT\"").code(), "success is 0");
  }

  @Test
  void run_cmdWritingNoResultIsTaskFailed() throws Exception {
    Cli.Result r = run(List.of(), "true");
    assertEquals(ExitCodes.TASK_FAILED, r.code(), r.describe());
    assertTrue(r.err().contains("wrote nothing to $IDEM_OUTPUT"), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
    assertFalse(Files.exists(storeRoot.resolve(key())), r.describe());
  }

  @Test
  void run_cmdThatCannotStartIsTaskFailed() {
    Cli.Result r = new Cli().run("run", "--pipeline", "p", "--window", "60s", "--schema", "3", "--store", "file:" + storeRoot,
        "--", dir.resolve("no-such-program").toString());
    assertEquals(ExitCodes.TASK_FAILED, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
  }

  @Test
  void run_emptyStdout_refusedExit6NothingPublished() throws Exception {
    Cli.Result r = run(List.of("--stdout"), "true");
    assertEquals(ExitCodes.TASK_FAILED, r.code(), r.describe());
    assertEquals("idem run: CMD exited 0 but its result is empty (0 bytes); nothing published for " + key()
        + " (pass --allow-empty if an empty result is a result)\n", r.err(), r.describe());
    assertFalse(Files.exists(storeRoot.resolve(key())), r.describe());
    assertFalse(Files.exists(storeRoot.resolve("_idem/pointers/p/latest")), "pointer untouched");
  }

  @Test
  void run_truncatedIdemOutput_refusedExit6() throws Exception {
    Cli.Result r = run(List.of(), ": > \"$IDEM_OUTPUT\"");
    assertEquals(ExitCodes.TASK_FAILED, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
    assertFalse(Files.exists(storeRoot.resolve(key())), r.describe());
  }

  @Test
  void run_emptyStdoutWithAllowEmpty_published() throws Exception {
    Cli.Result r = run(List.of("--stdout", "--allow-empty"), "true");
    assertEquals(0, r.code(), r.describe());
    assertEquals(0, Files.size(storeRoot.resolve(key())));
    assertTrue(r.out().contains("pointer=ADVANCED"), r.describe());
  }

  @Test
  void run_futureWindow_refusedExit2BeforeCmdRuns() throws Exception {
    Cli.Result r = new Cli().clock(java.time.Clock.fixed(java.time.Instant.parse("2026-12-02T12:00:00Z"), java.time.ZoneOffset.UTC))
        .run("run", "--pipeline", "p", "--window", "60s", "--at", "2099-01-01T00:01:30Z", "--schema", "3",
            "--store", "file:" + storeRoot, "--", "sh", "-c", "echo x >> '" + marker + "'; echo r > \"$IDEM_OUTPUT\"");
    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    assertEquals("idem run: window 2099-01-01T00:00:00Z..+60s has not closed yet (ends 72 years from now; "
        + "allowed clock skew 5m): refusing to publish a future window\n", r.err(), r.describe());
    assertEquals(0, runs(), "CMD must not run");
    assertFalse(Files.exists(storeRoot), "nothing written, not even the store root");
  }

  @Test
  void run_windowWithinMaxClockSkew_runs() throws Exception {
    // The clock says 20:26:50; the window ends at 20:27:00, 10 s ahead: a replica with a slow clock.
    Cli.Result r = new Cli().clock(java.time.Clock.fixed(java.time.Instant.ofEpochSecond(1726000010L), java.time.ZoneOffset.UTC))
        .run("run", "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "3", "--max-clock-skew", "10s",
            "--store", "file:" + storeRoot, "--stdout", "--", "echo", "r");
    assertEquals(0, r.code(), r.describe());
    Cli.Result tight = new Cli().clock(java.time.Clock.fixed(java.time.Instant.ofEpochSecond(1726000010L), java.time.ZoneOffset.UTC))
        .run("run", "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "3", "--max-clock-skew", "9s",
            "--store", "file:" + storeRoot, "--stdout", "--", "echo", "r");
    assertEquals(ExitCodes.USAGE, tight.code(), tight.describe());
  }

  @Test
  void run_commandWithoutDashDashKeepsItsOwnFlags() throws Exception {
    Cli.Result r = new Cli().run("run", "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "3",
        "--store", "file:" + storeRoot, "--stdout", "sh", "-c", "echo --json --store");
    assertEquals(0, r.code(), r.describe());
    assertEquals("--json --store\n", Files.readString(storeRoot.resolve(key()), StandardCharsets.UTF_8));
  }

  @Test
  void run_divergentResultExits1() throws Exception {
    run(List.of("--stdout"), "echo one");
    Path f = Files.writeString(dir.resolve("two"), "two\n");
    Cli.Result r = new Cli().run("publish", "--file", f.toString(), "--pipeline", "p", "--window", "60s", "--at", "1726000030",
        "--schema", "3", "--store", "file:" + storeRoot);
    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
  }

  /**
   * What a read-only mount answers to every create: tests run as root, for whom permission bits do not
   * stop a write, so the refusal is injected at the store's filesystem seam.
   */
  static ForwardingOps readOnly() {
    return new ForwardingOps() {
      @Override
      public FileChannel createNew(Path file) throws IOException {
        throw refused(file);
      }

      @Override
      public FileChannel openLockFile(Path file) throws IOException {
        throw refused(file);
      }

      @Override
      public void createLink(Path link, Path existing) throws IOException {
        throw refused(link);
      }

      @Override
      public void createDirectory(Path dir) throws IOException {
        throw refused(dir);
      }

      private FileSystemException refused(Path p) {
        return new FileSystemException(p.toString(), null, "Read-only file system");
      }
    };
  }

  @Test
  void run_readOnlyStore_exit4BeforeCmdRuns() throws Exception {
    Files.createDirectories(storeRoot);
    Cli.Result r = new Cli().opener(uri -> readOnly().openStore(storeRoot, FsObjectStore.Options.defaults()))
        .run("run", "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "3", "--writer", "test",
            "--store", "file:" + storeRoot, "--", "sh", "-c", "echo x >> '" + marker + "'; echo r > \"$IDEM_OUTPUT\"");
    assertEquals(ExitCodes.STORE_UNAVAILABLE, r.code(), r.describe());
    assertEquals("idem run: " + storeRoot.toRealPath().resolve("_idem") + ": Read-only file system\n", r.err(), r.describe());
    assertEquals(0, runs(), "CMD must not run when its result could not be stored");
  }

  /** The store's filesystem as one with {@code free} bytes left (the real one otherwise). */
  static ForwardingOps withFree(long free) {
    return new ForwardingOps() {
      @Override
      public long usableSpace(Path path) {
        return free;
      }
    };
  }

  Cli.Result runOn(ForwardingOps ops, String... extraThenScript) throws Exception {
    Files.createDirectories(storeRoot);
    List<String> a = new ArrayList<>(List.of("run", "--pipeline", "p", "--window", "60s", "--at", "1726000030",
        "--schema", "3", "--writer", "test", "--store", "file:" + storeRoot));
    a.addAll(List.of(extraThenScript).subList(0, extraThenScript.length - 1));
    a.addAll(List.of("--", "sh", "-c", "echo x >> '" + marker + "'; " + extraThenScript[extraThenScript.length - 1]));
    return new Cli().opener(uri -> ops.openStore(storeRoot, FsObjectStore.Options.defaults()))
        .run(a.toArray(new String[0]));
  }

  @Test
  void run_storeFullerThanTheReserve_exit4BeforeCmdRuns() throws Exception {
    Cli.Result r = runOn(withFree(4096), "printf r > \"$IDEM_OUTPUT\"");
    assertEquals(ExitCodes.STORE_UNAVAILABLE, r.code(), r.describe());
    assertEquals(0, runs(), "a full store costs no CMD run: " + r.describe());
    assertTrue(r.err().startsWith("idem run: file:" + storeRoot.toRealPath() + " has 4.0 KiB free, less than the "
        + "reserve of 16.0 MiB required before the task runs; the task was not run"), r.describe());
    assertTrue(r.err().contains("--min-free"), r.describe());
    Cli.Result lower = runOn(withFree(4096), "--min-free", "1K", "printf r > \"$IDEM_OUTPUT\"");
    assertEquals(0, lower.code(), "--min-free sets the reserve: " + lower.describe());
  }

  @Test
  void run_resultLargerThanTheFreeSpace_refusedBeforeWritingAndTheResultKept() throws Exception {
    Cli.Result r = runOn(withFree(100), "--min-free", "0", "--json", "head -c 200 /dev/zero > \"$IDEM_OUTPUT\"");
    assertEquals(ExitCodes.STORE_UNAVAILABLE, r.code(), r.describe());
    assertEquals(1, runs());
    assertFalse(Files.exists(storeRoot.resolve(key())), r.describe());
    Map<String, Object> j = MiniJson.object(r.out());
    Path kept = Path.of((String) j.get("kept_result"));
    try {
      assertEquals(200, Files.size(kept), "CMD's result is kept where the error says: " + r.describe());
      assertTrue(((String) j.get("message")).contains("the result is 200 bytes"), r.describe());
      assertTrue(r.err().contains("; CMD's result is kept at " + kept + " ("), r.describe());
      assertEquals(1, r.errLines().length, r.describe());
    } finally {
      deleteKept(kept);
    }
  }

  @Test
  void run_publishFailsAfterCmdSucceeded_theResultIsKeptAndSaidSo() throws Exception {
    Files.createDirectories(storeRoot);
    Cli.Result r = new Cli().opener(uri -> new dev.idem.core.testing.ForwardingObjectStore(FsObjectStore.open(storeRoot)) {
      @Override
      public dev.idem.core.store.PutOutcome putIfAbsent(String key, dev.idem.core.store.Payload payload, String w)
          throws java.io.IOException {
        throw new java.io.IOException(storeRoot + "/p/.tmp-state: No space left on device");
      }
    }).run("run", "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "3", "--store",
        "file:" + storeRoot, "--", "sh", "-c", "printf 'three minutes of work' > \"$IDEM_OUTPUT\"");
    assertEquals(ExitCodes.STORE_UNAVAILABLE, r.code(), r.describe());
    String prefix = "; CMD's result is kept at ";
    assertTrue(r.err().startsWith("idem run: " + storeRoot + "/p/.tmp-state: No space left on device" + prefix), r.describe());
    String rest = r.err().substring(r.err().indexOf(prefix) + prefix.length());
    Path kept = Path.of(rest.substring(0, rest.indexOf(' ')));
    try {
      assertEquals("three minutes of work", Files.readString(kept), r.describe());
      assertTrue(rest.contains("idem publish --file " + kept), "says how to publish it: " + r.describe());
    } finally {
      deleteKept(kept);
    }
  }

  private static void deleteKept(Path kept) throws java.io.IOException {
    Files.deleteIfExists(kept);
    Files.deleteIfExists(kept.getParent());
  }

  @Test
  void run_noTemporaryDirectoryPossible_taskFailedNamingTmpdir_cmdNotRun_nothingPublished() throws Exception {
    Path missing = dir.resolve("no-such-tmp");
    String before = System.getProperty("java.io.tmpdir");
    Cli.Result r;
    System.setProperty("java.io.tmpdir", missing.toString());
    try {
      r = run(List.of("--stdout"), "echo rows");
    } finally {
      System.setProperty("java.io.tmpdir", before);
    }

    assertEquals(ExitCodes.TASK_FAILED, r.code(), r.describe());
    assertTrue(r.err().contains("cannot create a temporary directory in " + missing
        + " (java.io.tmpdir; bin/idem sets it from TMPDIR)"), r.describe());
    assertEquals(1, r.err().strip().lines().count(), r.describe());
    assertEquals(0, runs(), "CMD did not run");
    assertFalse(Files.exists(storeRoot.resolve(key())), r.describe());
  }
}
