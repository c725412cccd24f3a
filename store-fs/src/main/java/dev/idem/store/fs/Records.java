package dev.idem.store.fs;

import dev.idem.core.Sha256;
import dev.idem.core.store.PutStatus;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Publish records: one small file per {@code putIfAbsent} that reached an outcome, created and never
 * changed, beside the records of the other keys of the same directory:
 * {@code _idem/records/<dir of key>/<name>!<STATUS>.<sha256>.<16 hex>}, holding one {@link RecordLine}.
 *
 * <p><b>Why a file per attempt.</b> Appending to one ledger per key is not atomic across NFS clients
 * (two hosts could overwrite each other's line) and needed a directory fsync nobody made when the
 * ledger was new. A record is created with {@code O_EXCL} under a random name, so no writer can ever
 * replace or tear another's, on any filesystem that honours {@code O_EXCL}.
 *
 * <p><b>The name is the verdict.</b> Status and SHA-256 are in the name, which a directory entry makes
 * visible atomically; the content adds time, size, the schema version the publisher declared, and the
 * writer (a {@code v2} line, {@link RecordLine}). A crash between create and write leaves
 * a record whose content is missing or torn: it is read from its name (time from the file, size,
 * writer and schema unknown), so a DIVERGENT record is never lost to a torn write. (The schema is in the
 * content, not the name: it only sharpens the scan's drift rule, where an unknown schema is the cautious
 * reading, and the name's length already bounds the object names a store can take.)
 *
 * <p><b>Durability, in the order of the objects.</b> A CREATED or IDENTICAL record is written after the
 * object it describes is durable. A DIVERGENT record is the divergence's marker (P8): it names the
 * stored object's SHA-256 as well ({@code v3}, {@link RecordLine}), and it is written, forced and its
 * directory fsynced before the attempt's bytes are linked as evidence, so a publisher killed while
 * keeping them has recorded the divergence already: it is what the scan must find after a crash or a
 * power loss (P4, S3). CREATED and
 * IDENTICAL records are not forced: the object they describe is itself durable and carries the same
 * content hash. A lost CREATED record only makes {@code stat} and the history hash the object; a lost
 * IDENTICAL record only drops one "same bytes written again" from the scan's count of benign
 * duplicates. Forcing them would add a file and a directory fsync to every publish, and to every
 * replica of a rolling deployment that meets its twin's object (seven of eight under contention).
 *
 * <p>A failure leaves no record, or a record whose name is whole (content possibly torn), never a
 * changed one. Names are at most 92 characters longer than the object's name (idem's own names are 70
 * bytes). On a filesystem whose names stop at 255 bytes, an object name of 164 or 165 bytes leaves room
 * for its CREATED record but not for a DIVERGENT one (a divergence there ends DIVERGENT {@code
 * NOT_RECORDED}, saying so), and from 166 bytes a publish links its object and then fails to record it.
 */
final class Records {
  static final char SEPARATOR = '!';
  private static final int RANDOM_HEX = 16;
  /**
   * The suffix of an object's first CREATED record in place of the random one, so that a reader who
   * knows the SHA-256 it expects finds that record by name instead of listing the directory, which
   * holds the records of every key of the window. A key published again after gc removed it gets a
   * random suffix, as every other record does; readers accept any suffix.
   */
  static final String FIRST_CREATED_SUFFIX = "0".repeat(RANDOM_HEX);
  private static final int ATTEMPTS = 5;

  private Records() {}

  /** Writes the record of {@code line} for the object called {@code objectName} into {@code dir}. */
  static void write(ContainedFs fs, FsOps ops, Path dir, String objectName, RecordLine line) throws IOException {
    byte[] bytes = line.format().getBytes(StandardCharsets.UTF_8);
    boolean durable = line.status() == PutStatus.DIVERGENT;
    for (int attempt = 1; ; attempt++) {
      boolean first = attempt == 1 && line.status() == PutStatus.CREATED;
      Path file = dir.resolve(objectName + SEPARATOR + line.status() + "." + line.sha256() + "."
          + (first ? FIRST_CREATED_SUFFIX : TempFile.randomHex()));
      FileChannel ch;
      try {
        ch = ops.createNew(file);
      } catch (FileAlreadyExistsException e) {
        if (attempt == ATTEMPTS) {
          throw e;
        }
        continue; // an earlier life's first CREATED record, or the same 64 random bits drawn twice
      }
      try (ch) {
        ops.write(ch, ByteBuffer.wrap(bytes));
        if (durable) {
          ops.force(ch);
        }
      }
      if (durable) {
        fs.sync(dir, "wrote record " + file + " but could not make it durable");
      }
      return;
    }
  }

  /**
   * Keeps the bytes of a DIVERGENT attempt, the temporary file {@code temp}, as {@code
   * _idem/evidence/<key>/<sha256>} by a hard link, its directory fsynced; returns their evidence key.
   * The same divergent bytes kept by an earlier attempt are already there under that name.
   */
  static String keepEvidence(ContainedFs fs, FsOps ops, Layout layout, String key, String sha, Path temp)
      throws IOException {
    Path evidence = layout.evidenceFile(key, sha);
    fs.ensureDirectory(evidence.getParent());
    try {
      ops.createLink(evidence, temp);
    } catch (FileAlreadyExistsException sameBytesKeptBefore) {
      // Named by their hash: nothing more to keep.
    }
    fs.sync(evidence.getParent(), "kept divergent bytes at " + evidence + " but could not make them durable");
    return Layout.EVIDENCE_PREFIX + key + "/" + sha;
  }

  /** The record files of {@code objectName} in {@code dir}, in no particular order; empty if none. */
  static List<Path> filesOf(ContainedFs fs, Path dir, String objectName) throws IOException {
    List<Path> files = new ArrayList<>();
    DirectoryStream<Path> listing = fs.list(dir);
    if (listing == null) {
      return files;
    }
    try (DirectoryStream<Path> children = listing) {
      for (Path child : children) {
        String name = child.getFileName().toString();
        if (objectName.equals(objectNameOf(name))) {
          files.add(child);
        }
      }
    }
    return files;
  }

  /**
   * The object name a record file is named after, or {@code null} when {@code fileName} is not a
   * record's name (the status, hash and random suffix follow the last separator).
   */
  static String objectNameOf(String fileName) {
    int at = fileName.lastIndexOf(SEPARATOR);
    if (at <= 0) {
      return null;
    }
    String[] f = fileName.substring(at + 1).split("\\.", -1);
    if (f.length != 3 || status(f[0]) == null || !Sha256.isHex(f[1]) || f[2].length() != RANDOM_HEX) {
      return null;
    }
    return fileName.substring(0, at);
  }

  /** The name an object's first CREATED record with {@code sha256} has ({@link #FIRST_CREATED_SUFFIX}). */
  static Path firstCreated(Path dir, String objectName, String sha256) {
    return dir.resolve(objectName + SEPARATOR + PutStatus.CREATED + "." + sha256 + "." + FIRST_CREATED_SUFFIX);
  }

  /** Reads the given record files (a file gone since it was listed is skipped), oldest first. */
  static List<RecordLine> read(ContainedFs fs, List<Path> files) throws IOException {
    List<RecordLine> lines = new ArrayList<>(files.size());
    for (Path f : files) {
      readOne(fs, f).ifPresent(lines::add);
    }
    lines.sort(Comparator.comparing(RecordLine::time));
    return lines;
  }

  /**
   * Deletes {@code key}'s records and the kept bytes of its divergent attempts, then fsyncs the
   * directories they were in; what {@link FsObjectStore#deleteRecords} does. Directories stay: a
   * concurrent publisher may be about to write in one.
   *
   * @return how many files were deleted
   * @throws IOException when a file could not be deleted or a directory synced; the files deleted
   *     before stay deleted (a power loss may bring them back until the sync), the rest are left
   */
  static int deleteAll(ContainedFs fs, FsOps ops, Layout layout, String key) throws IOException {
    Path target = layout.resolveKey(key);
    int removed = 0;
    Path recordDir = layout.recordDir(key);
    List<Path> records = filesOf(fs, recordDir, target.getFileName().toString());
    for (Path r : records) {
      removed += ops.deleteIfExists(r) ? 1 : 0;
    }
    if (!records.isEmpty()) {
      fs.sync(recordDir, "deleted the records of " + target + " but could not make the delete durable");
    }
    Path evidence = layout.evidenceDir(key);
    List<Path> kept = new ArrayList<>();
    DirectoryStream<Path> listing = fs.list(evidence);
    if (listing != null) {
      try (DirectoryStream<Path> files = listing) {
        files.forEach(kept::add);
      }
    }
    for (Path e : kept) {
      BasicFileAttributes a = fs.entry(e);
      removed += a != null && a.isRegularFile() && ops.deleteIfExists(e) ? 1 : 0;
    }
    if (!kept.isEmpty()) {
      fs.sync(evidence, "deleted the evidence of " + target + " but could not make the delete durable");
    }
    return removed;
  }

  private static Optional<RecordLine> readOne(ContainedFs fs, Path file) throws IOException {
    BasicFileAttributes a = fs.regularFile(file);
    InputStream opened = a == null ? null : fs.openChecked(file);
    if (opened == null) {
      return Optional.empty();
    }
    String text;
    try (InputStream in = opened) {
      text = new String(in.readNBytes(1024), StandardCharsets.UTF_8);
    }
    String name = file.getFileName().toString();
    String[] f = name.substring(name.lastIndexOf(SEPARATOR) + 1).split("\\.", -1);
    PutStatus status = status(f[0]);
    int nl = text.indexOf('\n');
    Optional<RecordLine> content = nl < 0 ? Optional.empty() : RecordLine.parse(text.substring(0, nl));
    if (content.isPresent() && content.get().status() == status && content.get().sha256().equals(f[1])) {
      return content;
    }
    // Content missing or torn by a crash: the name still says what happened.
    return Optional.of(new RecordLine(a.lastModifiedTime().toInstant(), status, f[1], -1, null, null));
  }

  private static PutStatus status(String s) {
    for (PutStatus p : PutStatus.values()) {
      if (p.name().equals(s)) {
        return p;
      }
    }
    return null;
  }
}
