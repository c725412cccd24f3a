package dev.idem.store.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.ListedObject;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.PointerState;
import dev.idem.core.store.PutStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What must hold of a store after anything, including SIGKILL of its writers at any instant (C1): every
 * visible object is whole and its recorded hash is its content's; each key was CREATED at most once;
 * each pointer parses and names a whole object (G1); no lock is left held (G4); anything else on disk
 * is a {@code .tmp-} file, and sweep removes them all; publish lock files are empty.
 */
final class StoreInvariants {
  private StoreInvariants() {}

  static void assertConsistent(Path root) throws IOException {
    FsObjectStore store = FsObjectStore.open(root, FsObjectStore.Options.defaults().withLockTimeout(Duration.ZERO));
    Set<Path> accounted = new HashSet<>();

    List<ListedObject> objects = new ArrayList<>();
    store.list("", objects::add);
    for (ListedObject o : objects) {
      byte[] bytes = Files.readAllBytes(root.resolve(o.key()));
      byte[] expected = StoreWorker.expectedFromHeader(bytes);
      assertNotNull(expected, "P1: " + o.key() + " starts with a header");
      assertArrayEquals(expected, bytes, "P1: " + o.key() + " is whole");
      ObjectInfo info = store.stat(o.key()).orElseThrow();
      assertEquals(Sha256.of(bytes), info.sha256(), "recorded hash of " + o.key());
      accounted.add(root.resolve(o.key()));
    }

    Path records = root.resolve("_idem/records");
    ContainedFs fs = new ContainedFs(root, FsOps.real());
    Map<String, List<RecordLine>> createdByKey = new TreeMap<>();
    for (Path record : filesIn(records)) {
      accounted.add(record);
      if (record.getFileName().toString().equals(KeyPublishLocks.FILE_NAME)) {
        assertEquals(0, Files.size(record), "a publish lock file is never written: " + record);
        continue;
      }
      String name = Records.objectNameOf(record.getFileName().toString());
      assertNotNull(name, "a record's name: " + record);
      String key = records.relativize(record.getParent().resolve(name)).toString();
      for (RecordLine l : Records.read(fs, List.of(record))) {
        if (l.status() == PutStatus.CREATED) {
          createdByKey.computeIfAbsent(key, k -> new ArrayList<>()).add(l);
        }
      }
    }
    createdByKey.forEach((key, created) -> {
      assertTrue(created.size() <= 1, "P3: one CREATED per key: " + key + " " + created);
      Path object = root.resolve(key);
      try {
        if (Files.exists(object)) {
          assertEquals(Sha256.of(Files.readAllBytes(object)), created.get(0).sha256(), key);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });

    Path evidence = root.resolve("_idem/evidence");
    for (Path e : filesIn(evidence)) {
      accounted.add(e);
      assertEquals(e.getFileName().toString(), Sha256.of(Files.readAllBytes(e)), "evidence named by its hash");
    }

    for (Path pipelineDir : dirsIn(root.resolve("_idem/pointers"))) {
      String pipeline = pipelineDir.getFileName().toString();
      accounted.add(pipelineDir.resolve("latest.lock"));
      accounted.add(pipelineDir.resolve("latest"));
      Optional<PointerState> s = store.readPointer(pipeline);
      if (s.isPresent()) {
        ObjectInfo target = store.stat(s.get().pointer().key()).orElseThrow(() -> new AssertionError("G1: pointer names a missing object"));
        assertEquals(s.get().pointer().sha256(), target.sha256(), "G1");
        assertEquals(s.get().pointer().size(), target.size(), "G1");
        assertEquals(CasResult.SWAPPED, store.compareAndSetPointer(pipeline, s.get().token(), s.get().pointer()),
            "G4: no stale lock on " + pipeline);
      }
    }

    List<Path> stray = new ArrayList<>();
    for (Path f : filesIn(root)) {
      if (!accounted.contains(f)) {
        stray.add(f);
      }
    }
    for (Path f : stray) {
      assertTrue(f.getFileName().toString().startsWith(".tmp-"), "only temporaries are left over: " + f);
    }
    store.sweep(Duration.ZERO, false);
    assertEquals(List.of(), Fixtures.tempFiles(root), "sweep removes every leftover");
  }

  private static List<Path> filesIn(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).toList();
    }
  }

  private static List<Path> dirsIn(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(Files::isDirectory).toList();
    }
  }
}
