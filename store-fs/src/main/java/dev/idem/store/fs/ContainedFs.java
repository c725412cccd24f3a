package dev.idem.store.fs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The store's filesystem, contained in its root: every read (attributes, open, directory listing) and
 * every directory an {@link FsObjectStore} creates goes through here, and from here through {@link
 * FsOps}, so faults and the link policy can be injected on reads as on writes. Where each path is, is
 * {@link Layout}'s to say (pure path arithmetic); how a path is reached without leaving the root, is
 * this class's.
 *
 * <p><b>What it guarantees (S2, containment).</b> Before a path is used, each of its components from
 * the root down is examined without following links ({@code lstat}); a symbolic link anywhere, the
 * root included, is refused with a {@link LinkRefusedException} naming it, and nothing is read or
 * written through it. Directories are created one level at a time, each level checked the same way.
 * The last component is opened without following a link ({@code O_NOFOLLOW} for reads and the lock
 * file, {@code O_EXCL} for new files, {@code link(2)} and {@code rename(2)}, which never follow the
 * name they create or replace), so a link there is refused too.
 *
 * <p><b>What remains.</b> The check and the use are two system calls: someone with write access to
 * the root who swaps a checked directory for a link between them can still redirect one call. Java
 * offers no {@code mkdirat}/{@code linkat} to close that; against anyone who cannot write under the
 * root (the threat this addresses: a link pre-placed by a mistake, a restore tool or a shared mount),
 * the store stays inside its root.
 *
 * <p><b>Failures.</b> Every method either completes or throws an {@link IOException} naming the path;
 * a refused link leaves the store as it was. A directory made here has its parent fsynced before the
 * next level is made, so a created path survives a power loss.
 */
final class ContainedFs {
  /** What a component walk found at a path's parent chain. */
  private enum Chain { DIRECTORIES, MISSING, UNDER_A_FILE }

  private final Path root;
  private final FsOps ops;

  ContainedFs(Path root, FsOps ops) {
    this.root = root;
    this.ops = ops;
  }

  Path root() {
    return root;
  }

  /**
   * The attributes of {@code p} itself, or {@code null} when nothing is there (or a parent is missing or
   * a file, as for a key below an object).
   *
   * @throws LinkRefusedException when {@code p} or a directory above it (up to the root) is a link
   */
  BasicFileAttributes attributes(Path p) throws IOException {
    if (parents(p) != Chain.DIRECTORIES) {
      return null;
    }
    BasicFileAttributes a = lstat(p);
    if (a != null && a.isSymbolicLink()) {
      throw new LinkRefusedException(p, root);
    }
    return a;
  }

  /** The attributes of the regular file at {@code p}, or {@code null} if there is none; links refused. */
  BasicFileAttributes regularFile(Path p) throws IOException {
    BasicFileAttributes a = attributes(p);
    return a != null && a.isRegularFile() ? a : null;
  }

  /**
   * Opens the regular file at {@code p} for reading, or {@code null} when there is none.
   *
   * @throws LinkRefusedException when {@code p} or a directory above it is a link
   */
  InputStream open(Path p) throws IOException {
    return regularFile(p) == null ? null : openChecked(p);
  }

  /**
   * Opens {@code p} for reading without following a link there, when {@link #regularFile} has just
   * found a regular file at it (so the directories above it were checked): {@code null} when it is gone
   * since. Saves {@link #open}'s second walk from the root.
   *
   * @throws LinkRefusedException when a link was put at {@code p} since
   */
  InputStream openChecked(Path p) throws IOException {
    try {
      return ops.newInputStream(p);
    } catch (NoSuchFileException gone) {
      return null;
    } catch (IOException e) {
      // O_NOFOLLOW meeting a link fails with a plain IOException ("Too many levels of symbolic links").
      throw refusedIfLink(p, e);
    }
  }

  /**
   * The entries of directory {@code dir}, or {@code null} when there is no directory there.
   *
   * @throws LinkRefusedException when {@code dir} or a directory above it is a link
   */
  DirectoryStream<Path> list(Path dir) throws IOException {
    BasicFileAttributes a = attributes(dir);
    if (a == null || !a.isDirectory()) {
      return null;
    }
    try {
      return ops.newDirectoryStream(dir);
    } catch (NoSuchFileException | NotDirectoryException gone) {
      return null;
    }
  }

  /**
   * The attributes of {@code child}, an entry of a directory {@link #list} just returned (so the
   * directories above it were checked): {@code null} when it is gone since.
   *
   * @throws LinkRefusedException when the entry is a link
   */
  BasicFileAttributes entry(Path child) throws IOException {
    BasicFileAttributes a = lstat(child);
    if (a != null && a.isSymbolicLink()) {
      throw new LinkRefusedException(child, root);
    }
    return a;
  }

  /**
   * Checks that every directory above {@code p} (from the root) is a real directory and that {@code p}
   * is not a link, before a call that creates or replaces {@code p}.
   *
   * @throws LinkRefusedException when one is a link
   * @throws NoSuchFileException when a directory above {@code p} is missing
   * @throws FileSystemException when a component above {@code p} is a file
   */
  void requireNoLinks(Path p) throws IOException {
    Chain c = parents(p);
    if (c == Chain.MISSING) {
      throw new NoSuchFileException(p.getParent().toString(), null, "directory missing under the store root");
    }
    if (c == Chain.UNDER_A_FILE) {
      throw new FileSystemException(p.toString(), null, "lies below a file (a filesystem store cannot hold both a"
          + " key and keys below it); nothing was written");
    }
    BasicFileAttributes a = lstat(p);
    if (a != null && a.isSymbolicLink()) {
      throw new LinkRefusedException(p, root);
    }
  }

  /**
   * Creates {@code dir} and its missing parents under the root, one level at a time, fsyncing the
   * parent of each directory made; an existing level must be a directory, not a link or a file.
   */
  void ensureDirectory(Path dir) throws IOException {
    ensureRoot();
    ensureBelowRoot(dir, true);
  }

  /**
   * {@link #ensureDirectory} without fsyncing the parents of the directories made below the root: for
   * directories of advice (claims), whose loss in a power loss costs duplicated work only, and which
   * are made for every key.
   */
  void ensureDirectoryUnsynced(Path dir) throws IOException {
    ensureRoot();
    ensureBelowRoot(dir, false);
  }

  /** {@link #ensureDirectory} for two directories, checking the root once. */
  void ensureDirectories(Path first, Path second) throws IOException {
    ensureRoot();
    ensureBelowRoot(first, true);
    ensureBelowRoot(second, true);
  }

  private void ensureRoot() throws IOException {
    if (!requireDirectory(root)) {
      createRoot();
    }
  }

  private void ensureBelowRoot(Path dir, boolean durable) throws IOException {
    Path rel = root.relativize(dir);
    Path cur = root;
    if (rel.toString().isEmpty()) {
      return;
    }
    for (Path name : rel) {
      cur = cur.resolve(name);
      if (requireDirectory(cur)) {
        continue;
      }
      try {
        ops.createDirectory(cur);
      } catch (FileAlreadyExistsException e) {
        // Made concurrently by another writer, which may not have synced it yet: sync it below too.
        if (!requireDirectory(cur)) {
          throw new FileSystemException(cur.toString(), null, "vanished while being created");
        }
      }
      if (durable) {
        sync(cur.getParent(), "created " + cur + " but could not make it durable");
      }
    }
  }

  /**
   * Creates the missing root and its missing ancestors (the operator's path, above the store: links
   * there are the operator's choice and are followed), fsyncing each new directory's parent.
   */
  private void createRoot() throws IOException {
    Deque<Path> missing = new ArrayDeque<>();
    try {
      for (Path p = root; p != null && lstat(p) == null; p = p.getParent()) {
        missing.push(p);
      }
      while (!missing.isEmpty()) {
        Path d = missing.pop();
        try {
          ops.createDirectory(d);
        } catch (FileAlreadyExistsException concurrentlyMade) {
          // Another writer made it first; it is checked below like any existing level.
        }
        ops.fsyncDirectory(d.getParent());
      }
    } catch (IOException e) {
      throw FsObjectStore.failure("could not create the store root " + root, e);
    }
    requireDirectory(root);
  }

  /** Whether {@code d} is a directory (false: nothing there); refuses a link or a file. */
  private boolean requireDirectory(Path d) throws IOException {
    BasicFileAttributes a = lstat(d);
    if (a == null) {
      return false;
    }
    if (a.isSymbolicLink()) {
      throw new LinkRefusedException(d, root);
    }
    if (!a.isDirectory()) {
      throw new FileSystemException(d.toString(), null, "exists and is not a directory (a filesystem store"
          + " cannot hold both a key and keys below it); nothing was written");
    }
    return true;
  }

  /**
   * fsyncs {@code dir}.
   *
   * @throws IOException with {@code context} and the directory in its message when the fsync failed
   */
  void sync(Path dir, String context) throws IOException {
    try {
      ops.fsyncDirectory(dir);
    } catch (IOException e) {
      throw FsObjectStore.failure(context + " (fsync of " + dir + ")", e);
    }
  }

  /** Walks the directories from the root to {@code p}'s parent without following links. */
  private Chain parents(Path p) throws IOException {
    if (p.equals(root)) {
      return Chain.DIRECTORIES; // nothing above the root is the store's to check
    }
    if (!p.startsWith(root)) {
      throw new IllegalArgumentException(p + " is not under the store root " + root);
    }
    Path cur = root;
    Path rel = root.relativize(p.getParent());
    if (!checkLevel(cur)) {
      return Chain.MISSING;
    }
    if (rel.toString().isEmpty()) {
      return Chain.DIRECTORIES;
    }
    for (Path name : rel) {
      cur = cur.resolve(name);
      BasicFileAttributes a = lstat(cur);
      if (a == null) {
        return Chain.MISSING;
      }
      if (a.isSymbolicLink()) {
        throw new LinkRefusedException(cur, root);
      }
      if (!a.isDirectory()) {
        return Chain.UNDER_A_FILE;
      }
    }
    return Chain.DIRECTORIES;
  }

  private boolean checkLevel(Path d) throws IOException {
    BasicFileAttributes a = lstat(d);
    if (a != null && a.isSymbolicLink()) {
      throw new LinkRefusedException(d, root);
    }
    return a != null && a.isDirectory();
  }

  /** {@code lstat(p)}, or {@code null} when nothing is there. */
  private BasicFileAttributes lstat(Path p) throws IOException {
    try {
      return ops.readAttributes(p);
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /** {@code e} from opening {@code p} without following links: a refusal if a link is what is there. */
  IOException refusedIfLink(Path p, IOException e) throws IOException {
    BasicFileAttributes a = lstat(p);
    return a != null && a.isSymbolicLink() ? new LinkRefusedException(p, root) : e;
  }

  /**
   * Promotes {@code temp} to {@code target} with {@code link(2)}, which never replaces a file: true if
   * this call created {@code target}, false if one was there.
   *
   * @throws HardLinksUnsupportedException when the filesystem cannot make hard links
   */
  boolean link(Path temp, Path target) throws IOException {
    try {
      ops.createLink(target, temp);
      return true;
    } catch (FileAlreadyExistsException e) {
      // NFS can answer EEXIST to a retried link whose first, lost reply was a success: ours if same inode.
      return isSameFile(target, temp);
    } catch (UnsupportedOperationException e) {
      throw new HardLinksUnsupportedException(target.getParent().toString(), "the filesystem provider has none");
    } catch (FileSystemException e) {
      String reason = String.valueOf(e.getReason());
      if (e.getClass() == FileSystemException.class
          && (reason.contains("Operation not permitted") || reason.contains("Invalid cross-device link"))) {
        throw new HardLinksUnsupportedException(target.getParent().toString(), "link(2) said: " + reason);
      }
      throw e;
    }
  }

  /** Whether {@code a} and {@code b} are names of one file (compared without following links). */
  private boolean isSameFile(Path a, Path b) throws IOException {
    BasicFileAttributes x = attributes(a);
    BasicFileAttributes y = attributes(b);
    return x != null && y != null && x.fileKey() != null && x.fileKey().equals(y.fileKey());
  }

  /** Whether a file is at {@code p}, whose attributes (without following a link) are {@code a}; refuses a directory there. */
  static boolean requireFileOrNothing(BasicFileAttributes a, Path p, String what) throws IOException {
    if (a != null && !a.isRegularFile()) {
      throw new FileSystemException(p.toString(), null, what + " path is a directory, not a file (a"
          + " filesystem store cannot hold both a key and keys below it); nothing was published");
    }
    return a != null;
  }
}
