package dev.idem.store.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * For any set of keys a filesystem can hold together, {@code list} and {@code history} return exactly
 * the keys with the prefix, in ascending string order. Segments come from a tiny alphabet with the
 * characters that sort around {@code '/'} ({@code '-'}, {@code '.'} below it, {@code '0'} above), so
 * directory-order mistakes show up quickly.
 */
class FsObjectStoreOrderProperties {

  @Provide
  Arbitrary<Set<String>> keySets() {
    Arbitrary<String> segment = Arbitraries.strings().withChars('a', 'b', '-', '.', '0').ofMinLength(1).ofMaxLength(3)
        .filter(s -> !s.equals(".") && !s.equals(".."));
    Arbitrary<String> key = segment.list().ofMinSize(1).ofMaxSize(3).map(l -> String.join("/", l));
    return key.set().ofMinSize(1).ofMaxSize(12);
  }

  @Provide
  Arbitrary<String> prefixes() {
    return Arbitraries.strings().withChars('a', 'b', '-', '.', '0', '/').ofMaxLength(4);
  }

  @Property(tries = 60, seed = "20240910")
  void listAndHistory_anyKeys_ascendingAndFilteredByPrefix(
      @ForAll("keySets") Set<String> candidates, @ForAll("prefixes") String prefix) throws IOException {
    Path dir = Files.createTempDirectory("idem-order");
    try {
      FsObjectStore store = FsObjectStore.open(dir);
      // A key and a key below it cannot both be files; keep the first of each clash.
      Set<String> keys = new TreeSet<>();
      for (String k : candidates) {
        if (keys.stream().noneMatch(o -> o.startsWith(k + "/") || k.startsWith(o + "/"))) {
          keys.add(k);
        }
      }
      for (String k : keys) {
        // Written directly: listing must not depend on how a file got there (no record for these).
        Path p = dir.resolve(k);
        Files.createDirectories(p.getParent());
        Files.write(p, k.getBytes(StandardCharsets.UTF_8));
      }
      List<String> expected = keys.stream().filter(k -> k.startsWith(prefix)).sorted().toList();

      assertEquals(expected, Fixtures.listKeys(store, prefix));
      assertEquals(expected, Fixtures.historyKeys(store, prefix));
    } finally {
      deleteRecursively(dir);
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    List<Path> all = new ArrayList<>();
    try (Stream<Path> s = Files.walk(dir)) {
      s.forEach(all::add);
    }
    all.sort(Comparator.reverseOrder());
    for (Path p : all) {
      Files.delete(p);
    }
  }
}
