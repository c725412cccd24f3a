package dev.idem.store.fs;

import static dev.idem.store.fs.Fixtures.bytes;
import static dev.idem.store.fs.Fixtures.key;
import static dev.idem.store.fs.Fixtures.recordLines;
import static dev.idem.store.fs.Fixtures.read;
import static dev.idem.store.fs.Fixtures.tempFiles;
import static dev.idem.store.fs.Fixtures.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.PutStatus;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FsObjectStore#putIfAbsent} and the reads that follow it: outcomes, records, evidence. */
class FsObjectStorePutTest {
  private static final Pattern LINE =
      Pattern.compile("v2 \\d{4}-\\d\\d-\\d\\dT\\S+Z (CREATED|IDENTICAL|DIVERGENT) [0-9a-f]{64} \\d+ (\\d+|-) \\S+");

  @TempDir Path dir;
  Path root;
  FsObjectStore store;

  @BeforeEach
  void open() throws IOException {
    root = dir.resolve("store");
    store = FsObjectStore.open(root);
  }

  @Test
  void putIfAbsent_newKey_createdDurableWithRecordAndNoTemp() throws IOException {
    String k = key("orders", 60);
    PutOutcome out = store.putIfAbsent(k, bytes("alpha").withSchema(4), "writer-a");

    assertEquals(PutStatus.CREATED, out.status());
    assertEquals(new ObjectInfo(k, Sha256.of(utf8("alpha")), 5, "writer-a", out.stored().publishedAt()), out.stored());
    assertArrayEquals(utf8("alpha"), Files.readAllBytes(root.resolve(k)));
    List<String> lines = recordLines(root, k);
    assertEquals(1, lines.size(), lines.toString());
    assertTrue(LINE.matcher(lines.get(0)).matches(), lines.get(0));
    assertEquals("v2 " + out.stored().publishedAt() + " CREATED " + out.attemptSha256() + " 5 4 writer-a", lines.get(0));
    assertEquals(List.of(), tempFiles(root));
    assertEquals(out.stored(), store.stat(k).orElseThrow(), "stat reads what the record holds");
  }

  @Test
  void putIfAbsent_sameBytes_identicalLineAppendedObjectUntouched() throws IOException {
    String k = key("orders", 60);
    PutOutcome first = store.putIfAbsent(k, bytes("alpha"), "writer-a");
    PutOutcome second = store.putIfAbsent(k, bytes("alpha"), "writer-b");

    assertEquals(PutStatus.IDENTICAL, second.status());
    assertEquals(first.stored(), second.stored());
    List<String> lines = recordLines(root, k);
    assertEquals(2, lines.size());
    assertTrue(lines.get(1).matches("v2 \\S+ IDENTICAL " + first.attemptSha256() + " 5 - writer-b"), lines.get(1));
    assertEquals(List.of(), tempFiles(root));
  }

  @Test
  void putIfAbsent_lateReplicaInABusyWindow_findsTheCreatedRecordByNameWithoutListing() throws IOException {
    // A window's records share one directory: a late replica must not read all of them to vouch.
    for (int i = 2; i < 40; i++) {
      store.putIfAbsent(key("orders", 60, i), bytes("other " + i), "writer-a");
    }
    String k = key("orders", 60);
    PutOutcome first = store.putIfAbsent(k, bytes("alpha"), "writer-a");
    FaultyOps seen = FaultyOps.recording();
    FsObjectStore late = FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(seen));

    PutOutcome second = late.putIfAbsent(k, bytes("alpha"), "writer-b");
    List<FaultyOps.Call> publish = seen.calls();
    late.compareAndSetPointer("orders", null, dev.idem.core.store.Pointer.to(second.stored(), 60, 1, "writer-b",
        Instant.EPOCH));

    assertEquals(PutStatus.IDENTICAL, second.status());
    assertEquals(first.stored(), second.stored(), "described from the creator's record");
    assertFalse(seen.calls().stream().anyMatch(c -> c.op() == FaultyOps.Op.LIST),
        "neither the publish nor the pointer's vouching lists a directory: " + seen.calls());
    assertFalse(publish.stream().anyMatch(c -> c.op() == FaultyOps.Op.FORCE || c.op() == FaultyOps.Op.FSYNC_DIRECTORY),
        "no flush: the record vouches for the object: " + publish);
    assertEquals(1, publish.stream().filter(c -> c.op() == FaultyOps.Op.READ_ATTRIBUTES
        && c.path().getFileName().toString().endsWith(Records.FIRST_CREATED_SUFFIX)).count(),
        "the record is looked at once before it is opened, not again by the open: " + publish);
    String objectName = Path.of(k).getFileName().toString();
    assertEquals(1, publish.stream().filter(c -> c.op() == FaultyOps.Op.READ_ATTRIBUTES
        && c.path().getFileName().toString().equals(objectName)).count(),
        "the object is looked at once, and its attributes used to vouch for it: " + publish);
  }

  @Test
  void putIfAbsent_publishedAgainAfterDelete_laterCreatedRecordRandomAndStillVouches() throws IOException {
    String k = key("orders", 60);
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    store.delete(k);
    assertEquals(PutStatus.CREATED, store.putIfAbsent(k, bytes("alpha"), "writer-a").status());
    FaultyOps seen = FaultyOps.recording();

    PutOutcome late = FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(seen))
        .putIfAbsent(k, bytes("alpha"), "writer-b");

    assertEquals(PutStatus.IDENTICAL, late.status());
    assertFalse(seen.calls().stream().anyMatch(c -> c.op() == FaultyOps.Op.FSYNC_DIRECTORY),
        "the second life's record vouches (found by listing): " + seen.calls());
    List<String> created;
    try (java.util.stream.Stream<Path> files = Files.list(root.resolve("_idem/records/orders/60"))) {
      created = files.map(f -> f.getFileName().toString()).filter(n -> n.contains("!CREATED.")).sorted().toList();
    }
    assertEquals(2, created.size(), created.toString());
    assertEquals(1, created.stream().filter(n -> n.endsWith("." + Records.FIRST_CREATED_SUFFIX)).count(),
        "the first life's record is found by name, the second's has a random suffix: " + created);
  }

  @Test
  void putIfAbsent_differentBytes_divergentEvidenceKeptAndRecorded() throws IOException {
    String k = key("orders", 60);
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    PutOutcome out = store.putIfAbsent(k, bytes("beta!"), "writer-b");

    String betaSha = Sha256.of(utf8("beta!"));
    assertEquals(PutStatus.DIVERGENT, out.status());
    assertEquals(Sha256.of(utf8("alpha")), out.stored().sha256());
    assertEquals(betaSha, out.attemptSha256());
    assertEquals("_idem/evidence/" + k + "/" + betaSha, out.evidenceKey());
    assertArrayEquals(utf8("beta!"), Files.readAllBytes(root.resolve(out.evidenceKey())));
    assertArrayEquals(utf8("beta!"), read(store, out.evidenceKey()), "evidence readable through open()");
    assertArrayEquals(utf8("alpha"), read(store, k), "P2: the first bytes stay");
    List<String> lines = recordLines(root, k);
    assertTrue(lines.get(1).matches("v3 \\S+ DIVERGENT " + betaSha + " 5 - " + Sha256.of(utf8("alpha")) + " writer-b"),
        lines.get(1));
    assertEquals(List.of(), tempFiles(root));
  }

  @Test
  void putIfAbsent_sameDivergentBytesTwice_oneEvidenceTwoLines() throws IOException {
    String k = key("orders", 60);
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    PutOutcome a = store.putIfAbsent(k, bytes("beta"), "writer-b");
    PutOutcome b = store.putIfAbsent(k, bytes("beta"), "writer-c");

    assertEquals(a.evidenceKey(), b.evidenceKey());
    assertEquals(3, recordLines(root, k).size());
    try (var files = Files.list(root.resolve("_idem/evidence").resolve(k))) {
      assertEquals(1, files.count());
    }
  }

  @Test
  void putIfAbsent_keepDivergentBytesOff_recordButNoEvidence() throws IOException {
    FsObjectStore s = FsObjectStore.open(root, FsObjectStore.Options.defaults().withKeepDivergentBytes(false));
    String k = key("orders", 60);
    s.putIfAbsent(k, bytes("alpha"), "writer-a");
    PutOutcome out = s.putIfAbsent(k, bytes("beta"), "writer-b");

    assertEquals(PutStatus.DIVERGENT, out.status());
    assertNull(out.evidenceKey());
    assertFalse(Files.exists(root.resolve("_idem/evidence")));
    assertTrue(recordLines(root, k).get(1).contains(" DIVERGENT "));
  }

  @Test
  void putIfAbsent_payloadChangesWhileRead_refusedNothingPublished() throws IOException {
    String k = key("orders", 60);
    Payload lying = new Payload() {
      @Override
      public long size() {
        return 5;
      }

      @Override
      public String sha256() {
        return Sha256.of(utf8("alpha"));
      }

      @Override
      public InputStream open() {
        return new ByteArrayInputStream(utf8("alphb"));
      }
    };
    Payload.ChangedWhileReadingException e =
        assertThrows(Payload.ChangedWhileReadingException.class, () -> store.putIfAbsent(k, lying, "writer-a"));

    assertTrue(e.getMessage().contains(root.resolve(k).toString()), e.getMessage());
    assertFalse(store.exists(k));
    assertEquals(List.of(), recordLines(root, k));
    assertEquals(List.of(), tempFiles(root));
  }

  @Test
  void putIfAbsent_payloadLongerThanDeclared_refusedEvenWhenItsBufferIsSmall() throws IOException {
    // Small payloads are copied through a buffer of their declared size: the copy must still read on.
    String k = key("orders", 60);
    for (int declared : new int[] {0, 5}) {
      byte[] actual = new byte[declared + 70_000];
      Payload grown = new Payload() {
        @Override
        public long size() {
          return declared;
        }

        @Override
        public String sha256() {
          return Sha256.of(new byte[declared]);
        }

        @Override
        public InputStream open() {
          return new ByteArrayInputStream(actual);
        }
      };
      assertThrows(Payload.ChangedWhileReadingException.class, () -> store.putIfAbsent(k, grown, "writer-a"));
      assertFalse(store.exists(k));
    }
    assertEquals(List.of(), tempFiles(root));
  }

  @Test
  void putIfAbsent_sizesAroundTheCopyBuffer_eachStoredByteForByte() throws IOException {
    // The full-size copy buffer is kept between publishes; small ones get their own.
    Random random = new Random(11);
    int[] sizes = {65_537, 1, 65_536, 65_535, 200_000, 7, 65_536 * 3 + 1};
    for (int i = 0; i < sizes.length; i++) {
      byte[] content = new byte[sizes[i]];
      random.nextBytes(content);
      String k = key("sizes", 60 * (i + 1));
      assertEquals(PutStatus.CREATED, store.putIfAbsent(k, Payload.ofBytes(content), "writer-a").status());
      assertArrayEquals(content, read(store, k), "size " + sizes[i]);
    }
  }

  @Test
  void putIfAbsent_largePayloads_copyBufferKeptBetweenPublishes() throws IOException {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    byte[] content = new byte[200_000];
    new Random(17).nextBytes(content);
    Payload payload = Payload.ofBytes(content);
    for (int i = 1; i <= 3; i++) { // the first publishes load classes and take the buffer
      store.putIfAbsent(key("warm", 60 * i), payload, "writer-a");
    }
    long before = threads.getCurrentThreadAllocatedBytes();
    store.putIfAbsent(key("measured", 60), payload, "writer-a");
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;

    assertTrue(allocated < 48 * 1024, "a publish after the first allocates no 64 KiB buffer: " + allocated + " bytes");
  }

  @Test
  void putIfAbsent_concurrentLargePublishes_neverShareACopyBuffer() throws Exception {
    int threads = 6;
    int each = 15;
    byte[][] contents = new byte[threads * each][];
    Random random = new Random(13);
    for (int i = 0; i < contents.length; i++) {
      contents[i] = new byte[100_000 + i];
      random.nextBytes(contents[i]);
    }
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
    try {
      List<java.util.concurrent.Future<PutOutcome>> outcomes = new java.util.ArrayList<>();
      for (int i = 0; i < contents.length; i++) {
        int n = i;
        outcomes.add(pool.submit(() -> store.putIfAbsent(key("copy", 60 * (n + 1)), Payload.ofBytes(contents[n]), "w")));
      }
      for (java.util.concurrent.Future<PutOutcome> f : outcomes) {
        assertEquals(PutStatus.CREATED, f.get().status());
      }
    } finally {
      pool.shutdown();
    }
    for (int i = 0; i < contents.length; i++) {
      assertArrayEquals(contents[i], read(store, key("copy", 60 * (i + 1))), "publish " + i);
    }
  }

  @Test
  void putIfAbsent_filePayload_created() throws IOException {
    Path source = dir.resolve("out.bin");
    byte[] content = new byte[300_000];
    new Random(7).nextBytes(content);
    Files.write(source, content);
    String k = key("orders", 60);

    PutOutcome out = store.putIfAbsent(k, Payload.ofFile(source), "writer-a");

    assertEquals(PutStatus.CREATED, out.status());
    assertEquals(content.length, out.stored().size());
    assertArrayEquals(content, read(store, k));
    assertEquals(Sha256.of(content), store.stat(k).orElseThrow().sha256());
  }

  @Test
  void putIfAbsent_emptyPayload_created() throws IOException {
    String k = key("orders", 60);
    PutOutcome out = store.putIfAbsent(k, Payload.ofBytes(new byte[0]), "writer-a");
    assertEquals(Sha256.EMPTY, out.stored().sha256());
    assertEquals(0, store.stat(k).orElseThrow().size());
  }

  @Test
  void putIfAbsent_legacyStyleKey_created() throws IOException {
    PutOutcome out = store.putIfAbsent("legacy/reports/daily.json", bytes("{}"), "writer-a");
    assertEquals(PutStatus.CREATED, out.status());
    assertArrayEquals(utf8("{}"), Files.readAllBytes(root.resolve("legacy/reports/daily.json")));
  }

  @Test
  void putIfAbsent_invalidWriter_rejectedNothingWritten() {
    assertThrows(IllegalArgumentException.class, () -> store.putIfAbsent(key("orders", 60), bytes("a"), "bad writer"));
    assertFalse(Files.exists(root));
  }

  @Test
  void putIfAbsent_keyBelowAnObject_failsNamingThePath() throws IOException {
    store.putIfAbsent("a/b", bytes("1"), "writer-a");
    IOException e = assertThrows(IOException.class, () -> store.putIfAbsent("a/b/c", bytes("2"), "writer-a"));
    assertTrue(e.getMessage().contains(root.resolve("a/b").toString()), e.getMessage());
    assertFalse(e.getMessage().contains("\n"));
    assertArrayEquals(utf8("1"), read(store, "a/b"));
  }

  @Test
  void putIfAbsent_keyAboveObjects_failsNamingThePath() throws IOException {
    store.putIfAbsent("x/y/z", bytes("1"), "writer-a");
    IOException e = assertThrows(IOException.class, () -> store.putIfAbsent("x/y", bytes("2"), "writer-a"));
    assertTrue(e.getMessage().contains(root.resolve("x/y").toString()), e.getMessage());
    assertEquals(List.of(), tempFiles(root));
  }

  @Test
  void putIfAbsent_linksUnsupportedByProvider_refusedNothingPublished() throws IOException {
    FsObjectStore s = FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(new NoLinks(null)));
    String k = key("orders", 60);
    HardLinksUnsupportedException e =
        assertThrows(HardLinksUnsupportedException.class, () -> s.putIfAbsent(k, bytes("a"), "writer-a"));
    assertTrue(e.getMessage().contains(root.resolve(k).getParent().toString()), e.getMessage());
    assertFalse(Files.exists(root.resolve(k)));
    assertEquals(List.of(), tempFiles(root));
    assertEquals(List.of(), recordLines(root, k));
  }

  @Test
  void putIfAbsent_linkSaysOperationNotPermitted_reportedAsUnsupported() throws IOException {
    FsObjectStore s = FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(new NoLinks("Operation not permitted")));
    String k = key("orders", 60);
    assertThrows(HardLinksUnsupportedException.class, () -> s.putIfAbsent(k, bytes("a"), "writer-a"));
    assertFalse(Files.exists(root.resolve(k)));
    assertEquals(List.of(), tempFiles(root));
  }

  /** A filesystem without hard links: everything works but {@code link}. */
  private static final class NoLinks extends ForwardingOps {
    private final String reason;

    NoLinks(String reason) {
      this.reason = reason;
    }

    @Override
    public void createLink(Path link, Path existing) throws IOException {
      if (reason == null) {
        throw new UnsupportedOperationException("no links");
      }
      throw new FileSystemException(link.toString(), existing.toString(), reason);
    }
  }

  // --- stat, exists, open ---

  @Test
  void stat_objectWrittenByOthers_hashedWriterUnknown() throws IOException {
    Files.createDirectories(root.resolve("legacy"));
    Files.write(root.resolve("legacy/file"), utf8("hello"));

    ObjectInfo info = store.stat("legacy/file").orElseThrow();

    assertEquals(Sha256.of(utf8("hello")), info.sha256());
    assertEquals(5, info.size());
    assertNull(info.writer());
  }

  @Test
  void stat_objectRewrittenAfterItsRecord_reportsTheBytesThere() throws IOException {
    String k = key("orders", 60);
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    Path file = root.resolve(k);
    Files.write(file, utf8("gamma")); // a legacy writer clobbering the file: same size, later mtime
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(5)));

    ObjectInfo info = store.stat(k).orElseThrow();

    assertEquals(Sha256.of(utf8("gamma")), info.sha256());
    assertNull(info.writer());
  }

  @Test
  void stat_directoryAtKey_empty() throws IOException {
    store.putIfAbsent("a/b", bytes("1"), "writer-a");
    assertTrue(store.stat("a").isEmpty());
    assertFalse(store.exists("a"));
    assertTrue(store.open("a").isEmpty());
  }

  @Test
  void stat_keyBelowAnObject_nothingThere() throws IOException {
    store.putIfAbsent("a/b", bytes("1"), "writer-a");
    assertTrue(store.stat("a/b/c").isEmpty());
    assertFalse(store.exists("a/b/c"));
    assertTrue(store.open("a/b/c").isEmpty());
    assertFalse(store.delete("a/b/c"));
    assertEquals(List.of(), Fixtures.historyKeys(store, "a/b/"));
    assertEquals(List.of(), Fixtures.listKeys(store, "a/b/c"));
  }

  @Test
  void exists_cachedKeyDeletedBehindTheStore_answersFromCacheUntilDeleteEvicts() throws IOException {
    String k = key("orders", 60);
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    Files.delete(root.resolve(k)); // not through the store: the cache cannot know

    assertTrue(store.exists(k), "a cached hit makes no filesystem call");
    assertTrue(store.stat(k).isEmpty(), "stat is authoritative");
    assertFalse(store.delete(k));
    assertFalse(store.exists(k), "delete() evicts");
  }

  @Test
  void exists_cacheDisabled_alwaysAsksTheFilesystem() throws IOException {
    FsObjectStore s = FsObjectStore.open(root, FsObjectStore.Options.defaults().withExistsCacheSize(0));
    String k = key("orders", 60);
    s.putIfAbsent(k, bytes("alpha"), "writer-a");
    Files.delete(root.resolve(k));
    assertFalse(s.exists(k));
  }

  @Test
  void open_missingRoot_emptyStoreNothingCreated() throws IOException {
    FsObjectStore s = FsObjectStore.open(dir.resolve("nowhere"));
    assertFalse(s.exists(key("orders", 60)));
    assertEquals(List.of(), Fixtures.listKeys(s, ""));
    assertTrue(s.readPointer("orders").isEmpty());
    assertFalse(Files.exists(dir.resolve("nowhere")));
  }

  @Test
  void open_rootIsAFile_refused() throws IOException {
    Path f = Files.write(dir.resolve("file"), utf8("x"));
    IOException e = assertThrows(IOException.class, () -> FsObjectStore.open(f));
    assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
  }

  @Test
  void describe_fileUri() {
    assertEquals("file:" + root, store.describe());
  }
}
