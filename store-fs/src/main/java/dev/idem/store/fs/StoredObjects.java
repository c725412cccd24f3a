package dev.idem.store.fs;

import dev.idem.core.Sha256;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.PutStatus;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads what the store holds at a key, without locks and without writing: the object's attributes, and
 * its SHA-256 from the record that vouches for it, else by hashing the file. Hashing is always
 * safe: an object is linked at its key only after its {@code fsync}, so a visible object is complete.
 * A path that is gone, or that lies below a file ({@code a/b/c} under the object {@code a/b}), holds
 * nothing.
 */
final class StoredObjects {
  private StoredObjects() {}

  /** The object at {@code target} (the path of {@code key}) described from its records, else hashed. */
  static Optional<ObjectInfo> stat(ContainedFs fs, Layout layout, String key, Path target) throws IOException {
    Stated s = stated(fs, layout, key, target);
    return s == null ? Optional.empty() : Optional.of(s.info());
  }

  /**
   * What {@link #stat} finds, and whether a CREATED record vouches for the object: such a record is
   * created only after its object's directory fsync returned, so the object is durable (G1), whoever
   * linked it.
   */
  record Stated(ObjectInfo info, boolean durableByRecord) {}

  /** {@link #stat} with its {@link Stated#durableByRecord()}; null when no object is there. */
  static Stated stated(ContainedFs fs, Layout layout, String key, Path target) throws IOException {
    BasicFileAttributes a = fs.regularFile(target);
    if (a == null) {
      return null;
    }
    RecordLine line = vouching(Records.read(fs, createdRecordsOf(fs, layout, key, target)), a);
    if (line != null) {
      return new Stated(new ObjectInfo(key, line.sha256(), a.size(), line.writer(), line.time()), true);
    }
    Hashed h = hash(fs, target);
    return h == null ? null
        : new Stated(new ObjectInfo(key, h.sha256, h.size, null, a.lastModifiedTime().toInstant()), false);
  }

  /**
   * The object at {@code target}, whose attributes the caller has just read ({@code a}, a regular
   * file), as its first CREATED record with {@code sha256} describes it, when that record vouches for
   * it as it is now ({@link #vouching}); else null, which means "look further" ({@link #stated}), not
   * "no". Found by name
   * ({@link Records#firstCreated}): no listing of the directory, which holds the records of every key
   * of the window, so a replica late to a key pays the same in a window of one key or of thousands.
   * Vouching makes the object durable (G1) as in {@link Stated#durableByRecord()}.
   */
  static ObjectInfo vouchedByName(ContainedFs fs, Layout layout, String key, Path target, BasicFileAttributes a,
      String sha256) throws IOException {
    Path record = Records.firstCreated(layout.recordDir(key), target.getFileName().toString(), sha256);
    RecordLine line = vouching(Records.read(fs, List.of(record)), a);
    if (line == null || !line.sha256().equals(sha256)) {
      return null;
    }
    return new ObjectInfo(key, sha256, a.size(), line.writer(), line.time());
  }

  /**
   * Whether a CREATED record vouches for the object at {@code target} as it is now, so that it is
   * durable (G1) whoever linked it; what {@link Stated#durableByRecord()} says, without hashing an
   * object no record vouches for. False when no object is there.
   */
  static boolean durableByRecord(ContainedFs fs, Layout layout, String key, Path target) throws IOException {
    BasicFileAttributes a = fs.regularFile(target);
    if (a == null) {
      return false;
    }
    return vouching(Records.read(fs, createdRecordsOf(fs, layout, key, target)), a) != null;
  }

  /**
   * The CREATED record files of the object at {@code target}. Only a CREATED line can vouch for an
   * object ({@link #vouching}), so the IDENTICAL and DIVERGENT records
   * that late replicas pile up beside it are not read.
   */
  private static List<Path> createdRecordsOf(ContainedFs fs, Layout layout, String key, Path target)
      throws IOException {
    String created = target.getFileName().toString() + Records.SEPARATOR + PutStatus.CREATED + ".";
    List<Path> files = new ArrayList<>(1);
    for (Path f : Records.filesOf(fs, layout.recordDir(key), target.getFileName().toString())) {
      if (f.getFileName().toString().startsWith(created)) {
        files.add(f);
      }
    }
    return files;
  }

  /**
   * The last CREATED record if it describes the file as it is now: same size, and recorded no earlier
   * than the file's last modification (the record is written after the object is linked, and a
   * file replaced or rewritten later, e.g. by a non-idem writer, has a later modification time).
   */
  static RecordLine vouching(List<RecordLine> lines, BasicFileAttributes file) {
    for (int i = lines.size() - 1; i >= 0; i--) {
      RecordLine l = lines.get(i);
      if (l.status() == PutStatus.CREATED) {
        boolean matches = l.size() == file.size() && !l.time().isBefore(file.lastModifiedTime().toInstant());
        return matches ? l : null;
      }
    }
    return null;
  }

  record Hashed(String sha256, long size) {}

  /** The object's SHA-256 and size by reading it, or {@code null} if it is gone. */
  static Hashed hash(ContainedFs fs, Path file) throws IOException {
    MessageDigest md = Sha256.newDigest();
    long size = 0;
    InputStream opened = fs.open(file);
    if (opened == null) {
      return null;
    }
    try (InputStream in = opened) {
      byte[] buf = new byte[64 * 1024];
      for (int n; (n = in.read(buf)) != -1; size += n) {
        md.update(buf, 0, n);
      }
    }
    return new Hashed(Sha256.hex(md.digest()), size);
  }
}
