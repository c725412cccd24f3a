package dev.idem.store.fs;

import static dev.idem.store.fs.Fixtures.generation;
import static dev.idem.store.fs.Fixtures.tempFiles;
import static dev.idem.store.fs.Fixtures.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FsObjectStore#readPointer} and {@link FsObjectStore#compareAndSetPointer}. */
class FsObjectStorePointerTest {
  @TempDir Path dir;
  Path root;
  Path latest;
  FsObjectStore store;

  @BeforeEach
  void open() throws IOException {
    root = dir.resolve("store");
    latest = root.resolve("_idem/pointers/orders/latest");
    store = FsObjectStore.open(root);
  }

  @Test
  void readPointer_none_empty() throws IOException {
    assertTrue(store.readPointer("orders").isEmpty());
  }

  @Test
  void compareAndSetPointer_create_fileIsTheDocumentTokenIsItsHash() throws IOException {
    Pointer p = generation(store, "orders", 60, 1);

    assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", null, p));

    assertArrayEquals(p.toBytes(), Files.readAllBytes(latest));
    PointerState s = store.readPointer("orders").orElseThrow();
    assertEquals(p, s.pointer());
    assertEquals(Sha256.of(p.toBytes()), s.token());
    assertTrue(Files.exists(latest.resolveSibling("latest.lock")));
    assertEquals(List.of(), tempFiles(root));
  }

  @Test
  void compareAndSetPointer_advanceWithCurrentToken_swapped() throws IOException {
    store.compareAndSetPointer("orders", null, generation(store, "orders", 60, 1));
    String token = store.readPointer("orders").orElseThrow().token();
    Pointer next = generation(store, "orders", 120, 1);

    assertEquals(CasResult.SWAPPED, store.compareAndSetPointer("orders", token, next));

    assertEquals(next, store.readPointer("orders").orElseThrow().pointer());
  }

  @Test
  void compareAndSetPointer_staleToken_conflictNothingWritten() throws IOException {
    store.compareAndSetPointer("orders", null, generation(store, "orders", 60, 1));
    String stale = store.readPointer("orders").orElseThrow().token();
    store.compareAndSetPointer("orders", stale, generation(store, "orders", 120, 1));
    byte[] before = Files.readAllBytes(latest);

    assertEquals(CasResult.CONFLICT, store.compareAndSetPointer("orders", stale, generation(store, "orders", 180, 1)));

    assertArrayEquals(before, Files.readAllBytes(latest));
    assertEquals(List.of(), tempFiles(root));
  }

  @Test
  void compareAndSetPointer_tokenExpectedButNoPointer_conflict() throws IOException {
    Pointer p = generation(store, "orders", 60, 1);
    assertEquals(CasResult.CONFLICT, store.compareAndSetPointer("orders", Sha256.of(p.toBytes()), p));
    assertEquals(CasResult.CONFLICT, store.compareAndSetPointer("orders", "not-a-token", p));
    assertTrue(store.readPointer("orders").isEmpty());
  }

  @Test
  void compareAndSetPointer_noneExpectedButPresent_conflict() throws IOException {
    store.compareAndSetPointer("orders", null, generation(store, "orders", 60, 1));
    assertEquals(CasResult.CONFLICT, store.compareAndSetPointer("orders", null, generation(store, "orders", 120, 1)));
  }

  @Test
  void readPointer_malformedFile_errorNamingThePath() throws IOException {
    Files.createDirectories(latest.getParent());
    Files.write(latest, utf8("idem-pointer 1\npipeline=orders\n"));

    Pointer.MalformedPointerException e =
        assertThrows(Pointer.MalformedPointerException.class, () -> store.readPointer("orders"));
    assertTrue(e.getMessage().contains(latest.toString()), e.getMessage());
  }

  @Test
  void compareAndSetPointer_malformedFile_errorAndFileLeftAsIs() throws IOException {
    Pointer p = generation(store, "orders", 60, 1);
    Files.createDirectories(latest.getParent());
    byte[] garbage = utf8("not a pointer\n");
    Files.write(latest, garbage);

    assertThrows(Pointer.MalformedPointerException.class, () -> store.compareAndSetPointer("orders", null, p));
    assertThrows(Pointer.MalformedPointerException.class,
        () -> store.compareAndSetPointer("orders", Sha256.of(garbage), p), "not even with its own token");

    assertArrayEquals(garbage, Files.readAllBytes(latest));
    assertEquals(List.of(), tempFiles(root));
  }

  @Test
  void readPointer_anotherPipelinesDocument_malformed() throws IOException {
    Pointer other = generation(store, "billing", 60, 1);
    Files.createDirectories(latest.getParent());
    Files.write(latest, other.toBytes());

    Pointer.MalformedPointerException e =
        assertThrows(Pointer.MalformedPointerException.class, () -> store.readPointer("orders"));
    assertTrue(e.getMessage().contains("billing"), e.getMessage());
  }

  @Test
  void readPointer_hugeFile_malformedWithoutReadingItAll() throws IOException {
    Files.createDirectories(latest.getParent());
    Files.write(latest, new byte[1 << 20]);
    assertThrows(Pointer.MalformedPointerException.class, () -> store.readPointer("orders"));
  }

  @Test
  void compareAndSetPointer_otherPipelinesPointer_rejected() throws IOException {
    Pointer billing = generation(store, "billing", 60, 1);
    assertThrows(IllegalArgumentException.class, () -> store.compareAndSetPointer("orders", null, billing));
    assertTrue(Files.notExists(latest));
  }

  @Test
  void compareAndSetPointer_lockHeldByAnotherThread_busyAfterTimeoutThenSwapped() throws Exception {
    Pointer p = generation(store, "orders", 60, 1);
    Files.createDirectories(latest.getParent());
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
      try (InterProcessLock lock = InterProcessLock.acquire(FsOps.real(), latest.resolveSibling("latest.lock"), Duration.ZERO)) {
        assertNotNull(lock);
        held.countDown();
        release.await();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    assertTrue(held.await(10, TimeUnit.SECONDS));
    FsObjectStore impatient = FsObjectStore.open(root, FsObjectStore.Options.defaults().withLockTimeout(Duration.ofMillis(30)));

    assertEquals(CasResult.BUSY, impatient.compareAndSetPointer("orders", null, p));
    assertTrue(Files.notExists(latest));

    release.countDown();
    holder.get(10, TimeUnit.SECONDS);
    assertEquals(CasResult.SWAPPED, impatient.compareAndSetPointer("orders", null, p));
  }

  @Test
  void compareAndSetPointer_fileLockedOutsideTheStoreInThisJvm_busyNotOverlappingError() throws IOException {
    Pointer p = generation(store, "orders", 60, 1);
    Files.createDirectories(latest.getParent());
    FsObjectStore impatient = FsObjectStore.open(root, FsObjectStore.Options.defaults().withLockTimeout(Duration.ofMillis(20)));
    try (FileChannel ch = FileChannel.open(latest.resolveSibling("latest.lock"), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE); FileLock lock = ch.lock()) {
      assertTrue(lock.isValid());
      assertEquals(CasResult.BUSY, impatient.compareAndSetPointer("orders", null, p));
    }
    assertEquals(CasResult.SWAPPED, impatient.compareAndSetPointer("orders", null, p));
  }

  @Test
  void compareAndSetPointer_twoStoresOnOneRoot_shareTheLock() throws IOException {
    FsObjectStore other = FsObjectStore.open(root);
    store.compareAndSetPointer("orders", null, generation(store, "orders", 60, 1));
    String token = other.readPointer("orders").orElseThrow().token();
    assertEquals(CasResult.SWAPPED, other.compareAndSetPointer("orders", token, generation(store, "orders", 120, 1)));
    assertEquals(120, store.readPointer("orders").orElseThrow().pointer().windowStart());
  }
}
