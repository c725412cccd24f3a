package dev.idem.store.fs;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.TreeMap;

/**
 * Walks the keys of a store in ascending key order, merging the object tree with the ledger tree (so
 * keys whose object retention deleted still appear when their ledger is asked for).
 *
 * <p><b>Order.</b> Keys are compared as Java strings. Within one directory, a file {@code n} stands
 * for the key {@code prefix + n} and a directory {@code n} for keys starting {@code prefix + n + "/"};
 * sorting the siblings by {@code n} for files and {@code n + "/"} for directories orders them exactly as
 * their keys (two such names never are a prefix of one another except {@code n} before {@code n/…},
 * which is the key order too). Recursing into each directory at its place in that order yields all keys
 * in ascending order.
 *
 * <p><b>Memory.</b> One sorted listing per directory level on the current path, never the whole store.
 *
 * <p><b>What is skipped, what is refused.</b> Names no key may have ({@link #isKeySegment}): {@code
 * .tmp-…} temporaries anywhere and, at the top level, the {@code _idem} bookkeeping tree, are skipped;
 * so are special files (fifos, sockets). A symbolic link is refused ({@link LinkRefusedException}):
 * following it could leave the root, and skipping it could hide a pipeline's keys from the scan.
 * Every directory is listed through {@link StorePaths}.
 */
final class KeyWalker {
  static final String TEMP_PREFIX = ".tmp-";
  static final String INTERNAL_PREFIX = "_idem";
  static final String LEDGER_SUFFIX = ".log";

  /** Receives each key; {@code object} is the object's attributes or {@code null} if only a ledger exists. */
  interface Visitor {
    boolean visit(String key, BasicFileAttributes object, boolean hasLedger) throws IOException;
  }

  private static final class Entry {
    BasicFileAttributes object;
    boolean ledger;
  }

  private KeyWalker() {}

  /**
   * Visits every key starting with {@code prefix}.
   *
   * @param ledgerRoot the ledger tree to merge in, or {@code null} for objects only
   * @return {@code false} when the visitor stopped the walk
   */
  static boolean walk(StorePaths paths, Path ledgerRoot, String prefix, Visitor visitor) throws IOException {
    Path objectRoot = paths.root();
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
    Path objects;
    Path ledgers;
    try {
      objects = dirPrefix.isEmpty() ? objectRoot : objectRoot.resolve(dirPrefix);
      ledgers = ledgerRoot == null ? null : dirPrefix.isEmpty() ? ledgerRoot : ledgerRoot.resolve(dirPrefix);
    } catch (InvalidPathException unmappable) {
      return true;
    }
    return walkDir(paths, dirPrefix, objects, ledgers, prefix, visitor);
  }

  private static boolean walkDir(StorePaths paths, String dirPrefix, Path objects, Path ledgers, String prefix,
      Visitor visitor) throws IOException {
    TreeMap<String, Entry> entries = new TreeMap<>();
    boolean top = dirPrefix.isEmpty();
    listInto(paths, objects, top, false, entries);
    if (ledgers != null) {
      listInto(paths, ledgers, top, true, entries);
    }
    for (Map.Entry<String, Entry> e : entries.entrySet()) {
      String name = e.getKey();
      String full = dirPrefix + name;
      if (name.endsWith("/")) {
        if (full.startsWith(prefix) || prefix.startsWith(full)) {
          String child = name.substring(0, name.length() - 1);
          if (!walkDir(paths, full, objects.resolve(child), ledgers == null ? null : ledgers.resolve(child), prefix, visitor)) {
            return false;
          }
        }
      } else if (full.startsWith(prefix) && !visitor.visit(full, e.getValue().object, e.getValue().ledger)) {
        return false;
      }
    }
    return true;
  }

  private static void listInto(StorePaths paths, Path dir, boolean top, boolean ledgerTree,
      TreeMap<String, Entry> into) throws IOException {
    DirectoryStream<Path> listing = paths.list(dir);
    if (listing == null) {
      return; // nothing stored under this prefix (yet, or any more)
    }
    try (DirectoryStream<Path> children = listing) {
      for (Path child : children) {
        String name = child.getFileName().toString();
        if (!isKeySegment(name, top)) {
          continue; // temporaries, bookkeeping, and names no key could have
        }
        BasicFileAttributes a = paths.entry(child);
        if (a == null) {
          continue; // removed since the listing
        }
        if (a.isDirectory()) {
          into.computeIfAbsent(name + "/", n -> new Entry());
        } else if (a.isRegularFile()) {
          if (!ledgerTree) {
            into.computeIfAbsent(name, n -> new Entry()).object = a;
          } else if (name.endsWith(LEDGER_SUFFIX) && name.length() > LEDGER_SUFFIX.length()) {
            into.computeIfAbsent(name.substring(0, name.length() - LEDGER_SUFFIX.length()), n -> new Entry()).ledger = true;
          }
        }
      }
    } catch (DirectoryIteratorException e) {
      if (e.getCause() instanceof NoSuchFileException) {
        return; // the directory went away while it was read
      }
      throw e.getCause();
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
