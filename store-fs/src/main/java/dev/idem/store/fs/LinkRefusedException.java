package dev.idem.store.fs;

import java.nio.file.FileSystemException;
import java.nio.file.Path;

/**
 * A symbolic link was met under a filesystem store's root, where the store never makes one. Following
 * it could read or write outside the root (S2), so the operation stops before using the path: nothing
 * was read or written through the link. The message names the link and says so; remove the link (or
 * move the store) to go on.
 */
public final class LinkRefusedException extends FileSystemException {
  private static final long serialVersionUID = 1L;

  LinkRefusedException(Path link, Path root) {
    super(link.toString(), null, "is a symbolic link under the store root " + root
        + "; refusing to follow it (nothing was read or written through it)");
  }
}
