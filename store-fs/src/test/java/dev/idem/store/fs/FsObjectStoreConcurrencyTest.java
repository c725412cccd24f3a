package dev.idem.store.fs;

import static dev.idem.store.fs.Fixtures.key;
import static dev.idem.store.fs.Fixtures.recordLines;
import static dev.idem.store.fs.Fixtures.tempFiles;
import static dev.idem.store.fs.Fixtures.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import dev.idem.core.publish.AdvanceReport;
import dev.idem.core.publish.AdvanceStatus;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.scan.KeyVerdict;
import dev.idem.core.testing.Race;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.PutStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real threads racing on one store (P3, P4, G2, G3); processes race in {@link FsObjectStoreMultiProcessTest}. */
class FsObjectStoreConcurrencyTest {
  private static final int THREADS = 12;

  @TempDir Path dir;
  Path root;
  FsObjectStore store;
  ExecutorService pool;

  @BeforeEach
  void open() throws IOException {
    root = dir.resolve("store");
    store = FsObjectStore.open(root);
    pool = Executors.newFixedThreadPool(THREADS + 1);
  }

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  @Test
  void putIfAbsent_manyThreadsSameBytes_exactlyOneCreatedOthersIdentical() throws Exception {
    for (int round = 0; round < 8; round++) {
      String k = key("same", 60L * round);
      byte[] content = utf8("the one output of window " + round);
      List<PutOutcome> outs = Race.run(THREADS, i -> store.putIfAbsent(k, Payload.ofBytes(content), "writer-" + i));

      assertEquals(1, outs.stream().filter(o -> o.status() == PutStatus.CREATED).count(), "P3: " + outs);
      assertEquals(THREADS - 1, outs.stream().filter(o -> o.status() == PutStatus.IDENTICAL).count(), "P3: " + outs);
      assertArrayEquals(content, Files.readAllBytes(root.resolve(k)));
      List<String> lines = recordLines(root, k);
      assertEquals(THREADS, lines.size(), lines.toString());
      assertEquals(1, lines.stream().filter(l -> l.contains(" CREATED ")).count(), lines.toString());
    }
    assertEquals(List.of(), tempFiles(root));
  }

  @Test
  void putIfAbsent_manyThreadsDifferentBytes_oneCreatedOthersDivergentEachWithEvidence() throws Exception {
    for (int round = 0; round < 4; round++) {
      String k = key("diverge", 60L * round);
      int r = round;
      List<byte[]> payloads = new ArrayList<>();
      for (int i = 0; i < THREADS; i++) {
        payloads.add(utf8("replica " + i + " thinks window " + r + " is different"));
      }
      List<PutOutcome> outs = Race.run(THREADS, i -> store.putIfAbsent(k, Payload.ofBytes(payloads.get(i)), "writer-" + i));

      List<Integer> created = new ArrayList<>();
      for (int i = 0; i < THREADS; i++) {
        PutOutcome o = outs.get(i);
        if (o.status() == PutStatus.CREATED) {
          created.add(i);
        } else {
          assertEquals(PutStatus.DIVERGENT, o.status(), "P3: " + outs);
          assertNotNull(o.evidenceKey());
          assertArrayEquals(payloads.get(i), Files.readAllBytes(root.resolve(o.evidenceKey())), "P4: its bytes kept");
        }
      }
      assertEquals(1, created.size(), "P3: " + outs);
      byte[] stored = Files.readAllBytes(root.resolve(k));
      assertArrayEquals(payloads.get(created.get(0)), stored, "the key holds the CREATED caller's bytes");
      for (PutOutcome o : outs) {
        assertEquals(Sha256.of(stored), o.stored().sha256(), "every caller was told what is stored");
      }
      KeyVerdict v = KeyVerdict.of(Fixtures.history(store, k).get(0));
      assertEquals(THREADS, v.payloads(), v.toString());
      assertEquals(THREADS - 1, v.divergentAttempts());
    }
    assertEquals(List.of(), tempFiles(root));
  }

  @Test
  void advance_manyThreadsRandomPositions_endsAtMaximumAndReaderNeverSeesRegression() throws Exception {
    List<Pointer> generations = new ArrayList<>();
    for (long w = 1; w <= 10; w++) {
      for (int schema = 1; schema <= 2; schema++) {
        generations.add(Fixtures.generation(store, "orders", 60 * w, schema));
      }
    }
    PointerAdvancer advancer = new PointerAdvancer(store, 10_000, 1);
    AtomicBoolean done = new AtomicBoolean();
    List<String> regressions = Collections.synchronizedList(new ArrayList<>());
    Future<Integer> reader = pool.submit(() -> {
      Pointer.Position last = null;
      int reads = 0;
      while (!done.get()) {
        Optional<PointerState> s = store.readPointer("orders");
        reads++;
        if (s.isPresent()) {
          Pointer.Position p = s.get().pointer().position();
          if (last != null && p.compareTo(last) < 0) {
            regressions.add(last + " then " + p);
          }
          last = p;
        }
      }
      return reads;
    });
    List<Pointer> offered = Collections.synchronizedList(new ArrayList<>());
    List<List<AdvanceReport>> reports;
    try {
      reports = Race.run(THREADS, i -> {
        Random random = new Random(1000 + i);
        List<AdvanceReport> mine = new ArrayList<>();
        for (int n = 0; n < 25; n++) {
          Pointer p = generations.get(random.nextInt(generations.size()));
          offered.add(p);
          mine.add(advancer.advance(p));
        }
        return mine;
      });
    } finally {
      done.set(true);
    }
    assertTrue(reader.get(30, TimeUnit.SECONDS) > 0);

    Pointer.Position max = offered.stream().map(Pointer::position).max(Pointer.Position::compareTo).orElseThrow();
    Pointer.Position end = store.readPointer("orders").orElseThrow().pointer().position();
    assertEquals(max, end, "G3: the greatest offered position wins");
    assertEquals(List.of(), regressions, "G2: a reader never sees the pointer go back");
    for (List<AdvanceReport> mine : reports) {
      for (AdvanceReport r : mine) {
        assertFalse(r.status().gaveUp(), r.toString());
        if (r.status() == AdvanceStatus.ADVANCED) {
          assertTrue(r.requested().position().compareTo(end) <= 0, r.toString());
        }
      }
    }
    assertTrue(reports.stream().flatMap(List::stream).anyMatch(r -> r.status() == AdvanceStatus.ADVANCED));
    assertEquals(List.of(), tempFiles(root));
  }
}
