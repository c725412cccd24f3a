package dev.idem.store.fs;

import static dev.idem.store.fs.Fixtures.key;
import static dev.idem.store.fs.Fixtures.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.idem.core.Sha256;
import dev.idem.core.store.Acknowledgement;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PutStatus;
import dev.idem.core.store.Retirement;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * S2: a symbolic link pre-placed anywhere under the root (pipeline, window, object name, {@code _idem},
 * records, evidence, pointer directory, {@code latest}, {@code latest.lock}, the retirement mark {@code
 * retired}, the acknowledgements) is refused with an error
 * naming it, and nothing outside the root is read or written. The link points into a complete store
 * kept outside, so following it would show: an object that "exists", a pointer that reads back, a
 * file that changes.
 */
class FsObjectStoreContainmentTest {
  private static final String KEY = key("orders", 60);
  private static final byte[] A = utf8("alpha, the first publish");
  private static final byte[] B = utf8("beta, a divergent attempt");
  private static final String EVIDENCE_B = "_idem/evidence/" + KEY + "/" + Sha256.of(B);
  private static final Acknowledgement ACK = new Acknowledgement(KEY, new TreeSet<>(List.of("sha256:" + Sha256.of(A),
      "sha256:" + Sha256.of(B))), 1, "ops-alice", Instant.EPOCH, "reviewed");

  @TempDir Path dir;

  enum Call { EXISTS, STAT, OPEN, OPEN_EVIDENCE, LIST, HISTORY, READ_POINTER, PUT, CAS, DELETE, READ_RETIRED, RAISE_RETIRED,
    ACK, READ_ACKS, PIPELINES }

  private static final Set<Call> OBJECT_PATH = EnumSet.of(Call.EXISTS, Call.STAT, Call.OPEN, Call.LIST,
      Call.HISTORY, Call.PUT, Call.CAS, Call.DELETE);
  private static final Set<Call> POINTER_PATH = EnumSet.of(Call.READ_POINTER, Call.CAS, Call.READ_RETIRED,
      Call.RAISE_RETIRED, Call.PIPELINES);
  private static final Set<Call> ACK_PATH = EnumSet.of(Call.ACK, Call.READ_ACKS);

  /**
   * @param link where the link is placed, relative to the root (it points at the same path in the
   *     outside store)
   * @param seedObject whether the root holds an object at {@link #KEY} (so a publish meets it)
   * @param refused the calls that must be refused because they go through the link
   */
  private record Case(String link, boolean seedObject, Set<Call> refused) {}

  private static List<Case> cases() {
    String objectName = KEY;
    Set<Call> topLevel = EnumSet.copyOf(OBJECT_PATH);
    topLevel.add(Call.PIPELINES);
    return List.of(
        new Case("orders", false, topLevel),
        new Case("orders/60", false, OBJECT_PATH),
        new Case(objectName, false, OBJECT_PATH),
        new Case("_idem", true, EnumSet.of(Call.STAT, Call.OPEN_EVIDENCE, Call.HISTORY, Call.READ_POINTER, Call.PUT,
            Call.CAS, Call.READ_RETIRED, Call.RAISE_RETIRED, Call.ACK, Call.READ_ACKS, Call.PIPELINES)),
        new Case("_idem/records", true, EnumSet.of(Call.STAT, Call.HISTORY, Call.PUT, Call.CAS)),
        new Case("_idem/records/orders/60", true, EnumSet.of(Call.STAT, Call.HISTORY, Call.PUT, Call.CAS)),
        new Case("_idem/evidence", true, EnumSet.of(Call.OPEN_EVIDENCE, Call.HISTORY, Call.PUT)),
        new Case("_idem/evidence/orders", true, EnumSet.of(Call.OPEN_EVIDENCE, Call.HISTORY, Call.PUT)),
        new Case("_idem/pointers", true, POINTER_PATH),
        new Case("_idem/pointers/orders", true, POINTER_PATH),
        new Case("_idem/pointers/orders/latest", true, EnumSet.of(Call.READ_POINTER, Call.CAS, Call.PIPELINES)),
        new Case("_idem/pointers/orders/latest.lock", true, EnumSet.of(Call.CAS, Call.RAISE_RETIRED)),
        new Case("_idem/pointers/orders/retired", true, EnumSet.of(Call.READ_RETIRED, Call.RAISE_RETIRED)),
        new Case("_idem/acks", true, ACK_PATH),
        new Case("_idem/acks/orders", true, ACK_PATH));
  }

  /** A complete store outside the root: object A, divergent B with evidence, pointer, lock file. */
  private static Pointer outsideStore(Path outside) throws IOException {
    FsObjectStore s = FsObjectStore.open(outside);
    s.putIfAbsent(KEY, Payload.ofBytes(A), "writer-a");
    assertEquals(PutStatus.DIVERGENT, s.putIfAbsent(KEY, Payload.ofBytes(B), "writer-b").status());
    Pointer p = Pointer.to(s.stat(KEY).orElseThrow(), 60, 1, "writer-a", Instant.EPOCH);
    s.compareAndSetPointer("orders", null, p);
    s.raiseRetirement(new Retirement("orders", 0, Instant.EPOCH, "outside gc"));
    s.acknowledge(ACK);
    String elsewhere = key("elsewhere", 60);
    s.putIfAbsent(elsewhere, Payload.ofBytes(A), "writer-a");
    s.compareAndSetPointer("elsewhere", null, Pointer.to(s.stat(elsewhere).orElseThrow(), 60, 1, "writer-a", Instant.EPOCH));
    return p;
  }

  @TestFactory
  Stream<DynamicTest> everyCall_linkUnderRoot_refusedNamingItAndNothingOutsideTouched() {
    return cases().stream().map(c -> dynamicTest("link at " + c.link(), () -> {
      Path outside = dir.resolve("outside-" + c.link().replace('/', '_'));
      Path root = dir.resolve("root-" + c.link().replace('/', '_'));
      Pointer pointer = outsideStore(outside);
      Map<String, String> before = snapshot(outside);
      Files.createDirectories(root);
      if (c.seedObject()) {
        Files.createDirectories(root.resolve(KEY).getParent());
        Files.write(root.resolve(KEY), A); // as a legacy writer would: no record, hashed on read
      }
      Path link = root.resolve(c.link());
      Files.createDirectories(link.getParent());
      Files.createSymbolicLink(link, outside.resolve(c.link()));
      FsObjectStore store = FsObjectStore.open(root);

      List<String> problems = new ArrayList<>();
      for (Call call : Call.values()) {
        Optional<IOException> e = run(store, call, pointer);
        if (c.refused().contains(call)) {
          if (e.isEmpty()) {
            problems.add(call + " was not refused");
          } else if (!e.get().getMessage().contains(link.toString())
              || !e.get().getMessage().contains("refusing to follow")) {
            problems.add(call + " failed without naming the link: " + e.get());
          }
        } else if (e.isPresent()) {
          problems.add(call + " failed though it need not pass the link: " + e.get());
        }
      }
      assertEquals(List.of(), problems);
      assertEquals(before, snapshot(outside), "nothing outside the root was written");
      assertTrue(Files.isSymbolicLink(link), "the link itself is left for the operator");
    }));
  }

  @Test
  void putIfAbsent_linkRacedInAtEveryTemporaryName_nothingWrittenThroughIt() throws IOException {
    Path outside = dir.resolve("outside");
    Files.createDirectories(outside);
    Path root = dir.resolve("root");
    List<Path> planted = new ArrayList<>();
    FsOps plantsLinks = new ForwardingOps() {
      @Override
      public java.nio.channels.FileChannel createNew(Path file) throws IOException {
        Path target = outside.resolve("via-" + planted.size());
        Files.createSymbolicLink(file, target); // someone who guessed the random name, just before us
        planted.add(target);
        return super.createNew(file);
      }
    };
    FsObjectStore store = FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(plantsLinks));

    IOException e = assertThrows(IOException.class, () -> store.putIfAbsent(KEY, Payload.ofBytes(A), "writer-a"));

    assertTrue(e instanceof FileAlreadyExistsException, e.toString());
    assertFalse(planted.isEmpty());
    try (Stream<Path> through = Files.list(outside)) {
      assertEquals(List.of(), through.toList(), "O_EXCL never follows a link: no link target was created");
    }
    assertFalse(Files.exists(root.resolve(KEY), LinkOption.NOFOLLOW_LINKS), "nothing published");
  }

  /** Runs one call; its result must show nothing of the outside store (checked here), its failure is returned. */
  private static Optional<IOException> run(FsObjectStore store, Call call, Pointer pointer) {
    try {
      switch (call) {
        case EXISTS, STAT, OPEN -> {
          Optional<byte[]> seen = call == Call.EXISTS ? (store.exists(KEY) ? Optional.of(A) : Optional.empty())
              : call == Call.STAT ? store.stat(KEY).map(i -> A) : read(store, KEY);
          seen.ifPresent(bytes -> assertEquals(Sha256.of(A), Sha256.of(bytes)));
        }
        case OPEN_EVIDENCE -> assertFalse(read(store, EVIDENCE_B).isPresent(), "evidence read from outside");
        case LIST -> store.list("orders/", o -> true);
        case HISTORY -> store.history("", h -> {
          assertFalse(h.entries().stream().anyMatch(x -> Sha256.of(B).equals(x.sha256())),
              "history read from outside: " + h);
          return true;
        });
        case READ_POINTER -> assertFalse(store.readPointer("orders").isPresent(), "pointer read from outside");
        case PUT -> store.putIfAbsent(KEY, Payload.ofBytes(B), "writer-c");
        case CAS -> store.compareAndSetPointer("orders", null, pointer);
        case DELETE -> store.delete(KEY);
        case READ_RETIRED -> assertFalse(store.readRetirement("orders").isPresent(), "retirement read from outside");
        case RAISE_RETIRED -> store.raiseRetirement(new Retirement("orders", 60, Instant.EPOCH, "inside gc"));
        case ACK -> store.acknowledge(new Acknowledgement(KEY, ACK.contents(), 1, "ops-inside", Instant.EPOCH, "inside"));
        case READ_ACKS -> assertFalse(store.acknowledgements("").contains(ACK), "acknowledgement read from outside");
        case PIPELINES -> assertFalse(store.pipelines().contains("elsewhere"), "a pipeline seen from outside");
        default -> fail("unknown call " + call);
      }
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of(e);
    }
  }

  private static Optional<byte[]> read(ObjectStore store, String key) throws IOException {
    Optional<InputStream> in = store.open(key);
    if (in.isEmpty()) {
      return Optional.empty();
    }
    try (InputStream s = in.get()) {
      return Optional.of(s.readAllBytes());
    }
  }

  /** Every path under {@code top} with its type, size, modification time and content hash. */
  private static Map<String, String> snapshot(Path top) throws IOException {
    Map<String, String> m = new TreeMap<>();
    try (Stream<Path> s = Files.walk(top)) {
      for (Path p : s.toList()) {
        BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        String content = a.isRegularFile() ? Sha256.of(Files.readAllBytes(p)) : "";
        m.put(top.relativize(p).toString(), (a.isDirectory() ? "d " : "f ") + a.size() + " "
            + a.lastModifiedTime().toMillis() + " " + content);
      }
    }
    return m;
  }
}
