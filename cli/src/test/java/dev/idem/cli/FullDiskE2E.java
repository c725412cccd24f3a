package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code idem run} on a store that really is small: a tmpfs of a few MiB, mounted for the one idem
 * process in a mount namespace of its own ({@code unshare}), so it disappears with the process and
 * nothing is left mounted whatever happens to the test. Needs {@code unshare} and a kernel that lets
 * this user make a mount namespace (root does; others need unprivileged user namespaces); skipped,
 * saying so, where it cannot.
 */
class FullDiskE2E {
  @TempDir
  Path dir;

  Path small;
  Path tmp;
  Path ran;

  record Done(int code, String out, String err) {
    String describe() {
      return "exit=" + code + "\n--- stdout ---\n" + out + "--- stderr ---\n" + err;
    }
  }

  @BeforeEach
  void setUp() throws Exception {
    small = Files.createDirectories(dir.resolve("small"));
    tmp = Files.createDirectories(dir.resolve("tmp"));
    ran = dir.resolve("ran");
    Process probe = new ProcessBuilder("unshare", "--map-root-user", "--mount", "sh", "-c",
        "mount -t tmpfs -o size=1m tmpfs \"$0\"", small.toString()).redirectErrorStream(true).start();
    String why = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    Assumptions.assumeTrue(probe.waitFor(30, TimeUnit.SECONDS) && probe.exitValue() == 0,
        "cannot mount a tmpfs in a private mount namespace here (unshare --map-root-user --mount): " + why);
  }

  /** idem with its store on a fresh tmpfs of {@code size} at {@code small}, in its own mount namespace. */
  Done idemOnTmpfs(String size, String... args) throws Exception {
    return idemOnTmpfs(size, tmp, null, args);
  }

  /**
   * The same, with {@code java.io.tmpdir} at {@code tmpdir} and stdin from {@code stdin}: a file (a
   * {@link Path}), the bytes written into a pipe (a {@code byte[]}), or none (null).
   */
  Done idemOnTmpfs(String size, Path tmpdir, Object stdin, String... args) throws Exception {
    String jar = System.getProperty("idem.jar");
    if (jar == null || !Files.isRegularFile(Path.of(jar))) {
      fail("idem.jar not built: " + jar);
    }
    List<String> cmd = new ArrayList<>(List.of("unshare", "--map-root-user", "--mount", "sh", "-c",
        "mount -t tmpfs -o size=" + size + " tmpfs \"$0\" && shift && exec \"$@\"", small.toString(), "-",
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC", "-Djava.io.tmpdir=" + tmpdir, "-jar", jar));
    cmd.addAll(List.of(args));
    Path out = dir.resolve("out");
    Path err = dir.resolve("err");
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(out.toFile())
        .redirectError(err.toFile());
    if (stdin instanceof Path file) {
      pb.redirectInput(file.toFile());
    }
    pb.environment().remove("IDEM_STORE");
    Process p = pb.start();
    if (stdin instanceof byte[] bytes) {
      Thread feed = new Thread(() -> {
        try (var pipe = p.getOutputStream()) {
          pipe.write(bytes);
        } catch (IOException e) {
          // idem stopped reading (its spool failed): what it says is what the test checks
        }
      });
      feed.start();
    } else {
      p.getOutputStream().close();
    }
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("idem did not finish within 120 s");
    }
    return new Done(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  String[] run(String script, String... extra) {
    List<String> a = new ArrayList<>(List.of("run", "--store", "file:" + small.resolve("store"), "--pipeline", "p",
        "--window", "60s", "--at", "1726000030", "--schema", "3", "--writer", "w"));
    a.addAll(List.of(extra));
    a.addAll(List.of("--", "sh", "-c", "touch '" + ran + "'; " + script));
    return a.toArray(new String[0]);
  }

  @Test
  void run_storeOnAFilesystemWithLessThanTheReserve_cmdNeverRuns() throws Exception {
    // 1 MiB in all: the writability check's empty file fits, a result of any size might not.
    Done d = idemOnTmpfs("1m", run("printf rows > \"$IDEM_OUTPUT\""));

    assertEquals(ExitCodes.STORE_UNAVAILABLE, d.code(), d.describe());
    assertFalse(Files.exists(ran), "CMD ran on a store without room: " + d.describe());
    assertTrue(d.err().startsWith("idem run: file:" + small.resolve("store") + " has "), d.describe());
    assertTrue(d.err().contains("less than the reserve of 16.0 MiB required before the task runs; the task was not run"),
        d.describe());
  }

  @Test
  void run_resultLargerThanTheStoresFreeSpace_refusedBeforeWritingAndKept() throws Exception {
    // 20 MiB passes the 16 MiB reserve; CMD then writes 24 MiB (into $TMPDIR, not the store).
    Done d = idemOnTmpfs("20m", run("head -c 25165824 /dev/zero > \"$IDEM_OUTPUT\"", "--json"));

    assertEquals(ExitCodes.STORE_UNAVAILABLE, d.code(), d.describe());
    assertTrue(Files.exists(ran), d.describe());
    Path kept = Path.of((String) MiniJson.object(d.out()).get("kept_result"));
    assertTrue(kept.startsWith(tmp), "kept in the run's temporary directory: " + d.describe());
    assertEquals(25_165_824L, Files.size(kept), d.describe());
    assertTrue(d.err().contains("the result is 24.0 MiB; nothing was written"), d.describe());
    assertTrue(d.err().contains("; CMD's result is kept at " + kept), d.describe());

    Done again = idemOnTmpfs("30m", "publish", "--store", "file:" + small.resolve("store"), "--file",
        kept.toString(), "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "3");
    assertEquals(0, again.code(), "the kept result publishes where there is room: " + again.describe());
  }

  @Test
  void publish_fileLargerThanTheStoresFreeSpace_refusedWithoutNoSpaceLeftHalfWay() throws IOException, Exception {
    Path big = dir.resolve("big");
    try (var out = Files.newOutputStream(big)) {
      out.write(new byte[3 * 1024 * 1024]);
    }
    Done d = idemOnTmpfs("2m", "publish", "--store", "file:" + small.resolve("store"), "--file", big.toString(),
        "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "3");

    assertEquals(ExitCodes.STORE_UNAVAILABLE, d.code(), d.describe());
    assertTrue(d.err().contains("the result is 3.0 MiB; nothing was written"), d.describe());
    assertFalse(d.err().contains("No space left on device"), d.describe());
  }

  @Test
  void publishStdin_pipeAndTemporaryDirectoryFull_namesItNotTheStore() throws Exception {
    Path store = dir.resolve("roomy-store");
    Done d = idemOnTmpfs("2m", small, new byte[3 * 1024 * 1024], "publish", "--store", "file:" + store, "--file", "-",
        "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "3");

    assertEquals(ExitCodes.STORE_UNAVAILABLE, d.code(), d.describe());
    assertTrue(d.err().startsWith("idem publish: cannot write the temporary file " + small.resolve("idem-publish-")),
        d.describe());
    assertTrue(d.err().contains("TMPDIR") && d.err().contains("No space left on device"), d.describe());
    assertFalse(d.err().contains("(store "), "a full local disk is not the store's failure: " + d.describe());
  }

  @Test
  void publishStdin_aFileRedirected_readInPlace_noSpool() throws Exception {
    Path store = dir.resolve("roomy-store");
    Done d = idemOnTmpfs("1m", small, zeros(3), "publish", "--store", "file:" + store, "--file", "-",
        "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "3");

    assertEquals(0, d.code(), "a file on stdin needs no room in TMPDIR: " + d.describe());
    assertTrue(d.out().startsWith("CREATED "), d.describe());
    assertTrue(d.out().contains(" size=3145728 "), d.describe());
  }

  @Test
  void getToStdout_temporaryDirectoryTooSmall_refusedNamingIt_beforeFetching() throws Exception {
    Path store = dir.resolve("roomy-store");
    String[] spec = {"--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "3"};
    Done published = idemOnTmpfs("1m", publishArgs(store, zeros(3), spec));
    assertEquals(0, published.code(), published.describe());

    Done d = idemOnTmpfs("2m", small, null, "get", "--store", "file:" + store, "--pipeline", "p");

    assertEquals(ExitCodes.STORE_UNAVAILABLE, d.code(), d.describe());
    assertEquals("", d.out(), "nothing reaches stdout: " + d.describe());
    assertTrue(d.err().startsWith("idem get: the temporary directory " + small + " (java.io.tmpdir; bin/idem sets it "
        + "from TMPDIR) has "), d.describe());
    assertTrue(d.err().contains("too little for the object (3.0 MiB)") && d.err().contains("-o FILE"), d.describe());
    assertFalse(d.err().contains("(store "), d.describe());
  }

  private String[] publishArgs(Path store, Path file, String... spec) {
    List<String> a = new ArrayList<>(List.of("publish", "--store", "file:" + store, "--file", file.toString()));
    a.addAll(List.of(spec));
    return a.toArray(new String[0]);
  }

  private Path zeros(int mib) throws IOException {
    Path f = dir.resolve("zeros-" + mib);
    try (var out = Files.newOutputStream(f)) {
      out.write(new byte[mib * 1024 * 1024]);
    }
    return f;
  }
}
