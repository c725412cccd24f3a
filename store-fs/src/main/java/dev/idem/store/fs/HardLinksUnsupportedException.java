package dev.idem.store.fs;

import java.nio.file.FileSystemException;

/**
 * The filesystem under a store cannot make hard links, which {@link FsObjectStore}'s no-clobber
 * publish needs (FAT, exFAT, some FUSE and SMB mounts). The store refuses rather than fall back to a
 * rename that could silently replace another writer's object. Nothing was published.
 *
 * <h2>Why no rename fallback where hard links are missing</h2>
 *
 * A publish needs an atomic create-if-absent that also makes the complete content visible at once.
 * {@code link(2)} is that; {@code rename(2)} is not: it replaces the target, so "check, then rename"
 * (or {@code ATOMIC_MOVE} onto a name first reserved with {@code CREATE_NEW}) lets a second writer
 * silently replace the first one's object. The only correct rename scheme serializes every writer of
 * the store on a lock, which stays correct only while every writer takes that path; one writer whose
 * link works next to one whose link failed for another reason would reopen the race, unseen. On the
 * filesystems a store belongs on (ext4, xfs, btrfs, zfs, tmpfs, NFS, APFS, NTFS) links work; where
 * they do not (FAT, exFAT, some FUSE or SMB mounts) the publish fails with {@link
 * HardLinksUnsupportedException} and nothing is published. A loud refusal beats a silent clobber.
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
