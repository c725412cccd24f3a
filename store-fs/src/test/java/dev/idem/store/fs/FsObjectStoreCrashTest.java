package dev.idem.store.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.idem.core.publish.AdvanceStatus;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PutStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL of writer processes (C1, G4). Two kinds: at every filesystem call of a publish and of a
 * pointer swap exactly (the child blocks at the call, the parent kills it there); and at arbitrary
 * points of publish-and-advance loops (killed after a seeded number of progress lines). Afterwards
 * {@link StoreInvariants} must hold and a new writer must carry on at once.
 */
class FsObjectStoreCrashTest {
  @TempDir Path dir;

  private List<FaultyOps.Call> record(String scenario) throws IOException {
    Path root = dir.resolve("recording-" + scenario);
    CrashScenario.setUp(root);
    FaultyOps rec = FaultyOps.recording();
    CrashScenario.run(FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(rec)), scenario);
    // PausingOps pauses only at calls that change the filesystem: a kill at a read reveals nothing new.
    return rec.calls().stream().filter(c -> c.op().mutating()).toList();
  }

  @TestFactory
  Stream<DynamicTest> sigkill_atEachCallOfPublishAndPointerSwap_storeConsistentAndWritersCarryOn() throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    for (String scenario : List.of("put", "cas")) {
      List<FaultyOps.Call> calls = record(scenario);
      IntStream.range(0, calls.size()).forEach(i -> tests.add(dynamicTest(
          scenario + ": killed before call " + i + " (" + calls.get(i) + ")", () -> killAt(scenario, i))));
    }
    return tests.stream();
  }

  private void killAt(String scenario, int index) throws Exception {
    Path root = dir.resolve(scenario + "-" + index);
    CrashScenario.setUp(root);
    try (Child child = Child.start(dir.resolve("logs"), "pause", root.toString(), scenario, String.valueOf(index))) {
      child.await("PAUSED");
      child.kill();
    }

    Path fresh = root.resolve(CrashScenario.FRESH);
    if (Files.exists(fresh)) {
      assertArrayEquals(CrashScenario.bytesOf(CrashScenario.FRESH), Files.readAllBytes(fresh), "P1");
    }
    FsObjectStore store = FsObjectStore.open(root);
    Pointer now = store.readPointer(CrashScenario.PIPELINE).orElseThrow().pointer();
    assertTrue(now.key().equals(CrashScenario.OLD) || now.key().equals(CrashScenario.NEXT), now.toString());
    StoreInvariants.assertConsistent(root);

    boolean existed = Files.exists(fresh);
    PutStatus retry = store.putIfAbsent(CrashScenario.FRESH, Payload.ofBytes(CrashScenario.bytesOf(CrashScenario.FRESH)), "after").status();
    assertEquals(existed ? PutStatus.IDENTICAL : PutStatus.CREATED, retry);
    AdvanceStatus adv = new PointerAdvancer(store).advance(CrashScenario.pointer(store, CrashScenario.NEXT, 3)).status();
    assertTrue(adv == AdvanceStatus.ADVANCED || adv == AdvanceStatus.ALREADY_CURRENT, adv.toString());
    StoreInvariants.assertConsistent(root);
  }

  @Test
  void sigkill_publishLoopsAtSeededProgressCounts_storeConsistentAfterEachRound() throws Exception {
    Path root = dir.resolve("loops");
    Random seeds = new Random(20240910);
    for (int round = 0; round < 4; round++) {
      int progress = 1 + seeds.nextInt(8);
      List<Child> children = new ArrayList<>();
      try {
        for (int c = 0; c < 2; c++) {
          children.add(Child.start(dir.resolve("logs"), "loop", root.toString(), "looper-" + round + "-" + c,
              String.valueOf(seeds.nextLong())));
        }
        for (int n = 0; n < progress; n++) {
          children.get(0).await("PROGRESS");
        }
      } finally {
        for (Child c : children) {
          c.kill();
        }
      }
      StoreInvariants.assertConsistent(root);
    }
    FsObjectStore store = FsObjectStore.open(root);
    assertTrue(store.readPointer("loop").isPresent(), "the loops advanced the pointer");
  }
}
