package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PublishAndGetTest {
  @TempDir
  Path dir;

  Path storeRoot;
  String store;

  @BeforeEach
  void setUp() {
    storeRoot = dir.resolve("store");
    store = "file:" + storeRoot;
  }

  static final String[] SPEC = {"--pipeline", "border-state", "--window", "60s", "--at", "1726000030", "--schema", "3"};

  String[] args(String... head) {
    List<String> a = new ArrayList<>(List.of(head));
    a.addAll(List.of(SPEC));
    a.add("--store");
    a.add(store);
    return a.toArray(new String[0]);
  }

  Path file(String name, String content) throws Exception {
    Path f = dir.resolve(name);
    Files.writeString(f, content);
    return f;
  }

  String key() {
    return new Cli().run("key", "--pipeline", "border-state", "--window", "60s", "--at", "1726000030", "--schema", "3").out().strip();
  }

  @Test
  void publish_createdThenIdenticalThenDivergent() throws Exception {
    Cli.Result first = new Cli().run(args("publish", "--file", file("a", "rows 1\n").toString(), "--writer", "w1"));
    assertEquals(0, first.code(), first.describe());
    assertTrue(first.out().startsWith("CREATED " + key() + " size=7 sha256="), first.describe());
    assertTrue(first.out().contains("pointer=ADVANCED"), first.describe());

    Cli.Result again = new Cli().run(args("publish", "--file", file("b", "rows 1\n").toString(), "--writer", "w2"));
    assertEquals(0, again.code(), again.describe());
    assertTrue(again.out().startsWith("IDENTICAL " + key()), again.describe());
    assertTrue(again.out().contains("pointer=ALREADY_CURRENT"), again.describe());

    Cli.Result other = new Cli().run(args("publish", "--file", file("c", "rows 2\n").toString(), "--writer", "w3"));
    assertEquals(ExitCodes.DIVERGENT, other.code(), other.describe());
    assertTrue(other.out().startsWith("DIVERGENT " + key()), other.describe());
    assertTrue(other.err().contains("idem: DIVERGENT:"), other.describe());
    assertEquals("rows 1\n", Files.readString(storeRoot.resolve(key())), "the first bytes stay");
  }

  @Test
  void publish_jsonReport() throws Exception {
    Cli.Result r = new Cli().run(args("publish", "--file", file("a", "x").toString(), "--writer", "w1", "--json"));
    assertEquals(0, r.code(), r.describe());
    Map<String, Object> j = MiniJson.object(r.out());
    assertEquals("CREATED", j.get("status"));
    assertEquals(key(), j.get("key"));
    assertEquals("w1", j.get("writer"));
    assertEquals(1725999960L, j.get("window_start"));
    @SuppressWarnings("unchecked")
    Map<String, Object> pointer = (Map<String, Object>) j.get("pointer");
    assertEquals("ADVANCED", pointer.get("status"));
    @SuppressWarnings("unchecked")
    Map<String, Object> stored = (Map<String, Object>) j.get("stored");
    assertEquals(1L, stored.get("size"));
  }

  @Test
  void publish_fromStdin() {
    Cli.Result r = new Cli().stdin("from stdin").run(args("publish", "--file", "-"));
    assertEquals(0, r.code(), r.describe());
    Cli.Result got = new Cli().run("get", "--pipeline", "border-state", "--store", store);
    assertEquals("from stdin", new String(got.raw(), StandardCharsets.UTF_8), got.describe());
  }

  @Test
  void publish_unreadableFileIsAUsageErrorAndWritesNothing() throws Exception {
    for (String bad : List.of(dir.resolve("missing").toString(), dir.toString())) {
      Cli.Result r = new Cli().run(args("publish", "--file", bad));
      assertEquals(ExitCodes.USAGE, r.code(), r.describe());
      assertEquals(1, r.errLines().length, r.describe());
      assertFalse(Files.exists(storeRoot), "nothing written: " + r.describe());
    }
  }

  @Test
  void publish_unwritableStoreIsStoreUnavailable() throws Exception {
    Path notADir = file("plain-file", "x");
    Cli.Result r = new Cli().run("publish", "--file", file("a", "x").toString(), "--pipeline", "p", "--window", "60s",
        "--schema", "1", "--store", "file:" + notADir);
    assertEquals(ExitCodes.STORE_UNAVAILABLE, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
    assertEquals("x", Files.readString(notADir));
  }

  @Test
  void publish_badStoreUriIsAUsageError() throws Exception {
    Cli.Result r = new Cli().run("publish", "--file", file("a", "x").toString(), "--pipeline", "p", "--window", "60s",
        "--schema", "1", "--store", "ftp://host/x");
    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
  }

  @Test
  void publish_storeFromEnvironment() throws Exception {
    Cli.Result r = new Cli().env("IDEM_STORE", store)
        .run("publish", "--file", file("a", "x").toString(), "--pipeline", "p", "--window", "60s", "--schema", "1");
    assertEquals(0, r.code(), r.describe());
    assertTrue(Files.isDirectory(storeRoot.resolve("p")), r.describe());
  }

  @Test
  void get_latestToStdoutAndFile() throws Exception {
    new Cli().run(args("publish", "--file", file("a", "payload\n").toString()));
    Cli.Result r = new Cli().run("get", "--pipeline", "border-state", "--store", store);
    assertEquals(0, r.code(), r.describe());
    assertArrayEquals("payload\n".getBytes(StandardCharsets.UTF_8), r.raw(), r.describe());
    assertEquals("", r.out(), r.describe());
    assertTrue(r.err().startsWith("wrote " + key()), r.describe());

    Path out = dir.resolve("out.csv");
    Files.writeString(out, "old");
    Cli.Result toFile = new Cli().run("get", "--pipeline", "border-state", "--latest", "--store", store, "-o", out.toString(), "--json");
    assertEquals(0, toFile.code(), toFile.describe());
    assertEquals("payload\n", Files.readString(out));
    Map<String, Object> j = MiniJson.object(toFile.out());
    assertEquals(Boolean.TRUE, j.get("verified"));
    assertEquals(8L, j.get("size"));
  }

  @Test
  void get_bySpec() throws Exception {
    new Cli().run(args("publish", "--file", file("a", "one").toString()));
    Cli.Result r = new Cli().run(args("get"));
    assertEquals(0, r.code(), r.describe());
    assertEquals("one", new String(r.raw(), StandardCharsets.UTF_8));
    Cli.Result other = new Cli().run("get", "--pipeline", "border-state", "--window", "60s", "--at", "1", "--schema", "3",
        "--store", store);
    assertEquals(ExitCodes.USAGE, other.code(), "no window closed by t=1: " + other.describe());
    Cli.Result missing = new Cli().run("get", "--pipeline", "border-state", "--window", "60s", "--at", "1726009999",
        "--schema", "3", "--store", store);
    assertEquals(ExitCodes.NOT_FOUND, missing.code(), missing.describe());
  }

  @Test
  void get_noPointerIsNotFound() {
    Cli.Result r = new Cli().run("get", "--pipeline", "nothing-here", "--store", store);
    assertEquals(ExitCodes.NOT_FOUND, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
    assertEquals(0, r.raw().length, r.describe());
  }

  @Test
  void get_corruptObjectFailsVerificationAndLeavesNoFile() throws Exception {
    new Cli().run(args("publish", "--file", file("a", "good bytes").toString()));
    Path object = storeRoot.resolve(key());
    object.toFile().setWritable(true);
    Files.writeString(object, "evil bytes");
    Path out = dir.resolve("out");
    Cli.Result r = new Cli().run("get", "--pipeline", "border-state", "--store", store, "--output", out.toString());
    assertEquals(ExitCodes.STORE_UNAVAILABLE, r.code(), r.describe());
    assertTrue(r.err().contains("verification failed"), r.describe());
    assertFalse(Files.exists(out), r.describe());
    try (Stream<Path> left = Files.list(dir)) {
      assertTrue(left.noneMatch(p -> p.getFileName().toString().contains("idem-get")), "temp file left behind");
    }
    Cli.Result toStdout = new Cli().run("get", "--pipeline", "border-state", "--store", store);
    assertEquals(ExitCodes.STORE_UNAVAILABLE, toStdout.code(), toStdout.describe());
    assertEquals(0, toStdout.raw().length, "nothing on stdout: " + toStdout.describe());
  }

  @Test
  void get_badOutputIsAUsageError() {
    for (String[] a : List.of(
        new String[] {"get", "--pipeline", "p", "--store", store, "--output", dir.resolve("no/such/dir/f").toString()},
        new String[] {"get", "--pipeline", "p", "--store", store, "--output", dir.toString()},
        new String[] {"get", "--pipeline", "p", "--store", store, "--json"},
        new String[] {"get", "--pipeline", "Bad", "--store", store})) {
      Cli.Result r = new Cli().run(a);
      assertEquals(ExitCodes.USAGE, r.code(), r.describe());
      assertEquals(1, r.errLines().length, r.describe());
    }
  }

  @Test
  void publish_emptyFile_refusedExit2NothingWritten() throws Exception {
    Cli.Result r = new Cli().run(args("publish", "--file", file("empty", "").toString()));
    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    assertEquals("idem publish: --file '" + dir.resolve("empty") + "' is empty (0 bytes): nothing published "
        + "(pass --allow-empty if an empty result is a result)\n", r.err(), r.describe());
    assertFalse(Files.exists(storeRoot), r.describe());
  }

  @Test
  void publish_emptyStdin_refusedExit2() throws Exception {
    Cli.Result r = new Cli().stdin("").run(args("publish", "--file", "-"));
    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    assertTrue(r.err().startsWith("idem publish: stdin is empty (0 bytes)"), r.describe());
    assertFalse(Files.exists(storeRoot.resolve(key())), r.describe());
  }

  @Test
  void publish_emptyFileWithAllowEmpty_published() throws Exception {
    Cli.Result r = new Cli().run(args("publish", "--allow-empty", "--file", file("empty", "").toString()));
    assertEquals(0, r.code(), r.describe());
    assertEquals(0, Files.size(storeRoot.resolve(key())));
  }

  @Test
  void publish_futureWindow_refusedExit2NothingWritten() throws Exception {
    Cli.Result r = new Cli().run("publish", "--file", file("a", "x").toString(), "--pipeline", "border-state",
        "--window", "60s", "--at", "2099-01-01T00:00:30Z", "--schema", "3", "--store", store);
    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    assertTrue(r.err().startsWith("idem publish: window 2098-12-31T23:59:00Z..+60s has not closed yet (ends "), r.describe());
    assertTrue(r.err().endsWith("refusing to publish a future window\n"), r.describe());
    assertFalse(Files.exists(storeRoot), r.describe());
  }

  @Test
  void pointerAdvance_futureWindowAlreadyPublished_refusedPointerUntouched() throws Exception {
    // An object for a future window published before the guard existed: advancing to it stays refused.
    java.time.Clock future = java.time.Clock.fixed(java.time.Instant.parse("2099-01-01T00:00:30Z"), java.time.ZoneOffset.UTC);
    String[] spec = {"--pipeline", "border-state", "--window", "60s", "--at", "2099-01-01T00:00:30Z", "--schema", "3",
        "--store", store};
    Cli.Result published = new Cli().clock(future).run(concat(new String[] {"publish", "--file", file("a", "x").toString()}, spec));
    assertEquals(0, published.code(), published.describe());
    Files.delete(storeRoot.resolve("_idem/pointers/border-state/latest"));
    Cli.Result r = new Cli().run(concat(new String[] {"pointer", "advance"}, spec));
    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    assertTrue(r.err().endsWith("refusing to point border-state at a future window\n"), r.describe());
    assertFalse(Files.exists(storeRoot.resolve("_idem/pointers/border-state/latest")), r.describe());
  }

  static String[] concat(String[] a, String[] b) {
    List<String> l = new ArrayList<>(List.of(a));
    l.addAll(List.of(b));
    return l.toArray(new String[0]);
  }

  /** The permissions of the files in {@code java.io.tmpdir} named {@code PREFIX…SUFFIX} now. */
  static List<String> spoolModes(String prefix, String suffix) {
    List<String> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      for (Path f : files.toList()) {
        String name = f.getFileName().toString();
        if (name.startsWith(prefix) && name.endsWith(suffix)) {
          out.add(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** Runs idem in-process with {@code stdin} and {@code stdout} as given. */
  static int run(InputStream stdin, OutputStream stdout, String... args) {
    CliContext ctx = new CliContext(stdin, stdout, Map.of(), Clock.systemUTC(), null)
        .withProgressAfter(Duration.ofDays(1));
    return Main.execute(ctx, new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()), args);
  }

  @Test
  void publish_fromStdin_spoolInTmpdirIsOwnerOnly() {
    List<String> modes = new ArrayList<>();
    // Seen when stdin ends: the spool then exists and holds (nearly) all of it.
    InputStream data = new ByteArrayInputStream("secret rows".getBytes(StandardCharsets.UTF_8));
    InputStream stdin = new InputStream() {
      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n = data.read(b, off, len);
        if (n < 0 && modes.isEmpty()) {
          modes.addAll(spoolModes("idem-publish-", ".stdin"));
        }
        return n;
      }
    };
    assertEquals(0, run(stdin, new ByteArrayOutputStream(), args("publish", "--file", "-")));
    assertFalse(modes.isEmpty(), "the spool was there while stdin was read");
    assertEquals(List.of("rw-------"), modes.stream().distinct().toList());
  }

  @Test
  void get_toStdout_spoolInTmpdirIsOwnerOnly() throws Exception {
    assertEquals(0, new Cli().run(args("publish", "--file", file("a", "secret rows").toString())).code());
    List<String> modes = new ArrayList<>();
    ByteArrayOutputStream got = new ByteArrayOutputStream() {
      @Override
      public synchronized void write(byte[] b, int off, int len) {
        if (modes.isEmpty()) {
          modes.addAll(spoolModes("idem-get-", ".tmp"));
        }
        super.write(b, off, len);
      }
    };
    assertEquals(0, run(InputStream.nullInputStream(), got, "get", "--pipeline", "border-state", "--store", store));
    assertEquals("secret rows", got.toString(StandardCharsets.UTF_8));
    assertFalse(modes.isEmpty(), "the fetched object was spooled while stdout was written");
    assertEquals(List.of("rw-------"), modes.stream().distinct().toList());
  }
}
