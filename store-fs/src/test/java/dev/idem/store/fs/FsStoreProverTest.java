package dev.idem.store.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.proof.ProvenStore;
import dev.idem.core.proof.StoreMarker;
import dev.idem.core.proof.StoreRefusedException;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PutStatus;
import dev.idem.core.testing.Race;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A filesystem store proves hard links, directory fsync and file locks before idem writes to it. */
class FsStoreProverTest {
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-02T14:00:00Z"), ZoneOffset.UTC);
  private static final String KEY = Fixtures.key("orders", 1_726_000_000L);

  @TempDir
  Path dir;

  /** A seam call the test replaces. */
  @FunctionalInterface
  interface Override {
    Object call(Object[] args) throws Exception;
  }

  /** The real filesystem, except {@code method}. */
  static FsOps realExcept(String method, Override override) {
    FsOps real = FsOps.real();
    return (FsOps) Proxy.newProxyInstance(FsOps.class.getClassLoader(), new Class<?>[] {FsOps.class}, (p, m, args) -> {
      if (m.getName().equals(method)) {
        return override.call(args);
      }
      try {
        return m.invoke(real, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    });
  }

  private ProvenStore proven(Path root, FsOps ops) throws IOException {
    FsObjectStore store = FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(ops));
    return ProvenStore.wrap(store, FsStoreProver.of(store), "idem test", CLOCK);
  }

  private static List<Path> filesUnder(Path root) throws IOException {
    if (!Files.exists(root)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(Files::isRegularFile).map(root::relativize).sorted().toList();
    }
  }

  @Test
  void putIfAbsent_freshRoot_createsRootAndMarkerRecordingThreeHeldProbes() throws Exception {
    Path root = dir.resolve("store");
    ProvenStore store = proven(root, FsOps.real());

    assertEquals(PutStatus.CREATED, store.putIfAbsent(KEY, Fixtures.bytes("a"), "w").status());

    StoreMarker m = StoreMarker.parse(Files.readAllBytes(root.resolve("_idem/store")), "marker");
    assertEquals("file", m.kind());
    assertEquals("lock", m.pointerMode());
    assertEquals(List.of("hard-links", "directory-fsync", "file-locks"),
        m.probes().stream().map(p -> p.guarantee()).toList());
    assertTrue(m.probes().stream().allMatch(p -> p.held() && p.required()), m.toString());
    assertEquals(List.of(), filesUnder(root.resolve("_idem/probe")));
    assertTrue(filesUnder(root).contains(Path.of(KEY)), filesUnder(root).toString());
  }

  @Test
  void readsOnly_missingRoot_createNothing() throws Exception {
    Path root = dir.resolve("never-written");
    ProvenStore store = proven(root, FsOps.real());

    assertTrue(store.readPointer("orders").isEmpty());
    assertFalse(store.exists(KEY));
    assertTrue(store.stat(KEY).isEmpty());
    assertTrue(store.open(KEY).isEmpty());
    assertTrue(store.history("", h -> true));
    assertTrue(store.list("", o -> true));
    assertEquals(List.of(), store.sweep(Duration.ZERO, true));
    assertTrue(FsStoreProver.of((FsObjectStore) store.store()).environment().get("root").startsWith("not created yet"));

    assertFalse(Files.exists(root));
  }

  @Test
  void putIfAbsent_noHardLinks_refusedAndNothingPublished() throws Exception {
    Path root = dir.resolve("store");
    ProvenStore store = proven(root, realExcept("createLink", args -> {
      throw new UnsupportedOperationException("no links here");
    }));

    StoreRefusedException e = assertThrows(StoreRefusedException.class,
        () -> store.putIfAbsent(KEY, Fixtures.bytes("a"), "w"));

    assertEquals("file:" + root + " cannot make hard links (link(2) said: no links here); refusing to write:"
        + " idem's no-clobber publish depends on it (a rename would replace an object)", e.getMessage());
    assertEquals(List.of(), filesUnder(root));
  }

  @Test
  void putIfAbsent_linkReplacesExistingName_refused() throws Exception {
    Path root = dir.resolve("store");
    ProvenStore store = proven(root, realExcept("createLink", args -> {
      Path link = (Path) args[0];
      Files.deleteIfExists(link);
      return Files.createLink(link, (Path) args[1]);
    }));

    StoreRefusedException e = assertThrows(StoreRefusedException.class,
        () -> store.putIfAbsent(KEY, Fixtures.bytes("a"), "w"));

    assertTrue(e.getMessage().contains(" replaces an existing name on link(2)"), e.getMessage());
    assertEquals(List.of(), filesUnder(root));
  }

  @Test
  void putIfAbsent_directoryFsyncFails_refusedNamingIt() throws Exception {
    Path root = dir.resolve("store");
    Files.createDirectories(root.resolve("_idem/probe"));
    ProvenStore store = proven(root, realExcept("fsyncDirectory", args -> {
      throw new IOException("Invalid argument");
    }));

    StoreRefusedException e = assertThrows(StoreRefusedException.class,
        () -> store.putIfAbsent(KEY, Fixtures.bytes("a"), "w"));

    assertTrue(e.getMessage().contains(" cannot fsync a directory (Invalid argument); refusing to write"), e.getMessage());
    assertEquals(List.of(), filesUnder(root));
  }

  @Test
  void compareAndSetPointer_noFileLocks_refused() throws Exception {
    Path root = dir.resolve("store");
    ProvenStore store = proven(root, realExcept("tryLock", args -> {
      throw new IOException("No locks available");
    }));

    StoreRefusedException e = assertThrows(StoreRefusedException.class,
        () -> store.compareAndSetPointer("orders", null,
            new Pointer("orders", KEY, 1_726_000_000L, 60, 1, "ab".repeat(32), 1, "w", Instant.EPOCH)));

    assertTrue(e.getMessage().contains(" cannot lock files (No locks available)"), e.getMessage());
    assertEquals(List.of(), filesUnder(root));
  }

  @Test
  void requireWritable_racingFirstWriters_oneMarkerAllTrust() throws Exception {
    Path root = dir.resolve("store");
    List<StoreMarker> trusted = Race.run(6, i -> proven(root, FsOps.real()).requireWritable());

    StoreMarker stored = StoreMarker.parse(Files.readAllBytes(root.resolve("_idem/store")), "marker");
    trusted.forEach(m -> assertEquals(stored, m));
    assertEquals(List.of(Path.of("_idem/store")), filesUnder(root));
  }

  @Test
  void requireWritable_markerIsADirectory_refused() throws Exception {
    Path root = dir.resolve("store");
    Files.createDirectories(root.resolve("_idem/store"));

    StoreRefusedException e = assertThrows(StoreRefusedException.class, () -> proven(root, FsOps.real()).requireWritable());

    assertTrue(e.getMessage().contains("is not a regular file"), e.getMessage());
  }

  @Test
  void requireWritable_probeDirectoryIsALinkOutOfTheRoot_refusedAndNothingWrittenThere() throws Exception {
    Path root = dir.resolve("store");
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Files.createDirectories(root.resolve("_idem"));
    Files.createSymbolicLink(root.resolve("_idem/probe"), outside);

    assertThrows(LinkRefusedException.class, () -> proven(root, FsOps.real()).requireWritable());

    assertEquals(List.of(), filesUnder(outside));
  }

  @Test
  void requireWritable_markerIsALink_refused() throws Exception {
    Path root = dir.resolve("store");
    Files.createDirectories(root.resolve("_idem"));
    Path elsewhere = Files.write(dir.resolve("elsewhere"), new StoreMarker("file", "lock", Instant.EPOCH, "x",
        List.of()).toBytes());
    Files.createSymbolicLink(root.resolve("_idem/store"), elsewhere);

    LinkRefusedException e = assertThrows(LinkRefusedException.class, () -> proven(root, FsOps.real()).requireWritable());

    assertTrue(e.getMessage().contains("is a symbolic link under the store root"), e.getMessage());
  }
}
