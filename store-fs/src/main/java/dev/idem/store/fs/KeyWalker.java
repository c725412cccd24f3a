package dev.idem.store.fs;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Walks the keys of a store in ascending key order, merging the object tree with the bookkeeping trees
 * (records, evidence), so keys whose object retention deleted, or that hold only evidence, still appear
 * when their history is asked for.
 *
 * <p><b>Order.</b> Keys are compared as Java strings. Within one directory, a file {@code n} stands
 * for the key {@code prefix + n} and a directory {@code n} for keys starting {@code prefix + n + "/"};
 * sorting the siblings by {@code n} for files and {@code n + "/"} for directories orders them exactly as
 * their keys (two such names never are a prefix of one another except {@code n} before {@code n/…},
 * which is the key order too). Recursing into each directory at its place in that order yields all keys
 * in ascending order. In the record tree a file {@code n!…} stands for the key {@code prefix + n}; in the
 * evidence tree a directory {@code n} (which is also walked for the evidence of keys below it).
 *
 * <p><b>Memory.</b> One sorted listing per directory level on the current path, never the whole store.
 *
 * <p><b>What is skipped, what is refused.</b> Names no key may have ({@link #isKeySegment}): {@code
 * .tmp-…} temporaries anywhere and, at the top level, the {@code _idem} bookkeeping tree, are skipped;
 * so are special files (fifos, sockets). A symbolic link is refused ({@link LinkRefusedException}):
 * following it could leave the root, and skipping it could hide a pipeline's keys from the scan.
 * Every directory is listed through {@link ContainedFs}.
 */
final class KeyWalker {
  static final String TEMP_PREFIX = ".tmp-";
  static final String INTERNAL_PREFIX = "_idem";

  /** Receives each key with what the store holds for it. */
  interface Visitor {
    boolean visit(String key, Found found) throws IOException;
  }

  /**
   * What one key has: {@code object} is the object's attributes or {@code null}; {@code records} its
   * record files; {@code evidence} whether an evidence directory exists.
   */
  static final class Found {
    BasicFileAttributes object;
    final List<Path> records = new ArrayList<>(1);
    boolean evidence;
  }

  private enum Tree { OBJECTS, RECORDS, EVIDENCE }

  private KeyWalker() {}

  /**
   * Visits every key starting with {@code prefix}.
   *
   * @param layout the trees to merge, or {@code null} for objects only
   * @return {@code false} when the visitor stopped the walk
   */
  static boolean walk(ContainedFs fs, Layout layout, String prefix, Visitor visitor) throws IOException {
    return walk(fs, layout, prefix, dir -> true, visitor);
  }

  /**
   * As {@link #walk(ContainedFs, Layout, String, Visitor)}, entering a directory only when {@code descend}
   * accepts its key prefix ({@code p/1725999960/}), so a query skips the trees that cannot hold its keys
   * without listing them.
   */
  static boolean walk(ContainedFs fs, Layout layout, String prefix, Predicate<String> descend, Visitor visitor)
      throws IOException {
    int slash = prefix.lastIndexOf('/');
    String dirPrefix = slash < 0 ? "" : prefix.substring(0, slash + 1);
    if (!dirPrefix.isEmpty()) {
      // Start at the deepest directory the prefix names; a prefix no valid key can have matches nothing.
      String[] segments = dirPrefix.substring(0, dirPrefix.length() - 1).split("/", -1);
      for (int i = 0; i < segments.length; i++) {
        if (!isKeySegment(segments[i], i == 0)) {
          return true;
        }
      }
    }
    Path[] dirs = new Path[Tree.values().length];
    try {
      dirs[Tree.OBJECTS.ordinal()] = under(fs.root(), dirPrefix);
      if (layout != null) {
        dirs[Tree.RECORDS.ordinal()] = under(layout.recordRoot(), dirPrefix);
        dirs[Tree.EVIDENCE.ordinal()] = under(layout.evidenceRoot(), dirPrefix);
      }
    } catch (InvalidPathException unmappable) {
      return true;
    }
    return walkDir(fs, dirPrefix, dirs, prefix, descend, visitor);
  }

  private static Path under(Path tree, String dirPrefix) {
    return dirPrefix.isEmpty() ? tree : tree.resolve(dirPrefix);
  }

  private static boolean walkDir(ContainedFs fs, String dirPrefix, Path[] dirs, String prefix,
      Predicate<String> descend, Visitor visitor) throws IOException {
    TreeMap<String, Found> entries = new TreeMap<>();
    boolean top = dirPrefix.isEmpty();
    for (Tree t : Tree.values()) {
      if (dirs[t.ordinal()] != null) {
        listInto(fs, dirs[t.ordinal()], top, t, entries);
      }
    }
    for (Map.Entry<String, Found> e : entries.entrySet()) {
      String name = e.getKey();
      String full = dirPrefix + name;
      if (name.endsWith("/")) {
        if ((full.startsWith(prefix) || prefix.startsWith(full)) && descend.test(full)) {
          String child = name.substring(0, name.length() - 1);
          Path[] below = new Path[dirs.length];
          for (int i = 0; i < dirs.length; i++) {
            below[i] = dirs[i] == null ? null : dirs[i].resolve(child);
          }
          if (!walkDir(fs, full, below, prefix, descend, visitor)) {
            return false;
          }
        }
      } else if (full.startsWith(prefix) && !visitor.visit(full, e.getValue())) {
        return false;
      }
    }
    return true;
  }

  private static void listInto(ContainedFs fs, Path dir, boolean top, Tree tree, TreeMap<String, Found> into)
      throws IOException {
    DirectoryStream<Path> listing = fs.list(dir);
    if (listing == null) {
      return; // nothing stored under this prefix (yet, or any more)
    }
    try (DirectoryStream<Path> children = listing) {
      for (Path child : children) {
        String name = child.getFileName().toString();
        if (!isKeySegment(name, top)) {
          continue; // temporaries, bookkeeping, and names no key could have
        }
        BasicFileAttributes a = fs.entry(child);
        if (a == null) {
          continue; // removed since the listing
        }
        if (a.isDirectory()) {
          into.computeIfAbsent(name + "/", n -> new Found());
          if (tree == Tree.EVIDENCE) {
            into.computeIfAbsent(name, n -> new Found()).evidence = true;
          }
        } else if (a.isRegularFile()) {
          addFile(tree, name, child, a, top, into);
        }
      }
    } catch (DirectoryIteratorException e) {
      if (e.getCause() instanceof NoSuchFileException) {
        return; // the directory went away while it was read
      }
      throw e.getCause();
    }
  }

  private static void addFile(Tree tree, String name, Path file, BasicFileAttributes a, boolean top,
      TreeMap<String, Found> into) {
    switch (tree) {
      case OBJECTS -> into.computeIfAbsent(name, n -> new Found()).object = a;
      case RECORDS -> {
        String key = Records.objectNameOf(name);
        if (key != null && isKeySegment(key, top)) {
          into.computeIfAbsent(key, n -> new Found()).records.add(file);
        }
      }
      case EVIDENCE -> { } // the bytes of a divergent attempt, found through their key's directory
      default -> throw new IllegalStateException("unknown tree " + tree);
    }
  }

  /** Whether {@code s} may be a segment of a key this store accepts. */
  static boolean isKeySegment(String s, boolean first) {
    if (s.isEmpty() || s.equals(".") || s.equals("..") || startsWithIgnoreCase(s, TEMP_PREFIX)
        || first && startsWithIgnoreCase(s, INTERNAL_PREFIX)) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == 0x7f || c == '\\') {
        return false;
      }
    }
    return true;
  }

  static boolean startsWithIgnoreCase(String s, String prefix) {
    return s.regionMatches(true, 0, prefix, 0, prefix.length());
  }
}
