package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.fs.FsObjectStore;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code idem pointer rewind}: the one way backwards, and where its record shows. */
class PointerRewindTest {
  @TempDir
  Path dir;

  String store;

  @BeforeEach
  void setUp() {
    store = "file:" + dir.resolve("store");
  }

  /** Publishes {@code content} for window {@code n} (60 s windows from 1726000000). */
  void publish(int n, String content) throws Exception {
    Path f = Files.writeString(Files.createTempFile(dir, "payload", ""), content);
    Cli.Result r = new Cli().run("publish", "--file", f.toString(), "--pipeline", "p", "--window", "60s",
        "--at", Long.toString(1726000020L + 60L * n), "--schema", "1", "--store", store, "--writer", "w" + n);
    assertEquals(0, r.code(), r.describe());
  }

  String key(int n) {
    return new Cli().run("key", "--pipeline", "p", "--window", "60s", "--at", Long.toString(1726000020L + 60L * n),
        "--schema", "1").out().strip();
  }

  Cli.Result rewind(int to, String expect, String reason, String... extra) {
    return rewind(new Cli(), to, expect, reason, extra);
  }

  Cli.Result rewind(Cli cli, int to, String expect, String reason, String... extra) {
    List<String> a = new ArrayList<>(List.of("pointer", "rewind", "--pipeline", "p", "--window", "60s",
        "--at", Long.toString(1726000020L + 60L * to), "--schema", "1", "--store", store, "--writer", "ops-alice",
        "--expect", expect, "--reason", reason));
    a.addAll(List.of(extra));
    return cli.run(a.toArray(new String[0]));
  }

  String pointerKey() {
    return (String) MiniJson.object(new Cli().run("pointer", "show", "--pipeline", "p", "--store", store, "--json").out()).get("key");
  }

  @Test
  void rewind_expectedKey_movesBackAndShowsTheRecordEverywhere() throws Exception {
    publish(1, "good");
    publish(2, "bad");
    Cli.Result r = rewind(1, key(2), "INC-42: build 43 wrote bad rows");
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.out().startsWith("REWOUND p from " + key(2) + " to " + key(1) + " by ops-alice at "), r.describe());
    assertEquals(key(1), pointerKey());

    Cli.Result show = new Cli().run("pointer", "show", "--pipeline", "p", "--store", store);
    assertEquals(0, show.code(), show.describe());
    assertTrue(show.out().contains("key=" + key(1) + "\n"), show.describe());
    assertTrue(show.out().contains("rewound_from=" + key(2) + "\nrewound_to=" + key(1) + "\nrewound_by=ops-alice\nrewound_at="),
        show.describe());
    assertTrue(show.out().contains("rewind_reason=INC-42: build 43 wrote bad rows\nobject=present\n"), show.describe());

    @SuppressWarnings("unchecked")
    Map<String, Object> last = (Map<String, Object>) MiniJson.object(
        new Cli().run("pointer", "show", "--pipeline", "p", "--store", store, "--json").out()).get("last_rewind");
    assertEquals(key(2), last.get("from"));
    assertEquals(key(1), last.get("to"));
    assertEquals("ops-alice", last.get("by"));
    assertEquals("INC-42: build 43 wrote bad rows", last.get("reason"));

    Cli.Result scan = new Cli().run("scan", "--pipeline", "p", "--store", store);
    assertEquals(0, scan.code(), "a recorded rewind does not fail the gate: " + scan.describe());
    assertTrue(scan.err().contains("idem scan: POINTER-REWOUND p from " + key(2) + " to " + key(1) + " by ops-alice at "),
        scan.describe());
    assertTrue(scan.err().contains(": INC-42: build 43 wrote bad rows\n"), scan.describe());
    String summary = new Cli().run("scan", "--pipeline", "p", "--store", store, "--json").outLines()[0];
    assertTrue(summary.contains("\"pointer_rewinds\":[{\"from\":\"" + key(2) + "\",\"to\":\"" + key(1) + "\",\"by\":\"ops-alice\""),
        summary);
  }

  @Test
  void rewind_pointerNotAtExpect_exit3NothingWritten() throws Exception {
    publish(1, "good");
    publish(2, "bad");
    publish(3, "newer");
    Cli.Result r = rewind(1, key(2), "stale view");
    assertEquals(ExitCodes.CONTENDED, r.code(), r.describe());
    assertEquals("idem pointer rewind: pointer of p is at " + key(3) + ", not at --expect " + key(2)
        + "; nothing written (re-read it with 'idem pointer show' and decide again)\n", r.err(), r.describe());
    assertEquals(key(3), pointerKey());
    Map<String, Object> never = MiniJson.object(new Cli().run("pointer", "show", "--pipeline", "p", "--store", store, "--json").out());
    assertNull(never.get("last_rewind"), "never rewound");
    assertTrue(never.containsKey("last_rewind"), "the field is always there");
  }

  @Test
  void rewind_targetNotBehindThePointer_exit2() throws Exception {
    publish(1, "one");
    publish(2, "two");
    Cli.Result r = rewind(2, key(2), "no-op");
    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    assertTrue(r.err().contains("is not behind the pointer at " + key(2)), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
  }

  @Test
  void rewind_targetNotPublished_exit7() throws Exception {
    publish(2, "two");
    Cli.Result r = rewind(1, key(2), "nothing there");
    assertEquals(ExitCodes.NOT_FOUND, r.code(), r.describe());
    assertEquals(key(2), pointerKey());
  }

  @Test
  void rewind_noPointer_exit7() throws Exception {
    publish(1, "one");
    Files.delete(dir.resolve("store/_idem/pointers/p/latest"));
    Cli.Result r = rewind(1, key(1), "none");
    assertEquals(ExitCodes.NOT_FOUND, r.code(), r.describe());
    assertTrue(r.err().contains("no pointer for pipeline p"), r.describe());
  }

  @Test
  void rewind_badReasonOrMissingFlags_exit2() throws Exception {
    publish(1, "good");
    publish(2, "bad");
    for (String reason : new String[] {"", "two\nlines", " padded"}) {
      Cli.Result r = rewind(1, key(2), reason);
      assertEquals(ExitCodes.USAGE, r.code(), r.describe());
      assertTrue(r.err().startsWith("idem pointer rewind: --reason: "), r.describe());
    }
    Cli.Result noExpect = new Cli().run("pointer", "rewind", "--pipeline", "p", "--window", "60s", "--at", "1726000080",
        "--schema", "1", "--store", store, "--reason", "r");
    assertEquals(ExitCodes.USAGE, noExpect.code(), noExpect.describe());
    assertEquals(key(2), pointerKey());
  }

  @Test
  void advance_afterRewind_keepsTheRecord() throws Exception {
    publish(1, "good");
    publish(3, "bad");
    assertEquals(0, rewind(1, key(3), "bad build").code());
    publish(2, "next");
    assertEquals(key(2), pointerKey());
    @SuppressWarnings("unchecked")
    Map<String, Object> last = (Map<String, Object>) MiniJson.object(
        new Cli().run("pointer", "show", "--pipeline", "p", "--store", store, "--json").out()).get("last_rewind");
    assertEquals(key(3), last.get("from"));
  }

  @Test
  void rewind_json_reportsTheRecord() throws Exception {
    publish(1, "good");
    publish(2, "bad");
    Cli.Result r = rewind(1, key(2), "bad build", "--json");
    assertEquals(0, r.code(), r.describe());
    Map<String, Object> j = MiniJson.object(r.out());
    assertEquals("REWOUND", j.get("status"));
    assertEquals(key(1), j.get("key"));
    @SuppressWarnings("unchecked")
    Map<String, Object> rec = (Map<String, Object>) j.get("rewind");
    assertEquals(key(2), rec.get("from"));
    assertEquals("ops-alice", rec.get("by"));
    assertEquals("bad build", rec.get("reason"));
  }

  @Test
  void rewind_pointerLockNeverReleased_busyExit3NamingTheLockWaitNothingWritten() throws Exception {
    publish(1, "good");
    publish(2, "bad");
    Path lock;
    try (Stream<Path> files = Files.walk(dir.resolve("store"))) {
      lock = files.filter(p -> p.getFileName().toString().equals("latest.lock")).findFirst().orElseThrow();
    }
    // Another holder of the kernel lock that never lets go (a stopped process, in effect).
    try (FileChannel ch = FileChannel.open(lock, StandardOpenOption.WRITE); FileLock held = ch.lock()) {
      assertTrue(held.isValid());
      // The store's own lock timeout is an hour, so only --pointer-timeout can end the wait.
      FsObjectStore patient = FsObjectStore.open(dir.resolve("store"),
          FsObjectStore.Options.defaults().withLockTimeout(Duration.ofHours(1)));
      Cli.Result r = assertTimeoutPreemptively(Duration.ofSeconds(60),
          () -> rewind(new Cli().opener(uri -> patient), 1, key(2), "INC-42: build 43 wrote bad rows", "--pointer-timeout", "0s"));
      assertEquals(ExitCodes.CONTENDED, r.code(), r.describe());
      assertTrue(r.err().contains("the pointer lock of p was not obtained within ")
          && r.err().contains("(--pointer-timeout 0ms): another writer holds it and has not let go"), r.describe());
    }
    assertEquals(key(2), pointerKey(), "nothing written");
  }
}
