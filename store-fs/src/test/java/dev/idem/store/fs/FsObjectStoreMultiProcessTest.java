package dev.idem.store.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import dev.idem.core.publish.AdvanceReport;
import dev.idem.core.publish.AdvanceStatus;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Separate JVMs on one store: kernel file locks and {@code link(2)} are what keeps processes apart, so
 * threads alone would not test them (P3, P4, G2, G3, G4 across processes).
 */
class FsObjectStoreMultiProcessTest {
  private static final int PROCESSES = 4;
  private static final int ROUNDS = 5;

  @TempDir Path dir;

  private record Put(String writer, int round, String status, String attemptSha, String storedSha, String evidence) {}

  private record Adv(String status, Pointer.Position position) {}

  private void runRace(Path root, boolean same, List<Put> puts, List<Adv> advs, List<String> regressions) throws Exception {
    List<Child> children = new ArrayList<>();
    AtomicBoolean done = new AtomicBoolean();
    try {
      for (int i = 0; i < PROCESSES; i++) {
        children.add(Child.start(dir.resolve("logs"), "race", root.toString(), "writer-" + i, String.valueOf(ROUNDS),
            same ? "same" : "own", String.valueOf(100 + i)));
      }
      for (Child c : children) {
        c.await("READY");
      }
      FsObjectStore reader = FsObjectStore.open(root);
      CompletableFuture<Void> watching = CompletableFuture.runAsync(() -> {
        Pointer.Position last = null;
        while (!done.get()) {
          try {
            Optional<PointerState> s = reader.readPointer("race");
            if (s.isPresent()) {
              Pointer.Position p = s.get().pointer().position();
              if (last != null && p.compareTo(last) < 0) {
                regressions.add(last + " then " + p);
              }
              last = p;
            }
          } catch (IOException e) {
            regressions.add("read failed: " + e.getMessage());
          }
        }
      });
      for (Child c : children) {
        c.send("GO");
      }
      for (int i = 0; i < PROCESSES; i++) {
        Child c = children.get(i);
        c.await("DONE");
        assertEquals(0, c.exit(), c.stderr());
        for (String line : c.seen()) {
          String[] f = line.split(" ");
          if (f[0].equals("PUT")) {
            puts.add(new Put("writer-" + i, Integer.parseInt(f[1]), f[2], f[3], f[4], f[5]));
          } else if (f[0].equals("ADV")) {
            advs.add(new Adv(f[2], new Pointer.Position(Long.parseLong(f[3]), Integer.parseInt(f[4]))));
          }
        }
      }
      done.set(true);
      watching.get(30, TimeUnit.SECONDS);
    } finally {
      done.set(true);
      for (Child c : children) {
        c.close();
      }
    }
  }

  private static void assertPointerAtMaximum(Path root, List<Adv> advs, List<String> regressions) throws IOException {
    FsObjectStore store = FsObjectStore.open(root);
    Pointer.Position end = store.readPointer("race").orElseThrow().pointer().position();
    Pointer.Position max = advs.stream().map(Adv::position).max(Pointer.Position::compareTo).orElseThrow();
    assertEquals(max, end, "G3: " + advs);
    assertEquals(List.of(), regressions, "G2");
    for (Adv a : advs) {
      assertFalse(AdvanceStatus.valueOf(a.status()).gaveUp(), a.toString());
      if (a.status().equals("ADVANCED")) {
        assertTrue(a.position().compareTo(end) <= 0, a.toString());
      }
    }
  }

  @Test
  void putIfAbsentAndAdvance_processesWithSameBytes_oneCreatedOthersIdenticalPointerAtMaximum() throws Exception {
    Path root = dir.resolve("store");
    List<Put> puts = new ArrayList<>();
    List<Adv> advs = new ArrayList<>();
    List<String> regressions = Collections.synchronizedList(new ArrayList<>());

    runRace(root, true, puts, advs, regressions);

    for (int r = 0; r < ROUNDS; r++) {
      int round = r;
      List<Put> mine = puts.stream().filter(p -> p.round() == round).toList();
      assertEquals(PROCESSES, mine.size());
      assertEquals(1, mine.stream().filter(p -> p.status().equals("CREATED")).count(), "P3: " + mine);
      assertEquals(PROCESSES - 1, mine.stream().filter(p -> p.status().equals("IDENTICAL")).count(), "P3: " + mine);
      String k = StoreWorker.key("race", 60L * (r + 1), 1);
      assertArrayEquals(StoreWorker.content(k, "canonical", 20_000), Files.readAllBytes(root.resolve(k)));
    }
    assertPointerAtMaximum(root, advs, regressions);
    StoreInvariants.assertConsistent(root);
  }

  @Test
  void putIfAbsentAndAdvance_processesWithOwnBytes_oneCreatedOthersDivergentWithEvidence() throws Exception {
    Path root = dir.resolve("store");
    List<Put> puts = new ArrayList<>();
    List<Adv> advs = new ArrayList<>();
    List<String> regressions = Collections.synchronizedList(new ArrayList<>());

    runRace(root, false, puts, advs, regressions);

    for (int r = 0; r < ROUNDS; r++) {
      int round = r;
      List<Put> mine = puts.stream().filter(p -> p.round() == round).toList();
      List<Put> created = mine.stream().filter(p -> p.status().equals("CREATED")).toList();
      assertEquals(1, created.size(), "P3: " + mine);
      String k = StoreWorker.key("race", 60L * (r + 1), 1);
      byte[] stored = Files.readAllBytes(root.resolve(k));
      assertArrayEquals(StoreWorker.content(k, created.get(0).writer(), 20_000), stored, "the CREATED process's bytes");
      for (Put p : mine) {
        assertEquals(Sha256.of(stored), p.storedSha());
        if (p != created.get(0)) {
          assertEquals("DIVERGENT", p.status(), "P3: " + mine);
          assertEquals(p.attemptSha(), Sha256.of(Files.readAllBytes(root.resolve(p.evidence()))), "P4: evidence kept");
        }
      }
      assertEquals(PROCESSES, Fixtures.recordLines(root, k).size());
    }
    assertPointerAtMaximum(root, advs, regressions);
    StoreInvariants.assertConsistent(root);
  }

  @Test
  void compareAndSetPointer_lockHolderProcess_busyWhileAliveFreeAtOnceWhenKilled() throws Exception {
    Path root = dir.resolve("store");
    FsObjectStore store = FsObjectStore.open(root, FsObjectStore.Options.defaults().withLockTimeout(Duration.ofMillis(100)));
    Pointer p = Fixtures.generation(store, "held", 60, 1);
    try (Child holder = Child.start(dir.resolve("logs"), "hold-lock", root.toString(), "held")) {
      assertEquals("LOCKED", holder.await(l -> true));

      assertEquals(CasResult.BUSY, store.compareAndSetPointer("held", null, p));

      holder.kill();
    }
    FsObjectStore immediate = FsObjectStore.open(root, FsObjectStore.Options.defaults().withLockTimeout(Duration.ZERO));
    assertEquals(CasResult.SWAPPED, immediate.compareAndSetPointer("held", null, p), "G4: the kernel released it");
  }

  @Test
  void advance_lockHeldByAProcessThatNeverLetsGo_busyByTheAdvanceDeadlineNotTheLockTimeout() throws Exception {
    Path root = dir.resolve("store");
    // A lock timeout no test would wait out: only the advance's own deadline can end this wait.
    FsObjectStore store = FsObjectStore.open(root, FsObjectStore.Options.defaults().withLockTimeout(Duration.ofHours(1)));
    Pointer p = Fixtures.generation(store, "held", 60, 1);
    PointerAdvancer advancer = new PointerAdvancer(store).withDeadline(Duration.ofMillis(300));
    try (Child holder = Child.start(dir.resolve("logs"), "hold-lock", root.toString(), "held")) {
      assertEquals("LOCKED", holder.await(l -> true));

      AdvanceReport r = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> advancer.advance(p));

      assertEquals(AdvanceStatus.BUSY, r.status(), r.toString());
      assertTrue(store.readPointer("held").isEmpty(), "nothing written");
      holder.kill();
    }
    assertEquals(AdvanceStatus.ADVANCED, advancer.advance(p).status(), "G4: the kernel released the killed holder's lock");
  }
}
