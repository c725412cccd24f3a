package dev.idem.store.fs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.ListedObject;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** Small helpers shared by the store's tests. */
final class Fixtures {
  private Fixtures() {}

  static String key(String pipeline, long windowStart) {
    return key(pipeline, windowStart, 1);
  }

  static String key(String pipeline, long windowStart, int schema) {
    return RunSpec.of(pipeline, new Window(windowStart, 60), schema).outputKey().toString();
  }

  static Payload bytes(String s) {
    return Payload.ofBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] read(ObjectStore store, String key) throws IOException {
    Optional<InputStream> in = store.open(key);
    assertTrue(in.isPresent(), "expected an object at " + key);
    try (InputStream s = in.get()) {
      return s.readAllBytes();
    }
  }

  /** Publishes (if needed) the generation for {@code (windowStart, schema)} and a pointer to it. */
  static Pointer generation(ObjectStore store, String pipeline, long windowStart, int schema) throws IOException {
    String k = key(pipeline, windowStart, schema);
    if (!store.exists(k)) {
      store.putIfAbsent(k, bytes("generation " + pipeline + "/" + windowStart + "/" + schema), "writer-g");
    }
    return Pointer.to(store.stat(k).orElseThrow(), 60, schema, "writer-g", Instant.EPOCH);
  }

  static List<String> listKeys(ObjectStore store, String prefix) throws IOException {
    List<String> keys = new ArrayList<>();
    store.list(prefix, (ListedObject o) -> keys.add(o.key()));
    return keys;
  }

  static List<KeyHistory> history(ObjectStore store, String prefix) throws IOException {
    List<KeyHistory> out = new ArrayList<>();
    store.publishHistory().orElseThrow().history(prefix, out::add);
    return out;
  }

  static List<String> historyKeys(ObjectStore store, String prefix) throws IOException {
    return history(store, prefix).stream().map(KeyHistory::key).toList();
  }

  /** Every {@code .tmp-} file anywhere under {@code root}, but the publish lock files (never temporary). */
  static List<Path> tempFiles(Path root) throws IOException {
    return filesUnder(root).stream().filter(p -> p.getFileName().toString().startsWith(".tmp-")
        && !p.getFileName().toString().equals(KeyPublishLocks.FILE_NAME)).toList();
  }

  /** Every regular file under {@code root}, as paths relative to it, sorted. */
  static List<Path> filesUnder(Path root) throws IOException {
    if (!Files.exists(root)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(Files::isRegularFile).map(root::relativize).sorted().toList();
    }
  }

  /** The content of each record of {@code key} (one line each, without its newline), oldest first. */
  static List<String> recordLines(Path root, String key) {
    Path dir = root.resolve("_idem/records").resolve(key).getParent();
    String name = root.resolve(key).getFileName().toString();
    try {
      List<RecordLine> lines = Records.read(new ContainedFs(root, FsOps.real()),
          Records.filesOf(new ContainedFs(root, FsOps.real()), dir, name));
      return lines.stream().map(l -> l.format().stripTrailing()).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }}
