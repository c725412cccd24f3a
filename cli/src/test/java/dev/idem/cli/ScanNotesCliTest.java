package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Sha256;
import dev.idem.core.Window;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Retirement;
import dev.idem.store.fs.FsObjectStore;
import dev.idem.store.s3.S3ObjectStore;
import dev.idem.store.s3.S3StoreOptions;
import dev.idem.store.s3.S3TestStores;
import dev.idem.store.s3.internal.client.RetryPolicy;
import dev.idem.store.s3.testing.FakeS3Server;
import dev.idem.store.s3.testing.ListingBucket;
import dev.idem.store.s3.testing.ListingBucket.Version;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a gate's log shows of a scan with many notes: stdout keeps the reference lines (one DIVERGENT line
 * per divergent key, then the closing line), stderr one line per kind of note with its count and an
 * example, however many keys the notes are about; {@code -v} lists every one on stderr, and {@code --json}
 * always has every one. The bucket (a versioned one on a fake S3 server) holds every kind: legacy fixed
 * paths written over with other bytes (divergent, compared by ETag), windows of several keys of one schema
 * (drift), windows where a key's schema is not recorded (drift, judged whole), schema bumps' overlaps,
 * and keys published again after gc deleted them. A filesystem store holding the kinds it can hold
 * (its contents are always compared by SHA-256) gives the same lines.
 */
class ScanNotesCliTest {
  static final int LEGACY = 120;
  static final int DRIFT = 60;
  static final int WHOLE = 20;
  static final int OVERLAP = 40;
  static final int REPUBLISHED = 20;

  static FakeS3Server server;
  static final ListingBucket BUCKET = new ListingBucket("_idem/");

  @BeforeAll
  static void start() throws Exception {
    server = new FakeS3Server();
    long[] clock = {1_700_000_000L};
    for (int i = 0; i < LEGACY; i++) {
      String key = String.format("legacy/f-%04d.csv", i);
      put(key, "rows " + i, null, false, clock);
      put(key, "rows " + i + " again", null, false, clock);
    }
    for (int w = 0; w < DRIFT; w++) { // three partitions of one schema a window
      for (int part = 0; part < 3; part++) {
        put(key("orders", w, 1, "p" + part), "orders " + w + " " + part, 1, false, clock);
      }
    }
    for (int w = 0; w < WHOLE; w++) { // one of them published by a release that recorded no schema
      put(key("older", w, 1, "a"), "older a " + w, 1, false, clock);
      put(key("older", w, 1, "b"), "older b " + w, null, false, clock);
    }
    for (int w = 0; w < OVERLAP; w++) { // the old build and the new, across a schema bump
      put(key("bumped", w, 1, null), "bumped " + w, 1, false, clock);
      put(key("bumped", w, 2, null), "bumped " + w + " v2", 2, false, clock);
    }
    for (int w = 0; w < REPUBLISHED; w++) { // deleted by gc, published again with other bytes
      String key = key("again", w, 1, null);
      put(key, "again " + w, 1, false, clock);
      put(key, null, 1, true, clock);
      put(key, "again " + w + " later", 1, false, clock);
    }
    put("_idem/store", "marker", null, false, clock);
    server.otherwise(BUCKET);
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  private static String key(String pipeline, int window, int schema, String part) {
    RunSpec spec = RunSpec.of(pipeline, new Window(1_725_000_000L + 3_600L * window, 3_600), schema);
    return (part == null ? spec : spec.withInput("part", part)).outputKey().toString();
  }

  private static void put(String key, String content, Integer schema, boolean deleteMarker, long[] clock) {
    Instant at = Instant.ofEpochSecond(++clock[0]);
    String versionId = "v" + clock[0];
    if (deleteMarker) {
      BUCKET.add(new Version(key, versionId, true, null, 0, at, Map.of()));
      return;
    }
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    String sha = Sha256.of(bytes);
    Map<String, String> meta = new HashMap<>();
    if (!key.startsWith("legacy/") && !key.startsWith("_idem/")) {
      meta.put("idem-sha256", sha);
      meta.put("idem-writer", "w");
      meta.put("idem-published", at.toString());
      if (schema != null) {
        meta.put("idem-schema", schema.toString());
      }
    }
    BUCKET.add(new Version(key, versionId, false, sha.substring(0, 32), bytes.length, at, meta));
  }

  private static Cli.Result scan(String... extra) {
    String[] args = new String[3 + extra.length];
    args[0] = "scan";
    args[1] = "--store";
    args[2] = "s3://bkt";
    System.arraycopy(extra, 0, args, 3, extra.length);
    return new Cli().opener(uri -> S3TestStores.open(server.clientBuilder().retry(RetryPolicy.NONE).build(),
        server.location(""), S3StoreOptions.defaults())).run(args);
  }

  @Test
  void scan_manyKeysWithNotes_oneStderrLinePerKindWithCountAndExample() {
    long heads = windowHeads();
    Cli.Result r = scan("--fail-on-drift");
    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
    assertTrue(windowHeads() > heads, "the schemas were read");
    String[] out = r.outLines();
    assertEquals(LEGACY + 1, out.length, r.describe());
    Pattern divergent = Pattern.compile("DIVERGENT legacy/f-\\d{4}\\.csv writes=2 payloads=2");
    for (int i = 0; i < LEGACY; i++) {
      assertTrue(divergent.matcher(out[i]).matches(), "the reference line, byte for byte: " + out[i]);
    }
    assertEquals("scanned prefix= divergent_keys=" + LEGACY, out[LEGACY]);

    String[] err = r.errLines();
    assertTrue(err.length <= 8, "one line per kind, not one per key: " + err.length + " lines\n" + r.err());
    assertOneLine(r, "idem scan: notes: " + LEGACY + " divergent keys compared by ETag", "e.g. legacy/f-0000.csv");
    assertOneLine(r, "idem scan: drift: " + DRIFT + " windows hold several keys of one schema",
        "e.g. orders window_start=1725000000 schema=1: ");
    assertOneLine(r, "idem scan: drift: " + WHOLE + " windows of several keys judged whole", "e.g. older ");
    assertOneLine(r, "idem scan: notes: " + OVERLAP + " windows hold one key per schema", "e.g. bumped ");
    assertOneLine(r, "idem scan: notes: " + REPUBLISHED + " keys republished after gc removed them", "e.g. again/");
    assertTrue(r.err().contains(" " + (DRIFT + WHOLE) + " positions with more than one key"), r.describe());
  }

  /**
   * Without --fail-on-drift the S3 scan reads no schema (a listing does not show them), so every window of
   * several keys is judged whole, in one line that says how to have them read; nothing else changes.
   */
  @Test
  void scan_withoutFailOnDrift_windowsOfSeveralKeysJudgedWholeWithoutReadingSchemas() {
    long heads = windowHeads();
    Cli.Result r = scan();
    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
    assertEquals(LEGACY + 1, r.outLines().length, r.describe());
    assertOneLine(r, "idem scan: drift: " + (DRIFT + WHOLE + OVERLAP) + " windows of several keys judged whole",
        "--fail-on-drift reads them");
    assertEquals(0, Arrays.stream(r.errLines()).filter(l -> l.contains("of one schema") || l.contains("one key per schema"))
        .count(), r.describe());
    assertOneLine(r, "idem scan: notes: " + REPUBLISHED + " keys republished after gc removed them", "e.g. again/");
    assertEquals(heads, windowHeads(), "no HEAD for a schema");
  }

  /** HEADs of the keys in windows of several keys so far. */
  private static long windowHeads() {
    return server.requests().stream().filter(q -> q.method().equals("HEAD"))
        .filter(q -> q.path().matches("/bkt/(orders|older|bumped)/.*")).count();
  }

  @Test
  void scan_verbose_everyNoteOnStderr() {
    Cli.Result r = scan("-v", "--fail-on-drift");
    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
    List<String> err = Arrays.asList(r.errLines());
    assertEquals(LEGACY, err.stream().filter(l -> l.startsWith("idem scan: note: legacy/")).count(), r.describe());
    assertEquals(DRIFT + WHOLE, err.stream().filter(l -> l.startsWith("idem scan: DRIFT ")).count(), r.describe());
    assertEquals(OVERLAP, err.stream().filter(l -> l.startsWith("idem scan: SCHEMA-OVERLAP bumped ")).count(),
        r.describe());
    assertEquals(REPUBLISHED, err.stream().filter(l -> l.startsWith("idem scan: REPUBLISHED again/")).count(),
        r.describe());
    assertEquals(LEGACY + 1, r.outLines().length, "stdout is the same: " + r.describe());
  }

  @Test
  void scan_json_everyNoteAnObject() {
    Cli.Result r = scan("--json", "--fail-on-drift");
    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
    Map<String, Integer> types = new HashMap<>();
    for (String line : r.outLines()) {
      types.merge((String) MiniJson.object(line).get("type"), 1, Integer::sum);
    }
    assertEquals(Map.of("divergent", LEGACY, "drift", DRIFT + WHOLE, "schema_overlap", OVERLAP,
        "republished", REPUBLISHED, "summary", 1), types, r.describe());
    assertEquals("", r.err(), "--json writes its notes to stdout only: " + r.describe());
  }

  @Test
  void scan_fileStoreWithManyNotes_sameLinesAsOnS3(@TempDir Path dir) throws Exception {
    int divergent = 15;
    try (FsObjectStore fs = FsObjectStore.open(dir)) {
      for (int w = 0; w < divergent; w++) { // a second build's other bytes at one key: recorded, divergent
        fs.putIfAbsent(key("sums", w, 1, null), bytes("sums " + w).withSchema(1), "a");
        fs.putIfAbsent(key("sums", w, 1, null), bytes("sums " + w + " other").withSchema(1), "b");
      }
      for (int w = 0; w < DRIFT; w++) {
        for (int part = 0; part < 3; part++) {
          fs.putIfAbsent(key("orders", w, 1, "p" + part), bytes("orders " + w + " " + part).withSchema(1), "w");
        }
      }
      for (int w = 0; w < WHOLE; w++) {
        fs.putIfAbsent(key("older", w, 1, "a"), bytes("older a " + w).withSchema(1), "w");
        fs.putIfAbsent(key("older", w, 1, "b"), bytes("older b " + w), "old-build");
      }
      for (int w = 0; w < OVERLAP; w++) {
        fs.putIfAbsent(key("bumped", w, 1, null), bytes("bumped " + w).withSchema(1), "w");
        fs.putIfAbsent(key("bumped", w, 2, null), bytes("bumped " + w + " v2").withSchema(2), "w");
      }
      for (int w = 0; w < REPUBLISHED; w++) {
        fs.putIfAbsent(key("again", w, 1, null), bytes("again " + w).withSchema(1), "w");
      }
      // What gc does: the mark raised over the windows, then their objects and records removed.
      fs.raiseRetirement(new Retirement("again", 1_725_000_000L + 3_600L * (REPUBLISHED - 1),
          Instant.ofEpochSecond(1_726_000_000L), "gc"));
      for (int w = 0; w < REPUBLISHED; w++) {
        fs.delete(key("again", w, 1, null));
        fs.deleteRecords(key("again", w, 1, null));
        fs.putIfAbsent(key("again", w, 1, null), bytes("again " + w + " later").withSchema(1), "w");
      }
    }
    Cli.Result r = new Cli().run("scan", "--store", "file:" + dir);
    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
    assertEquals(divergent + 1, r.outLines().length, r.describe());
    String[] err = r.errLines();
    assertTrue(err.length <= 6, "one line per kind, not one per key: " + err.length + " lines\n" + r.err());
    assertEquals(0, Arrays.stream(err).filter(l -> l.contains("compared by ETag")).count(), r.describe());
    assertOneLine(r, "idem scan: drift: " + DRIFT + " windows hold several keys of one schema",
        "e.g. orders window_start=1725000000 schema=1: ");
    assertOneLine(r, "idem scan: drift: " + WHOLE + " windows of several keys judged whole", "e.g. older ");
    assertOneLine(r, "idem scan: notes: " + OVERLAP + " windows hold one key per schema", "e.g. bumped ");
    assertOneLine(r, "idem scan: notes: " + REPUBLISHED + " keys republished after gc removed them", "e.g. again/");

    Cli.Result verbose = new Cli().run("scan", "--store", "file:" + dir, "-v");
    List<String> lines = Arrays.asList(verbose.errLines());
    assertEquals(DRIFT + WHOLE, lines.stream().filter(l -> l.startsWith("idem scan: DRIFT ")).count(), verbose.describe());
    assertEquals(OVERLAP, lines.stream().filter(l -> l.startsWith("idem scan: SCHEMA-OVERLAP ")).count(),
        verbose.describe());
    assertEquals(REPUBLISHED, lines.stream().filter(l -> l.startsWith("idem scan: REPUBLISHED ")).count(),
        verbose.describe());
  }

  private static Payload bytes(String content) {
    return Payload.ofBytes(content.getBytes(StandardCharsets.UTF_8));
  }

  private static void assertOneLine(Cli.Result r, String start, String example) {
    List<String> lines = Arrays.stream(r.errLines()).filter(l -> l.startsWith(start)).toList();
    assertEquals(1, lines.size(), start + "\n" + r.describe());
    assertTrue(lines.get(0).contains(example), lines.get(0));
  }
}
