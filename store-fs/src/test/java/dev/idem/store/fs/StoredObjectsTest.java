package dev.idem.store.fs;

import static dev.idem.store.fs.Fixtures.bytes;
import static dev.idem.store.fs.Fixtures.utf8;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StoredObjects#durableByRecord}: an object counts as durable by its record only while a CREATED
 * record describes it as it is now, which is what lets a pointer swap skip forcing it (G1).
 */
class StoredObjectsTest {
  private final String k = Fixtures.key("orders", 60);

  @TempDir Path dir;
  private Path root;
  private FsObjectStore store;

  @BeforeEach
  void open() throws IOException {
    root = Files.createDirectories(dir.resolve("store")).toRealPath();
    store = FsObjectStore.open(root);
  }

  private boolean durableByRecord() throws IOException {
    Layout layout = new Layout(root);
    return StoredObjects.durableByRecord(new ContainedFs(root, FsOps.real()), layout, k, layout.resolveKey(k));
  }

  @Test
  void durableByRecord_publishedObject_itsCreatedRecordVouches() throws IOException {
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    assertTrue(durableByRecord());
  }

  @Test
  void durableByRecord_objectGoneRecordKept_false() throws IOException {
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    Files.delete(root.resolve(k));
    assertFalse(durableByRecord(), "no object, nothing to vouch for");
  }

  @Test
  void durableByRecord_objectWrittenWithoutIdem_false() throws IOException {
    Files.createDirectories(root.resolve(k).getParent());
    Files.write(root.resolve(k), utf8("alpha"));
    assertFalse(durableByRecord());
  }

  @Test
  void durableByRecord_objectRewrittenAfterItsRecord_false() throws IOException {
    store.putIfAbsent(k, bytes("alpha"), "writer-a");
    Files.write(root.resolve(k), utf8("a longer content"));
    assertFalse(durableByRecord(), "the record describes other bytes");
  }
}
