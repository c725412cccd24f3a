package dev.idem.store.fs;

import java.nio.file.FileSystemException;

/**
 * The filesystem under a store cannot make hard links, which {@link FsObjectStore}'s no-clobber
 * publish needs (FAT, exFAT, some FUSE and SMB mounts). The store refuses rather than fall back to a
 * rename that could silently replace another writer's object; see {@link FsObjectStore} for why.
 * Nothing was published.
 */
public final class HardLinksUnsupportedException extends FileSystemException {
  private static final long serialVersionUID = 1L;

  public HardLinksUnsupportedException(String directory, String detail) {
    super(directory, null, "hard links are not supported here (" + detail
        + "); idem's filesystem store needs link(2) for no-clobber publish and never falls back to a"
        + " clobbering rename: put the store on a filesystem with hard links (ext4, xfs, btrfs, zfs,"
        + " tmpfs, NFS, APFS, NTFS)");
  }
}
