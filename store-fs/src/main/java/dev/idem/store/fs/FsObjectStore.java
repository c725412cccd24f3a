package dev.idem.store.fs;

import dev.idem.core.Names;
import dev.idem.core.Sha256;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.ListedObject;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.PutStatus;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An {@link ObjectStore} in a local directory: create-only publish by hard link, a kernel-locked
 * compare-and-swap {@code latest} pointer per pipeline, and a per-key ledger of publish attempts that
 * the divergence scan reads as history.
 *
 * <h2>Layout under the root</h2>
 *
 * <pre>
 * &lt;key&gt;                                   the object (e.g. pipeline/1726000000/state-&lt;hex&gt;)
 * &lt;dir of key&gt;/.tmp-&lt;name&gt;.&lt;random&gt;      a publish in flight, or left by a killed one
 * _idem/ledger/&lt;key&gt;.log                 one line per publish attempt (see {@link Ledger})
 * _idem/evidence/&lt;key&gt;/&lt;sha256&gt;          the bytes of a DIVERGENT attempt
 * _idem/pointers/&lt;pipeline&gt;/latest        the pointer document ({@link Pointer#toBytes()})
 * _idem/pointers/&lt;pipeline&gt;/latest.lock   the pointer's lock file (never deleted)
 * </pre>
 *
 * Keys are checked by {@link Names#requireSafeKey} and must also not start with a segment {@code
 * _idem…} nor hold a segment {@code .tmp-…} (both any case): those names are the store's own. A key
 * resolves strictly under the root. Because keys are paths, a key and a key below it ({@code a/b} and
 * {@code a/b/c}) cannot both hold objects; the second publish fails with an {@link IOException} and
 * publishes nothing. For the same reason a key {@code K} and a key below {@code K.log} cannot both
 * have ledgers; idem's own keys ({@code pipeline/window/state-hex}, all three levels deep) never meet
 * either case. Directories are never removed, even when empty: a concurrent publisher may be about to
 * create its temporary file in one.
 *
 * <h2>Publish ({@link #putIfAbsent}), step by step</h2>
 *
 * <ol>
 *   <li>Create missing directories for the object and its ledger, fsyncing each new directory's parent.
 *   <li>Create {@code .tmp-<name>.<random>} beside the object ({@code O_EXCL}), copy the payload into
 *       it while hashing, and refuse ({@link Payload.ChangedWhileReadingException}) if the hash is not
 *       the payload's declared SHA-256. {@code fsync} the temporary file.
 *   <li>Promote with {@code link(temp, key)} ({@link Files#createLink}): atomic, and it fails if the key
 *       exists, so it can never replace an object (P2). Exactly one concurrent publisher's link
 *       succeeds (P3).
 *   <li>Winner: {@code fsync} the directory (the object is now durable, G1), append {@code CREATED} to
 *       the ledger, return CREATED.
 *   <li>Loser ({@link FileAlreadyExistsException}): read the stored SHA-256 (from the ledger, else by
 *       hashing the object: it is complete, since it was linked only after its {@code fsync}), {@code
 *       fsync} its directory too (the winner may not have yet), and compare: same hash → append {@code
 *       IDENTICAL}; different → link the temporary file to {@code _idem/evidence/<key>/<sha256>} (when
 *       {@link Options#keepDivergentBytes()}), append {@code DIVERGENT}, return DIVERGENT (P4).
 *   <li>Always: delete the temporary name (the content lives on under the object's or the evidence's
 *       name).
 * </ol>
 *
 * What a failure (an {@link IOException}, or the process killed) leaves:
 *
 * <ul>
 *   <li>before the link: no object; possibly a {@code .tmp-} file (deleted on the way out unless the
 *       process died), invisible to readers and removed by {@link #sweep};
 *   <li>at or after the link: a complete object, the one a retry then reports as IDENTICAL. If the
 *       directory {@code fsync} failed or a crash came before it, the object may vanish after a power
 *       loss, whole; if the ledger line is missing, {@link #stat} and {@link #history} hash the object
 *       instead of reading its recorded SHA-256;
 *   <li>never a partial object, and never a replaced one.
 * </ul>
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
 *
 * <h2>Pointer ({@link #readPointer}, {@link #compareAndSetPointer})</h2>
 *
 * The token of a pointer is the SHA-256 of its file's bytes. A read never locks: {@code latest} is only
 * ever replaced by an atomic rename, so a reader sees one whole document (P1). A compare-and-swap:
 *
 * <ol>
 *   <li>takes the pipeline's {@link InterProcessLock} (an in-process lock, then a kernel lock on {@code
 *       latest.lock}) within {@link Options#lockTimeout()}, else returns BUSY having written nothing;
 *   <li>re-reads {@code latest} under the lock: a malformed document is an error ({@link
 *       Pointer.MalformedPointerException}), never overwritten; a token other than the expected one
 *       (or a file where none was expected, or the reverse) returns CONFLICT;
 *   <li>{@code fsync}s the object the new pointer names and its directory, so the pointer never names
 *       an object a power loss could take away (G1);
 *   <li>writes {@code .tmp-latest.<random>}, {@code fsync}s it, renames it over {@code latest} with
 *       {@code ATOMIC_MOVE} (no fallback when that is not supported: {@link
 *       AtomicMoveNotSupportedException} is thrown), {@code fsync}s the directory;
 *   <li>deletes the temporary file if it is still there and releases the lock, in one cleanup path.
 * </ol>
 *
 * A failure leaves {@code latest} holding the old or the new document, whole; after a failed directory
 * {@code fsync} the new one is visible but may revert to the old one after a power loss. A killed
 * writer's kernel lock is released by the kernel (G4); its temporary file is removed by {@link #sweep}.
 * Calls are linearizable: all of them, in every process, serialize on the lock.
 *
 * <h2>Thread safety</h2>
 *
 * Safe for concurrent use by any number of threads and processes on one root. Stores on one root in
 * one JVM share their in-process pointer locks.
 */
public final class FsObjectStore implements ObjectStore {
  static final String INTERNAL_DIR = "_idem";
  static final String EVIDENCE_PREFIX = INTERNAL_DIR + "/evidence/";
  static final String POINTER_FILE = "latest";
  static final String LOCK_FILE = "latest.lock";
  private static final int POINTER_READ_LIMIT = 16 * 1024;
  private static final int PUBLISH_ATTEMPTS = 3;

  private final Path root;
  private final Path ledgerRoot;
  private final Path evidenceRoot;
  private final Path pointerRoot;
  private final Options options;
  private final FsOps ops;
  private final KnownKeys knownKeys;

  private FsObjectStore(Path root, Options options) {
    this.root = root;
    this.ledgerRoot = root.resolve(INTERNAL_DIR).resolve("ledger");
    this.evidenceRoot = root.resolve(INTERNAL_DIR).resolve("evidence");
    this.pointerRoot = root.resolve(INTERNAL_DIR).resolve("pointers");
    this.options = options;
    this.ops = options.ops();
    this.knownKeys = new KnownKeys(options.existsCacheSize());
  }

  /** A store at {@code root} with {@link Options#defaults()}. See {@link #open(Path, Options)}. */
  public static FsObjectStore open(Path root) throws IOException {
    return open(root, Options.defaults());
  }

  /**
   * A store at {@code root}. Nothing is created until the first write, so opening a missing root for
   * reading shows an empty store.
   *
   * @throws NotDirectoryException when {@code root} exists and is not a directory
   */
  public static FsObjectStore open(Path root, Options options) throws IOException {
    Objects.requireNonNull(root, "root");
    Objects.requireNonNull(options, "options");
    Path r = root.toAbsolutePath().normalize();
    if (Files.exists(r)) {
      if (!Files.isDirectory(r)) {
        throw new NotDirectoryException(r + " (store root)");
      }
      r = r.toRealPath();
    }
    return new FsObjectStore(r, options);
  }

  /** The absolute root directory. */
  public Path root() {
    return root;
  }

  public Options options() {
    return options;
  }

  @Override
  public String describe() {
    return "file:" + root;
  }

  @Override
  public String toString() {
    return describe();
  }

  // ---------------------------------------------------------------------------------------------
  // Objects

  /** Answers from a bounded cache of keys this store has seen holding an object, else one {@code stat}. */
  @Override
  public boolean exists(String key) {
    Path target = resolveKey(key);
    if (knownKeys.contains(key)) {
      return true;
    }
    boolean present = Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS);
    if (present) {
      knownKeys.add(key);
    }
    return present;
  }

  /**
   * The object's metadata. Its SHA-256, writer and time come from the ledger's last CREATED line when
   * that line matches the file (same size, written no earlier than the file's last modification);
   * otherwise (a crash lost the line, or something other than idem wrote the file) the object is
   * hashed, and writer is {@code null} and time the file's modification time. (Where a file server
   * stamps modification times with a clock ahead of this host's, e.g. some NFS setups, lines do not
   * match and every stat hashes: still correct, only slower.)
   */
  @Override
  public Optional<ObjectInfo> stat(String key) throws IOException {
    return stat(key, resolveKey(key));
  }

  /**
   * The object's content. Also accepts the {@link PutOutcome#evidenceKey()} of a DIVERGENT publish
   * ({@code _idem/evidence/<key>/<sha256>}), read-only, since the SPI has no other way to fetch it.
   */
  @Override
  public Optional<InputStream> open(String key) throws IOException {
    Path target = key != null && key.startsWith(EVIDENCE_PREFIX)
        ? resolveUnder(evidenceRoot, key.substring(EVIDENCE_PREFIX.length()), key)
        : resolveKey(key);
    if (!Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    try {
      return Optional.of(Files.newInputStream(target));
    } catch (NoSuchFileException e) {
      return Optional.empty(); // deleted since the check
    }
  }

  /**
   * Create-only publish; see the class comment for the protocol and for what each failure leaves.
   *
   * @throws IllegalArgumentException for an invalid key or writer id; nothing is written
   * @throws Payload.ChangedWhileReadingException when the payload's bytes do not hash to its declared
   *     SHA-256; nothing is published and the temporary file is deleted
   * @throws HardLinksUnsupportedException when the filesystem cannot make hard links; nothing is
   *     published
   * @throws IOException when the filesystem failed; the key then holds nothing or a complete object,
   *     and a retry returns CREATED or IDENTICAL
   */
  @Override
  public PutOutcome putIfAbsent(String key, Payload payload, String writerId) throws IOException {
    Path target = resolveKey(key);
    Objects.requireNonNull(payload, "payload");
    Names.requireWriterId(writerId);
    Path dir = target.getParent();
    Path ledger = ledgerFile(key);
    ensureDirectories(dir);
    ensureDirectories(ledger.getParent());
    requireFileOrNothing(target, "object");
    requireFileOrNothing(ledger, "ledger");
    String declared = payload.sha256();
    try (TempFile temp = TempFile.create(ops, dir, target.getFileName().toString())) {
      MessageDigest md = Sha256.newDigest();
      long size = 0;
      try (InputStream in = payload.open()) {
        byte[] buf = new byte[64 * 1024];
        for (int n; (n = in.read(buf)) != -1; size += n) {
          md.update(buf, 0, n);
          temp.write(ByteBuffer.wrap(buf, 0, n));
        }
      }
      temp.forceAndClose();
      String sha = Sha256.hex(md.digest());
      if (!sha.equals(declared)) {
        throw new Payload.ChangedWhileReadingException(payload + " (publishing " + target + ")", declared, sha);
      }
      for (int attempt = 1; ; attempt++) {
        if (link(temp.path(), target)) {
          syncDirectory(dir, "published " + target + " but could not make it durable");
          knownKeys.add(key);
          ObjectInfo created = new ObjectInfo(key, sha, size, writerId, Instant.now());
          record(ledger, PutStatus.CREATED, created.publishedAt(), sha, size, writerId,
              "published " + target + " but could not record it in its ledger");
          return new PutOutcome(PutStatus.CREATED, created, sha, size, null);
        }
        Optional<ObjectInfo> stored = stat(key, target);
        if (stored.isPresent()) {
          syncDirectory(dir, "found " + target + " but could not make it durable");
          knownKeys.add(key);
          return existing(key, stored.get(), temp.path(), sha, size, writerId, ledger);
        }
        requireFileOrNothing(target, "object");
        if (attempt == PUBLISH_ATTEMPTS) {
          throw new IOException("could not publish " + target + ": an object kept appearing there and vanishing"
              + " (deleted by retention?) " + PUBLISH_ATTEMPTS + " times; nothing was published");
        }
      }
    }
  }

  private PutOutcome existing(String key, ObjectInfo stored, Path temp, String sha, long size, String writerId,
      Path ledger) throws IOException {
    if (stored.sha256().equals(sha)) {
      record(ledger, PutStatus.IDENTICAL, Instant.now(), sha, size, writerId,
          "identical publish of " + root.resolve(key) + " could not be recorded in its ledger");
      return new PutOutcome(PutStatus.IDENTICAL, stored, sha, size, null);
    }
    String evidenceKey = null;
    if (options.keepDivergentBytes()) {
      Path evidence = evidenceRoot.resolve(key).resolve(sha);
      ensureDirectories(evidence.getParent());
      try {
        ops.createLink(evidence, temp);
      } catch (FileAlreadyExistsException sameBytesKeptBefore) {
        // Named by their hash: the same divergent bytes were kept by an earlier attempt.
      }
      syncDirectory(evidence.getParent(), "kept divergent bytes at " + evidence + " but could not make them durable");
      evidenceKey = EVIDENCE_PREFIX + key + "/" + sha;
    }
    record(ledger, PutStatus.DIVERGENT, Instant.now(), sha, size, writerId,
        "divergent publish of " + root.resolve(key) + " could not be recorded in its ledger");
    return new PutOutcome(PutStatus.DIVERGENT, stored, sha, size, evidenceKey);
  }

  /** {@code link(temp, target)}: true if this call created the object, false if one was there. */
  private boolean link(Path temp, Path target) throws IOException {
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

  private static boolean isSameFile(Path a, Path b) {
    try {
      return Files.isSameFile(a, b);
    } catch (IOException e) {
      return false;
    }
  }

  private Optional<ObjectInfo> stat(String key, Path target) throws IOException {
    BasicFileAttributes a = regularFileAttributes(target);
    if (a == null) {
      return Optional.empty();
    }
    Ledger.Line line = vouching(Ledger.read(ledgerFile(key)), a);
    if (line != null) {
      return Optional.of(new ObjectInfo(key, line.sha256(), a.size(), line.writer(), line.time()));
    }
    Hashed h = hash(target);
    return h == null ? Optional.empty()
        : Optional.of(new ObjectInfo(key, h.sha256, h.size, null, a.lastModifiedTime().toInstant()));
  }

  /**
   * The ledger's last CREATED line if it describes the file as it is now: same size, and recorded no
   * earlier than the file's last modification (the line is appended after the object is linked, and a
   * file replaced or rewritten later, e.g. by a non-idem writer, has a later modification time).
   */
  private static Ledger.Line vouching(List<Ledger.Line> lines, BasicFileAttributes file) {
    for (int i = lines.size() - 1; i >= 0; i--) {
      Ledger.Line l = lines.get(i);
      if (l.status() == PutStatus.CREATED) {
        boolean matches = l.size() == file.size() && !l.time().isBefore(file.lastModifiedTime().toInstant());
        return matches ? l : null;
      }
    }
    return null;
  }

  private record Hashed(String sha256, long size) {}

  /** The object's SHA-256 and size by reading it, or {@code null} if it is gone. */
  private static Hashed hash(Path file) throws IOException {
    MessageDigest md = Sha256.newDigest();
    long size = 0;
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buf = new byte[64 * 1024];
      for (int n; (n = in.read(buf)) != -1; size += n) {
        md.update(buf, 0, n);
      }
    } catch (NoSuchFileException e) {
      return null;
    } catch (FileSystemException e) {
      if (underAFile(file)) {
        return null;
      }
      throw e;
    }
    return new Hashed(Sha256.hex(md.digest()), size);
  }

  private static BasicFileAttributes regularFileAttributes(Path p) throws IOException {
    try {
      BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return a.isRegularFile() ? a : null;
    } catch (NoSuchFileException e) {
      return null;
    } catch (FileSystemException e) {
      if (underAFile(p)) {
        return null; // ENOTDIR: a key below an object ("a/b/c" under "a/b") holds nothing
      }
      throw e;
    }
  }

  /** Whether some ancestor of {@code p} exists and is not a directory (the JDK reports ENOTDIR untyped). */
  static boolean underAFile(Path p) {
    for (Path a = p.getParent(); a != null; a = a.getParent()) {
      if (Files.exists(a, LinkOption.NOFOLLOW_LINKS)) {
        return !Files.isDirectory(a, LinkOption.NOFOLLOW_LINKS);
      }
    }
    return false;
  }

  private void record(Path ledger, PutStatus status, Instant time, String sha, long size, String writer,
      String context) throws IOException {
    try {
      Ledger.append(ops, ledger, new Ledger.Line(time, status, sha, size, writer));
    } catch (IOException e) {
      throw failure(context + " " + ledger, e);
    }
  }

  /**
   * Deletes the object (retention). Its ledger stays: it is history, and the scan still reads it.
   *
   * @throws IOException when the file could not be deleted (the object is then still whole) or the
   *     directory could not be synced afterwards (the delete may then be undone by a power loss)
   */
  @Override
  public boolean delete(String key) throws IOException {
    Path target = resolveKey(key);
    knownKeys.remove(key);
    if (regularFileAttributes(target) == null) {
      return false;
    }
    boolean deleted = ops.deleteIfExists(target);
    knownKeys.remove(key);
    if (deleted) {
      syncDirectory(target.getParent(), "deleted " + target + " but could not make the delete durable");
    }
    return deleted;
  }

  // ---------------------------------------------------------------------------------------------
  // Listings

  /**
   * Streams each key under {@code prefix} (a plain string prefix of keys) in ascending order, with the
   * entries of its ledger (CREATED → VERSION, IDENTICAL → IDENTICAL_ATTEMPT, DIVERGENT →
   * DIVERGENT_ATTEMPT), oldest first. A key whose object the ledger does not account for (written by
   * something else, or its CREATED line lost in a crash) gets one more VERSION entry with the hashed
   * SHA-256. Keys whose object retention deleted still appear with their ledger entries.
   */
  @Override
  public boolean history(String prefix, HistoryVisitor visitor) throws IOException {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(visitor, "visitor");
    return KeyWalker.walk(root, ledgerRoot, prefix, (key, object, hasLedger) -> {
      List<Ledger.Line> lines = hasLedger ? Ledger.read(ledgerFile(key)) : List.of();
      List<HistoryEntry> entries = new ArrayList<>(lines.size() + 1);
      for (Ledger.Line l : lines) {
        entries.add(new HistoryEntry(key, kindOf(l.status()), null, l.time(), l.size(), l.sha256(), null, l.writer()));
      }
      if (object != null && vouching(lines, object) == null) {
        Hashed h = hash(root.resolve(key));
        if (h != null && lines.stream()
            .noneMatch(l -> l.status() == PutStatus.CREATED && l.sha256().equals(h.sha256))) {
          entries.add(new HistoryEntry(key, HistoryEntry.Kind.VERSION, null,
              object.lastModifiedTime().toInstant(), h.size, h.sha256, null, null));
        }
      }
      if (entries.isEmpty()) {
        return true;
      }
      entries.sort(Comparator.comparing(HistoryEntry::time, Comparator.nullsLast(Comparator.naturalOrder())));
      return visitor.visit(new KeyHistory(key, entries));
    });
  }

  private static HistoryEntry.Kind kindOf(PutStatus status) {
    return switch (status) {
      case CREATED -> HistoryEntry.Kind.VERSION;
      case IDENTICAL -> HistoryEntry.Kind.IDENTICAL_ATTEMPT;
      case DIVERGENT -> HistoryEntry.Kind.DIVERGENT_ATTEMPT;
    };
  }

  /** Streams the current objects under {@code prefix} in ascending key order. */
  @Override
  public boolean list(String prefix, ListingVisitor visitor) throws IOException {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(visitor, "visitor");
    return KeyWalker.walk(root, null, prefix, (key, object, hasLedger) ->
        visitor.visit(new ListedObject(key, object.size(), object.lastModifiedTime().toInstant())));
  }

  // ---------------------------------------------------------------------------------------------
  // Pointer

  /**
   * The pipeline's pointer and its token (the SHA-256 of the file's bytes). Never locks.
   *
   * @throws Pointer.MalformedPointerException when {@code latest} is not a valid pointer document of
   *     this pipeline
   */
  @Override
  public Optional<PointerState> readPointer(String pipeline) throws IOException {
    Path latest = pointerDir(pipeline).resolve(POINTER_FILE);
    byte[] bytes = readPointerBytes(latest);
    if (bytes == null) {
      return Optional.empty();
    }
    return Optional.of(new PointerState(parsePointer(bytes, latest, pipeline), Sha256.of(bytes)));
  }

  /**
   * Replaces the pipeline's pointer with {@code next} if it still has {@code expectedToken}; see the
   * class comment for the protocol.
   *
   * @return SWAPPED; CONFLICT when the token did not match (nothing written); BUSY when the lock could
   *     not be had within {@link Options#lockTimeout()} (nothing written)
   * @throws IllegalArgumentException when {@code next} belongs to another pipeline
   * @throws Pointer.MalformedPointerException when the current document is malformed; it is left as is
   * @throws IOException when the filesystem failed; {@code latest} then holds the old or the new
   *     document, whole, and the lock is released
   */
  @Override
  public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) throws IOException {
    Path dir = pointerDir(pipeline);
    Objects.requireNonNull(next, "next");
    if (!next.pipeline().equals(pipeline)) {
      throw new IllegalArgumentException("pointer for pipeline " + next.pipeline() + " offered to pipeline " + pipeline);
    }
    ensureDirectories(dir);
    Path latest = dir.resolve(POINTER_FILE);
    InterProcessLock lock = InterProcessLock.acquire(ops, dir.resolve(LOCK_FILE), options.lockTimeout());
    if (lock == null) {
      return CasResult.BUSY;
    }
    try (lock) {
      byte[] current = readPointerBytes(latest);
      if (current != null) {
        parsePointer(current, latest, pipeline);
      }
      String token = current == null ? null : Sha256.of(current);
      if (!Objects.equals(token, expectedToken)) {
        return CasResult.CONFLICT;
      }
      makeDurable(next.key());
      try (TempFile temp = TempFile.create(ops, dir, POINTER_FILE)) {
        temp.write(ByteBuffer.wrap(next.toBytes()));
        temp.forceAndClose();
        try {
          ops.atomicMove(temp.path(), latest);
        } catch (AtomicMoveNotSupportedException e) {
          throw new AtomicMoveNotSupportedException(temp.path().toString(), latest.toString(),
              "atomic rename not supported; refusing to replace the pointer non-atomically");
        }
      }
      syncDirectory(dir, "replaced pointer " + latest + " but could not make it durable");
      return CasResult.SWAPPED;
    }
  }

  private Path pointerDir(String pipeline) {
    return pointerRoot.resolve(Names.requirePipeline(pipeline));
  }

  private static byte[] readPointerBytes(Path latest) throws IOException {
    try (InputStream in = Files.newInputStream(latest)) {
      return in.readNBytes(POINTER_READ_LIMIT + 1);
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  private static Pointer parsePointer(byte[] bytes, Path latest, String pipeline) throws IOException {
    Pointer p = Pointer.parse(bytes, latest.toString());
    if (!p.pipeline().equals(pipeline)) {
      throw new Pointer.MalformedPointerException(latest.toString(), "names pipeline " + p.pipeline() + ", not " + pipeline);
    }
    return p;
  }

  /** Syncs the object a pointer is about to name, and its directory entry, if it is here (G1). */
  private void makeDurable(String key) throws IOException {
    Path object = resolveKey(key);
    if (regularFileAttributes(object) == null) {
      return; // PointerAdvancer checked it exists; retention may have removed it since, which is its call.
    }
    try (FileChannel ch = FileChannel.open(object, StandardOpenOption.READ)) {
      ops.force(ch);
    } catch (NoSuchFileException gone) {
      return;
    } catch (IOException e) {
      throw failure("could not make " + object + " durable before pointing at it", e);
    }
    syncDirectory(object.getParent(), "could not make " + object + " durable before pointing at it");
  }

  // ---------------------------------------------------------------------------------------------
  // Sweep

  /**
   * Deletes {@code .tmp-} files (temporaries of killed publishes and pointer writes) anywhere under the
   * root whose last modification is at least {@code grace} old. Pick a grace longer than the slowest
   * publish: a live writer whose temporary file is swept fails with an {@link IOException} and
   * publishes nothing. Nothing else is ever touched.
   *
   * @return {@code "removed <relative path> (<size> bytes, modified <time>)"} per file, or {@code
   *     "would remove …"} with {@code dryRun}, sorted
   */
  @Override
  public List<String> sweep(Duration grace, boolean dryRun) throws IOException {
    Objects.requireNonNull(grace, "grace");
    if (grace.isNegative()) {
      throw new IllegalArgumentException("grace must be >= 0, was " + grace);
    }
    List<String> lines = new ArrayList<>();
    if (!Files.isDirectory(root)) {
      return lines;
    }
    Instant cutoff = Instant.now().minus(grace);
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes a) throws IOException {
        Instant modified = a.lastModifiedTime().toInstant();
        if (a.isRegularFile() && file.getFileName().toString().startsWith(TempFile.PREFIX) && !modified.isAfter(cutoff)) {
          if (dryRun || ops.deleteIfExists(file)) {
            lines.add((dryRun ? "would remove " : "removed ") + root.relativize(file) + " (" + a.size()
                + " bytes, modified " + modified + ")");
          }
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
        if (e instanceof NoSuchFileException) {
          return FileVisitResult.CONTINUE; // removed while we walked
        }
        throw e;
      }
    });
    lines.sort(null);
    return lines;
  }

  /** Nothing to release: the store holds no open files between calls. */
  @Override
  public void close() {}

  // ---------------------------------------------------------------------------------------------
  // Paths and directories

  /**
   * The path of {@code key}: checked by {@link Names#requireSafeKey}, not one of the store's own names,
   * and strictly under the root.
   */
  Path resolveKey(String key) {
    Names.requireSafeKey(key);
    String[] segments = key.split("/", -1);
    for (int i = 0; i < segments.length; i++) {
      if (!KeyWalker.isKeySegment(segments[i], i == 0)) {
        throw new IllegalArgumentException("key " + quote(key) + " uses a name reserved by the filesystem store"
            + " (a first segment starting with _idem, or a segment starting with .tmp-)");
      }
    }
    return resolveUnder(root, key, key);
  }

  private static Path resolveUnder(Path base, String relative, String key) {
    Names.requireSafeKey(relative);
    Path p;
    try {
      p = base.resolve(relative).normalize();
    } catch (InvalidPathException e) {
      throw new IllegalArgumentException("key " + quote(key) + " is not a valid path here: " + e.getReason());
    }
    if (!p.startsWith(base) || p.equals(base)) {
      throw new IllegalArgumentException("key " + quote(key) + " resolves outside " + base);
    }
    return p;
  }

  private Path ledgerFile(String key) {
    return ledgerRoot.resolve(key + KeyWalker.LEDGER_SUFFIX);
  }

  private static String quote(String key) {
    return "\"" + key + "\"";
  }

  private static void requireFileOrNothing(Path p, String what) throws IOException {
    if (Files.exists(p, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
      throw new FileSystemException(p.toString(), null, what + " path is a directory or link, not a file (a"
          + " filesystem store cannot hold both a key and keys below it); nothing was published");
    }
  }

  /** Creates {@code dir} and missing parents, fsyncing the parent of each directory made. */
  private void ensureDirectories(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    Deque<Path> missing = new ArrayDeque<>();
    for (Path p = dir; p != null && !Files.isDirectory(p); p = p.getParent()) {
      missing.push(p);
    }
    while (!missing.isEmpty()) {
      Path d = missing.pop();
      try {
        ops.createDirectory(d);
      } catch (FileAlreadyExistsException e) {
        if (!Files.isDirectory(d)) {
          throw new FileSystemException(d.toString(), null, "exists and is not a directory (a filesystem store"
              + " cannot hold both a key and keys below it); nothing was published");
        }
        // Made concurrently by another writer, which may not have synced it yet: sync it below too.
      }
      syncDirectory(d.getParent(), "created " + d + " but could not make it durable");
    }
  }

  private void syncDirectory(Path dir, String context) throws IOException {
    try {
      ops.fsyncDirectory(dir);
    } catch (IOException e) {
      throw failure(context + " (fsync of " + dir + ")", e);
    }
  }

  /** {@code cause} with {@code context} (which names the path) in front, on one line. */
  static IOException failure(String context, IOException cause) {
    String detail = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    return new IOException(context + ": " + detail.replace('\n', ' '), cause);
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * How a store behaves. Immutable; start from {@link #defaults()} and derive with the {@code with…}
   * methods.
   *
   * @param lockTimeout how long a pointer compare-and-swap waits for the pipeline's lock before
   *     returning BUSY (default 10 s; zero tries once)
   * @param keepDivergentBytes whether a DIVERGENT publish keeps its bytes under {@code
   *     _idem/evidence/} (default true; its ledger line is kept either way)
   * @param existsCacheSize how many keys {@link #exists} remembers (default 4096; 0 disables)
   * @param ops the filesystem seam (default {@link FsOps#real()}; tests inject faults here)
   */
  public record Options(Duration lockTimeout, boolean keepDivergentBytes, int existsCacheSize, FsOps ops) {
    public Options {
      Objects.requireNonNull(lockTimeout, "lockTimeout");
      if (lockTimeout.isNegative()) {
        throw new IllegalArgumentException("lock timeout must be >= 0, was " + lockTimeout);
      }
      if (existsCacheSize < 0) {
        throw new IllegalArgumentException("exists cache size must be >= 0, was " + existsCacheSize);
      }
      Objects.requireNonNull(ops, "ops");
    }

    public static Options defaults() {
      return new Options(Duration.ofSeconds(10), true, 4096, FsOps.real());
    }

    public Options withLockTimeout(Duration timeout) {
      return new Options(timeout, keepDivergentBytes, existsCacheSize, ops);
    }

    public Options withKeepDivergentBytes(boolean keep) {
      return new Options(lockTimeout, keep, existsCacheSize, ops);
    }

    public Options withExistsCacheSize(int size) {
      return new Options(lockTimeout, keepDivergentBytes, size, ops);
    }

    public Options withOps(FsOps fsOps) {
      return new Options(lockTimeout, keepDivergentBytes, existsCacheSize, fsOps);
    }
  }
}
