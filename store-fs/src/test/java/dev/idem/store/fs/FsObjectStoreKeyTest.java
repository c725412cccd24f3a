package dev.idem.store.fs;

import static dev.idem.store.fs.Fixtures.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.PutStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Keys become paths: nothing a caller passes may escape the root or touch the store's own files. */
class FsObjectStoreKeyTest {
  @TempDir Path dir;
  Path root;
  FsObjectStore store;

  @BeforeEach
  void open() throws IOException {
    root = dir.resolve("store");
    Files.createDirectories(root);
    store = FsObjectStore.open(root);
  }

  @ParameterizedTest
  @ValueSource(strings = {"../escape", "a/../../b", "a/..", "/etc/passwd", "/abs", "a//b", "./a", "a/./b", "a/",
      "a\\b", "", "a\u0000b", "tab\there", "_idem/ledger/x", "_idem", "_IDEM/x", "_idemx/y", "_Idem-pointers/z",
      ".tmp-x", "a/.tmp-b", "a/.TMP-b/c", "a/.tmp-"})
  void everyMethod_reservedOrEscapingKey_rejectedNothingWritten(String bad) throws IOException {
    assertThrows(IllegalArgumentException.class, () -> store.putIfAbsent(bad, bytes("x"), "writer-a"), bad);
    assertThrows(IllegalArgumentException.class, () -> store.exists(bad), bad);
    assertThrows(IllegalArgumentException.class, () -> store.stat(bad), bad);
    assertThrows(IllegalArgumentException.class, () -> store.open(bad), bad);
    assertThrows(IllegalArgumentException.class, () -> store.delete(bad), bad);
    assertEquals(List.of(), Fixtures.filesUnder(dir), "nothing written anywhere");
    try (var s = Files.list(root)) {
      assertEquals(0, s.count(), "no directory made either");
    }
  }

  @Test
  void putIfAbsent_nullKey_rejected() {
    assertThrows(IllegalArgumentException.class, () -> store.putIfAbsent(null, bytes("x"), "writer-a"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"x/_idem", "a/_idem/b", "_id/x", "idem/x", "a/.hidden", "a/tmp-b", "a/..b", "...", "a b/c"})
  void putIfAbsent_unusualButSafeKey_storedUnderTheRoot(String key) throws IOException {
    assertEquals(PutStatus.CREATED, store.putIfAbsent(key, bytes("x"), "writer-a").status());
    assertTrue(Files.isRegularFile(root.resolve(key)));
    assertEquals(List.of(key), Fixtures.listKeys(store, ""));
  }

  @Test
  void putIfAbsent_nonAsciiKey_storedWhereNamesAreUtf8ElseRejectedClearly() throws IOException {
    String key = "ünïcode/ключ";
    if ("UTF-8".equals(System.getProperty("sun.jnu.encoding"))) {
      assertEquals(PutStatus.CREATED, store.putIfAbsent(key, bytes("x"), "writer-a").status());
      assertEquals(List.of(key), Fixtures.listKeys(store, ""));
    } else {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> store.putIfAbsent(key, bytes("x"), "writer-a"));
      assertTrue(e.getMessage().contains("not a valid path"), e.getMessage());
      assertEquals(List.of(), Fixtures.filesUnder(root));
    }
  }

  @Test
  void open_evidenceKeyEscaping_rejected() {
    assertThrows(IllegalArgumentException.class, () -> store.open("_idem/evidence/../pointers/p/latest"));
    assertThrows(IllegalArgumentException.class, () -> store.open("_idem/evidence/../../../etc/passwd"));
  }

  @Test
  void open_otherInternalFiles_rejected() {
    assertThrows(IllegalArgumentException.class, () -> store.open("_idem/pointers/p/latest"));
    assertThrows(IllegalArgumentException.class, () -> store.open("_idem/ledger/x.log"));
  }

  @Test
  void readPointer_invalidPipeline_rejected() {
    for (String bad : List.of("../x", "a/b", "", "UPPER", "_idem", ".")) {
      assertThrows(IllegalArgumentException.class, () -> store.readPointer(bad), bad);
    }
    assertFalse(Files.exists(root.resolve("_idem")));
  }
}
