package dev.idem.store.fs;

import dev.idem.core.Names;
import dev.idem.core.store.Acknowledgement;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Claim;
import dev.idem.core.store.Claims;
import dev.idem.core.store.Deadline;
import dev.idem.core.store.DivergenceRecord;
import dev.idem.core.store.HistoryQuery;
import dev.idem.core.store.KnownKeys;
import dev.idem.core.store.LeftoverSweep;
import dev.idem.core.store.ListedObject;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.store.PublishDecision;
import dev.idem.core.store.PublishHistory;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.PutStatus;
import dev.idem.core.store.Retirement;
import dev.idem.core.store.RetirementMarks;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * An {@link ObjectStore} in a local directory: create-only publish by hard link, a kernel-locked
 * compare-and-swap {@code latest} pointer per pipeline, and a create-only record of every publish
 * attempt that the divergence scan reads as history, with the bytes of divergent attempts.
 *
 * <h2>Layout under the root</h2>
 *
 * <pre>
 * &lt;key&gt;                                   the object (e.g. pipeline/1726000000/state-&lt;hex&gt;)
 * &lt;dir of key&gt;/.tmp-&lt;name&gt;.&lt;random&gt;      a publish in flight, or left by a killed one
 * _idem/records/&lt;dir of key&gt;/&lt;name&gt;!&lt;STATUS&gt;.&lt;sha256&gt;.&lt;random&gt;
 *                                         one file per publish attempt (see {@link Records})
 * _idem/records/&lt;dir of key&gt;/.tmp-publish.lock  the keys' publish lock file ({@link KeyPublishLocks})
 * _idem/evidence/&lt;key&gt;/&lt;sha256&gt;          the bytes of a DIVERGENT attempt
 * _idem/pointers/&lt;pipeline&gt;/latest        the pointer document ({@link Pointer#toBytes()})
 * _idem/pointers/&lt;pipeline&gt;/latest.lock   the pointer's lock file (never deleted)
 * _idem/pointers/&lt;pipeline&gt;/retired       the retirement mark gc raises ({@link RetirementFiles})
 * _idem/acks/&lt;key&gt;/ack.&lt;random&gt;          an operator's acknowledgement ({@link AcknowledgementFiles})
 * _idem/claims/&lt;key&gt;/claim.&lt;random&gt;      a writer's advisory claim on the key ({@link ClaimFiles})
 * </pre>
 *
 * Keys are checked by {@link Names#requireSafeKey} and must also not start with a segment {@code
 * _idem…} nor hold a segment {@code .tmp-…} (both any case): those names are the store's own. A key
 * resolves strictly under the root, and stays there (S2): a symbolic link anywhere under the root is
 * refused with a {@link LinkRefusedException} naming it, before anything is read or written through it. Because keys are paths, a key and a key below it ({@code a/b} and
 * {@code a/b/c}) cannot both hold objects; the second publish fails with an {@link IOException} and
 * publishes nothing; idem's own keys ({@code pipeline/window/state-hex}, all three levels deep) never
 * meet that case. Directories are never removed, even when empty: a concurrent publisher may be about to
 * create its temporary file in one. {@link Layout} computes these paths; {@link ContainedFs} is the one
 * way to them: it reads and creates each path component by component without following a link, and
 * refuses one anywhere under the root ({@link LinkRefusedException}), so nothing is read or written
 * outside the root (S2).
 *
 * <h2>Publish ({@link #putIfAbsent}), step by step</h2>
 *
 * <ol>
 *   <li>Create missing directories for the object and its records, fsyncing each new directory's parent.
 *   <li>If the key already holds an object whose SHA-256 (read as in the loser's step below) is the
 *       payload's declared one: {@code fsync} its directory unless a {@code CREATED} record vouches for
 *       it (one is created only after its object's directory fsync), write an {@code IDENTICAL} record,
 *       return IDENTICAL. A replica late to a key copies nothing and usually flushes nothing.
 *   <li>Take the key's publish lock ({@link KeyPublishLocks}, waiting at most {@link
 *       Options#lockTimeout()}, or what is left of {@link Options#deadline()}). A publisher that had to wait looks again, as in step 2: the holder
 *       has usually published the object meanwhile. The lock only saves racing replicas a copy each;
 *       without it (timeout, no byte-range locks) the steps below are as safe.
 *   <li>Create {@code .tmp-<name>.<random>} beside the object ({@code O_EXCL}), copy the payload into
 *       it while hashing, and refuse ({@link Payload.ChangedWhileReadingException}) if the hash is not
 *       the payload's declared SHA-256. {@code fsync} the temporary file.
 *   <li>Promote with {@code link(temp, key)} ({@link Files#createLink}): atomic, and it fails if the key
 *       exists, so it can never replace an object (P2). Exactly one concurrent publisher's link
 *       succeeds (P3).
 *   <li>Winner: {@code fsync} the directory (the object is now durable, G1), write a {@code CREATED}
 *       record, return CREATED.
 *   <li>Loser ({@link FileAlreadyExistsException}): read the stored SHA-256 (from its record, else by
 *       hashing the object: it is complete, since it was linked only after its {@code fsync}), {@code
 *       fsync} its directory too (the winner may not have yet), and decide ({@link PublishDecision}):
 *       same hash → an {@code IDENTICAL} record; different → first the divergence's marker (P8), a
 *       {@code DIVERGENT} record naming both hashes, forced and its directory fsynced; then (when {@link
 *       Options#keepDivergentBytes()}) link the temporary file to {@code _idem/evidence/<key>/<sha256>}
 *       and fsync its directory; return DIVERGENT (P4). A record that cannot be written returns
 *       DIVERGENT {@link DivergenceRecord#NOT_RECORDED}, bytes that cannot be kept {@link
 *       DivergenceRecord#BYTES_NOT_KEPT}, with the failure: the outcome is known, so it is not thrown.
 *   <li>Always: delete the temporary name (the content lives on under the object's or the evidence's
 *       name), then release the lock.
 * </ol>
 *
 * What a failure (an {@link IOException}, or the process killed) leaves:
 *
 * <ul>
 *   <li>before the link: no object; possibly a {@code .tmp-} file (deleted on the way out unless the
 *       process died), invisible to readers and removed by {@link #sweep};
 *   <li>at or after the link: a complete object, the one a retry then reports as IDENTICAL. If the
 *       directory {@code fsync} failed or a crash came before it, the object may vanish after a power
 *       loss, whole; if its record is missing, {@link #stat} and {@link #history} hash the object
 *       instead of reading its recorded SHA-256;
 *   <li>a DIVERGENT record without its evidence bytes (killed or failing between the two): the history
 *       reports the attempt from the record, so the key is never clean;
 *   <li>evidence bytes without a DIVERGENT record (written by an earlier version, which kept the bytes
 *       first): the history reports the attempt from the evidence file;
 *   <li>never a partial object, and never a replaced one.
 * </ul>
 *
 * <p>Where hard links are missing the publish fails with {@link HardLinksUnsupportedException} (which
 * says why there is no rename fallback) and nothing is published.
 *
 * <h2>Pointer ({@link #readPointer}, {@link #compareAndSetPointer})</h2>
 *
 * One {@code latest} file per pipeline, read without a lock and replaced only by an atomic rename under
 * the pipeline's kernel lock; {@link PointerFiles} states the compare-and-swap step by step and what
 * each failure leaves.
 *
 * <h2>Listings ({@link #list}, {@link #history})</h2>
 *
 * {@link KeyWalker} walks the object, record and evidence trees together in key order;
 * {@link RecordHistory} turns each key's records into history.
 *
 * <h2>Thread safety</h2>
 *
 * Safe for concurrent use by any number of threads and processes on one root. Stores on one root in
 * one JVM share their in-process pointer locks.
 *
 * <p>It has every optional capability of a store: {@link PublishHistory}, {@link RetirementMarks},
 * {@link LeftoverSweep} and {@link Claims}.
 */
public final class FsObjectStore implements ObjectStore, PublishHistory, RetirementMarks, LeftoverSweep, Claims {
  private static final int PUBLISH_ATTEMPTS = 3;

  private final Layout layout;
  private final Options options;
  private final FsOps ops;
  private final ContainedFs fs;
  private final KnownKeys knownKeys;
  /** Keys this instance created: forced and linked, their directory fsynced, so durable (G1). */
  private final KnownKeys createdHere;
  private final PublishDecision decision;
  private final PointerFiles pointers;
  private final RetirementFiles retirements;
  private final AcknowledgementFiles acks;
  private final ClaimFiles claimFiles;
  private final PayloadCopier copier = new PayloadCopier();

  private FsObjectStore(Path root, Options options) {
    this.layout = new Layout(root);
    this.options = options;
    this.ops = options.ops();
    this.fs = new ContainedFs(root, ops);
    this.knownKeys = new KnownKeys(options.existsCacheSize());
    this.createdHere = new KnownKeys(options.existsCacheSize());
    this.decision = options.keepDivergentBytes() ? PublishDecision.keepingBytes() : PublishDecision.markerOnly();
    this.pointers = new PointerFiles(layout, fs, ops, options.lockTimeout(), createdHere::contains);
    this.retirements = new RetirementFiles(layout, fs, ops);
    this.acks = new AcknowledgementFiles(layout, fs, ops);
    this.claimFiles = new ClaimFiles(layout, fs, ops);
  }

  /** A store at {@code root} with {@link Options#defaults()}. See {@link #open(Path, Options)}. */
  public static FsObjectStore open(Path root) throws IOException {
    return open(root, Options.defaults());
  }

  /**
   * A store at {@code root}. Nothing is created until the first write, so opening a missing root for
   * reading shows an empty store. A root that is itself a link is resolved here, once (the operator
   * chose it); links below it are refused.
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
    return layout.root();
  }

  public Options options() {
    return options;
  }

  @Override
  public String describe() {
    return "file:" + layout.root();
  }

  @Override
  public String toString() {
    return describe();
  }

  /**
   * Creates the root and {@code _idem/} if missing (fsynced, links refused, as a publish would), then
   * creates a temporary file in {@code _idem/} and deletes it: the first steps of every publish, so a
   * read-only mount, a full quota, missing permissions or a root below a regular file are met here
   * rather than after the caller's work.
   *
   * @throws IOException naming the path that could not be created; the directories made before it stay,
   *     and a temporary file whose deletion failed is left for {@link #sweep}
   */
  @Override
  public void checkWritable() throws IOException {
    Path internal = layout.internalDir();
    fs.ensureDirectory(internal);
    TempFile probe = TempFile.create(ops, internal, "writable");
    probe.close();
  }

  /**
   * The free space of the filesystem the root is on, usable by this process; for a root not created yet,
   * of the nearest directory above it that exists; empty when it cannot be read (then nothing is checked
   * against it: a check that cannot be made must not stop a publish). Creates nothing.
   */
  @Override
  public OptionalLong usableSpace() {
    Path existing = layout.root();
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(ops.usableSpace(existing));
    } catch (IOException e) {
      return OptionalLong.empty();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Objects

  /**
   * Answers from a bounded cache of keys this store has seen holding an object ({@link KnownKeys}), else
   * one {@code stat}.
   *
   * @throws LinkRefusedException when a link lies on the key's path under the root
   */
  @Override
  public boolean exists(String key) throws IOException {
    // Only keys that passed resolveKey are ever cached, so a hit needs no validation: the skip path's
    // pre-check then costs one hash lookup.
    if (knownKeys.contains(key)) {
      return true;
    }
    Path target = layout.resolveKey(key);
    long seen = knownKeys.stamp();
    boolean present = fs.regularFile(target) != null;
    if (present) {
      knownKeys.remember(key, seen);
    }
    return present;
  }

  /**
   * The object's metadata. Its SHA-256, writer and time come from its last CREATED record when that
   * record matches the file (same size, written no earlier than the file's last modification);
   * otherwise (a crash lost the line, or something other than idem wrote the file) the object is
   * hashed, and writer is {@code null} and time the file's modification time. (Where a file server
   * stamps modification times with a clock ahead of this host's, e.g. some NFS setups, lines do not
   * match and every stat hashes: still correct, only slower.)
   */
  @Override
  public Optional<ObjectInfo> stat(String key) throws IOException {
    return StoredObjects.stat(fs, layout, key, layout.resolveKey(key));
  }

  /**
   * The object's content. Also accepts the {@link PutOutcome#evidenceKey()} of a DIVERGENT publish
   * ({@code _idem/evidence/<key>/<sha256>}), read-only, since the SPI has no other way to fetch it.
   */
  @Override
  public Optional<InputStream> open(String key) throws IOException {
    Path target = key != null && key.startsWith(Layout.EVIDENCE_PREFIX)
        ? layout.resolveEvidenceKey(key)
        : layout.resolveKey(key);
    return Optional.ofNullable(fs.open(target));
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
    Path target = layout.resolveKey(key);
    Objects.requireNonNull(payload, "payload");
    Names.requireWriterId(writerId);
    long seen = knownKeys.stamp();
    Path dir = target.getParent();
    Path records = layout.recordDir(key);
    fs.ensureDirectories(dir, records);
    // ensureDirectories just checked every directory above the target: only the target itself is left.
    BasicFileAttributes there = fs.entry(target);
    boolean present = ContainedFs.requireFileOrNothing(there, target, "object");
    // A replica late to a key another has filled (the usual case in a rolling deploy) compares hashes
    // before copying anything: the object there is complete (linked only after its fsync), so
    // identical bytes need no temporary copy and no flush of it.
    PutOutcome same = present ? identicalIfStored(key, target, there, payload, writerId, records, seen) : null;
    if (same != null) {
      return same;
    }
    // Replicas that reach an empty key together: one copies, the others wait for it and then find its
    // object (an economy only: link(2) below still decides who creates; see KeyPublishLocks).
    Path lockFile = records.resolve(KeyPublishLocks.FILE_NAME);
    try (KeyPublishLocks.Held turn = KeyPublishLocks.acquire(ops, fs, lockFile, key, lockWait())) {
      there = turn.waited() ? fs.attributes(target) : null;
      if (!ContainedFs.requireFileOrNothing(there, target, "object")) {
        return create(key, target, payload, writerId, records, seen);
      }
    }
    // It waited and an object is there now, most likely the holder's: compare outside the lock, so the
    // other waiters do not queue behind this one's record; different bytes are copied as evidence.
    same = identicalIfStored(key, target, there, payload, writerId, records, seen);
    return same != null ? same : create(key, target, payload, writerId, records, seen);
  }

  /**
   * IDENTICAL when the object at {@code target} ({@code file}: its attributes, just read) holds the
   * payload's bytes (by SHA-256), else null. G1's
   * directory fsync is made only when no CREATED record vouches for the object (its creator may not
   * have synced yet).
   */
  private PutOutcome identicalIfStored(String key, Path target, BasicFileAttributes file, Payload payload,
      String writerId, Path records, long seen) throws IOException {
    Attempt attempt = new Attempt(key, target, records, writerId, payload.schema(), null);
    ObjectInfo named = StoredObjects.vouchedByName(fs, layout, key, target, file, payload.sha256());
    if (named != null) {
      knownKeys.remember(key, seen);
      return decision.identical(named, attempt);
    }
    StoredObjects.Stated there = StoredObjects.stated(fs, layout, key, target);
    if (there == null || !there.info().sha256().equals(payload.sha256())) {
      return null;
    }
    if (!there.durableByRecord()) {
      fs.sync(target.getParent(), "found " + target + " but could not make it durable");
    }
    knownKeys.remember(key, seen);
    return decision.identical(there.info(), attempt);
  }

  /** Copies the payload to a temporary file and links it to {@code target}: steps 4 to 8 of the class comment. */
  private PutOutcome create(String key, Path target, Payload payload, String writerId, Path records, long seen)
      throws IOException {
    Path dir = target.getParent();
    try (TempFile temp = TempFile.create(ops, dir, target.getFileName().toString())) {
      PayloadCopier.Copied copied = copier.copy(payload, temp, target);
      String sha = copied.sha256();
      long size = copied.size();
      for (int attempt = 1; ; attempt++) {
        long linking = createdHere.stamp();
        if (fs.link(temp.path(), target)) {
          fs.sync(dir, "published " + target + " but could not make it durable");
          knownKeys.remember(key, seen);
          createdHere.remember(key, linking);
          ObjectInfo created = new ObjectInfo(key, sha, size, writerId, Instant.now());
          record(records, target, PutStatus.CREATED, created.publishedAt(), sha, size, writerId, payload.schema(),
              "published " + target + " but could not write its record");
          return new PutOutcome(PutStatus.CREATED, created, sha, size, null);
        }
        Optional<ObjectInfo> stored = StoredObjects.stat(fs, layout, key, target);
        if (stored.isPresent()) {
          fs.sync(dir, "found " + target + " but could not make it durable");
          knownKeys.remember(key, seen);
          return decision.decide(stored.get(), sha, size,
              new Attempt(key, target, records, writerId, payload.schema(), temp.path()));
        }
        ContainedFs.requireFileOrNothing(fs.attributes(target), target, "object");
        if (attempt == PUBLISH_ATTEMPTS) {
          throw new IOException("could not publish " + target + ": an object kept appearing there and vanishing"
              + " (deleted by retention?) " + PUBLISH_ATTEMPTS + " times; nothing was published");
        }
      }
    }
  }

  /**
   * A publish's own steps when its key holds an object ({@link PublishDecision}): an IDENTICAL record;
   * for a divergence, a DIVERGENT record as its marker (forced, its directory fsynced: P8), then the
   * temporary file linked as evidence. A link found in the store is refused (S2) even there.
   */
  private final class Attempt implements PublishDecision.Steps {
    private final String key;
    private final Path target;
    private final Path records;
    private final String writerId;
    private final Integer schema;
    /** The attempt's bytes, or null before they are copied (then only IDENTICAL is decided). */
    private final Path temp;

    Attempt(String key, Path target, Path records, String writerId, Integer schema, Path temp) {
      this.key = key;
      this.target = target;
      this.records = records;
      this.writerId = writerId;
      this.schema = schema;
      this.temp = temp;
    }

    @Override // the object's directory is fsynced by the caller (G1)
    public void recordIdentical(ObjectInfo stored) throws IOException {
      record(records, target, PutStatus.IDENTICAL, Instant.now(), stored.sha256(), stored.size(), writerId, schema,
          "identical publish of " + target + " could not be recorded");
    }

    @Override
    public void writeMarker(ObjectInfo stored, String attemptSha256, long attemptSize) throws IOException {
      Records.write(fs, ops, records, target.getFileName().toString(), new RecordLine(Instant.now(),
          PutStatus.DIVERGENT, attemptSha256, attemptSize, writerId, schema, stored.sha256()));
    }

    @Override
    public String keepBytes(ObjectInfo stored, String attemptSha256) throws IOException {
      return Records.keepEvidence(fs, ops, layout, key, attemptSha256, Objects.requireNonNull(temp, "temp"));
    }

    @Override
    public String marker() {
      return "the DIVERGENT record of " + target + " in " + records;
    }

    @Override
    public String bytes() {
      return "the divergent bytes of " + target + " under " + layout.evidenceDir(key);
    }

    @Override // a link in the store: refused as everywhere else (S2)
    public boolean propagates(IOException failure) {
      return failure instanceof LinkRefusedException;
    }
  }

  private void record(Path records, Path target, PutStatus status, Instant time, String sha, long size,
      String writer, Integer schema, String context) throws IOException {
    try {
      Records.write(fs, ops, records, target.getFileName().toString(),
          new RecordLine(time, status, sha, size, writer, schema));
    } catch (IOException e) {
      throw failure(context + " in " + records, e);
    }
  }

  /**
   * Deletes the object (retention); its records stay until {@link #deleteRecords}.
   *
   * @throws IOException when the file could not be deleted (the object is then still whole) or the
   *     directory could not be synced afterwards (the delete may then be undone by a power loss)
   */
  @Override
  public boolean delete(String key) throws IOException {
    Path target = layout.resolveKey(key);
    knownKeys.forget(key);
    createdHere.forget(key);
    if (fs.regularFile(target) == null) {
      return false;
    }
    boolean deleted = ops.deleteIfExists(target);
    knownKeys.forget(key);
    if (deleted) {
      fs.sync(target.getParent(), "deleted " + target + " but could not make the delete durable");
    }
    return deleted;
  }

  /** Deletes the key's records and kept divergent bytes, directories synced; see {@link Records#deleteAll}. */
  @Override
  public int deleteRecords(String key) throws IOException {
    return Records.deleteAll(fs, ops, layout, key);
  }

  // ---------------------------------------------------------------------------------------------
  // Listings

  /**
   * Streams each key under {@code prefix} (a plain string prefix of keys) in ascending order, with the
   * entries of its records (CREATED → VERSION, IDENTICAL → IDENTICAL_ATTEMPT, DIVERGENT →
   * DIVERGENT_ATTEMPT), oldest first. A key whose object no record accounts for (written by something
   * else, or its CREATED record lost in a crash) gets one more VERSION entry with the hashed SHA-256;
   * kept divergent bytes no DIVERGENT record accounts for get a DIVERGENT_ATTEMPT. Keys whose object
   * retention deleted still appear with their records.
   */
  @Override
  public boolean history(String prefix, HistoryVisitor visitor) throws IOException {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(visitor, "visitor");
    return RecordHistory.walk(layout, fs, HistoryQuery.under(prefix), visitor);
  }

  /**
   * As {@link #history(String, HistoryVisitor)} for the keys {@code query} accepts: a window query
   * enters only the window directories in range, no record is read and nothing hashed for a key
   * outside the query, and the deadline is checked for every key listed. (Directories are read one
   * at a time: {@link HistoryQuery#listParallelism()} is for stores that list over a network.)
   */
  @Override
  public boolean history(HistoryQuery query, HistoryVisitor visitor) throws IOException {
    Objects.requireNonNull(query, "query");
    Objects.requireNonNull(visitor, "visitor");
    return RecordHistory.walk(layout, fs, query, visitor);
  }

  /** Streams the current objects under {@code prefix} in ascending key order. */
  @Override
  public boolean list(String prefix, ListingVisitor visitor) throws IOException {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(visitor, "visitor");
    return KeyWalker.walk(fs, null, prefix, (key, found) ->
        visitor.visit(new ListedObject(key, found.object.size(), found.object.lastModifiedTime().toInstant())));
  }

  // ---------------------------------------------------------------------------------------------
  // Pointer and retirement mark (the protocols are in PointerFiles and RetirementFiles)

  /**
   * The pipeline's pointer and its token (the SHA-256 of the file's bytes). Never locks.
   *
   * @throws Pointer.MalformedPointerException when {@code latest} is not a valid pointer document of
   *     this pipeline
   */
  @Override
  public Optional<PointerState> readPointer(String pipeline) throws IOException {
    return pointers.read(pipeline);
  }

  /**
   * Replaces the pipeline's pointer with {@code next} if it still has {@code expectedToken}; see {@link
   * PointerFiles} for the protocol.
   *
   * @return SWAPPED; CONFLICT when the token did not match (nothing written); BUSY when the lock could
   *     not be had within {@link Options#lockTimeout()}, or what was left of {@link Options#deadline()}
   *     (nothing written)
   * @throws IllegalArgumentException when {@code next} belongs to another pipeline
   * @throws Pointer.MalformedPointerException when the current document is malformed; it is left as is
   * @throws IOException when the filesystem failed; {@code latest} then holds the old or the new
   *     document, whole, and the lock is released
   */
  @Override
  public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) throws IOException {
    return pointers.compareAndSet(pipeline, expectedToken, next, lockWait());
  }

  /**
   * As {@link #compareAndSetPointer(String, String, Pointer)}, waiting for the lock at most the shortest
   * of {@code maxWait}, {@link Options#lockTimeout()} and what is left of {@link Options#deadline()}: how
   * a pointer advance's deadline bounds it.
   */
  @Override
  public CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next, Duration maxWait)
      throws IOException {
    Duration wait = lockWait();
    return pointers.compareAndSet(pipeline, expectedToken, next,
        Objects.requireNonNull(maxWait, "maxWait").compareTo(wait) < 0 ? maxWait : wait);
  }

  @Override // the pipeline's retired file, read without a lock (RetirementFiles)
  public Optional<Retirement> readRetirement(String pipeline) throws IOException {
    return retirements.read(pipeline);
  }

  /** Raises {@code retired} forward only, under the pointer's lock ({@link RetirementFiles}). */
  @Override
  public Retirement raiseRetirement(Retirement proposed) throws IOException {
    Duration wait = lockWait();
    Deadline d = options.deadline();
    String within = Deadline.format(wait) + (wait.compareTo(options.lockTimeout()) < 0 && d != null
        ? " (what was left of " + d.describe() + ")" : "");
    return retirements.raise(proposed, wait, within);
  }

  /** How long a lock may be waited for now: the lock timeout, or what is left of the deadline when less. */
  private Duration lockWait() {
    Deadline d = options.deadline();
    return d == null ? options.lockTimeout() : d.cap(options.lockTimeout());
  }

  /** Creates the acknowledgement's own file, never replacing one ({@link AcknowledgementFiles}). */
  @Override
  public void acknowledge(Acknowledgement ack) throws IOException {
    acks.write(ack);
  }

  @Override
  public List<Acknowledgement> acknowledgements(String prefix) throws IOException {
    return acks.read(prefix);
  }

  // ---------------------------------------------------------------------------------------------
  // Claims (advice only: the protocol, the clock and the skew allowance are in ClaimFiles)

  /**
   * Claims {@code key} unless another writer's claim there is younger than {@code ttl}; see {@link
   * Claims#claim} and {@link ClaimFiles}.
   */
  @Override
  public Claims.Claimed claim(String key, String writer, Duration expected, Duration ttl) throws IOException {
    return claimFiles.claim(key, writer, expected, ttl);
  }

  /** Writes the claim as a new entry, then deletes the old one ({@link ClaimFiles}). */
  @Override
  public Claim renewClaim(Claim held) throws IOException {
    return claimFiles.renew(held);
  }

  @Override
  public boolean releaseClaim(Claim claim) throws IOException {
    return claimFiles.release(claim);
  }

  /**
   * The key's freshest claim, aged by this host's clock against the file's modification time less a
   * skew allowance ({@link ClaimFiles}); unreadable entries are treated as absent.
   */
  @Override
  public Optional<Claim> readClaim(String key) throws IOException {
    return claimFiles.read(key);
  }

  @Override
  public List<Claim> listClaims(String prefix) throws IOException {
    return claimFiles.list(prefix);
  }

  /**
   * The directories at the root named as a pipeline may be (whatever they hold), and the pipelines with
   * a {@code latest} pointer: two directory listings, links refused.
   */
  @Override
  public SortedSet<String> pipelines() throws IOException {
    SortedSet<String> names = new TreeSet<>();
    for (Path dir : List.of(layout.root(), layout.pointerRoot())) {
      DirectoryStream<Path> listing = fs.list(dir);
      if (listing == null) {
        continue;
      }
      List<Path> children = new ArrayList<>();
      try (DirectoryStream<Path> entries = listing) {
        entries.forEach(children::add);
      }
      for (Path child : children) {
        String name = child.getFileName().toString();
        BasicFileAttributes a = Names.isValidName(name) ? fs.entry(child) : null;
        if (a != null && a.isDirectory()
            && (dir.equals(layout.root()) || fs.regularFile(child.resolve(PointerFiles.POINTER_FILE)) != null)) {
          names.add(name);
        }
      }
    }
    return names;
  }

  // ---------------------------------------------------------------------------------------------- Sweep

  /**
   * Deletes {@code .tmp-} files (temporaries of killed publishes, pointer writes and claims) anywhere
   * under the root whose last modification is at least {@code grace} old, then the empty claim
   * directories under {@code _idem/claims/} as old ({@link ClaimFiles}: a claimer writing into one
   * meanwhile at worst fails its claim and runs without one). Pick a grace longer than the slowest
   * publish: a live writer whose temporary file is swept fails with an {@link IOException} and
   * publishes nothing. Nothing else is ever touched.
   *
   * @return {@code "removed <relative path> (<size> bytes, modified <time>)"} per file and {@code
   *     "removed <relative path>/ (empty claim directory, modified <time>)"} per directory, or {@code
   *     "would remove …"} with {@code dryRun}, sorted
   */
  @Override
  public List<String> sweep(Duration grace, boolean dryRun) throws IOException {
    Objects.requireNonNull(grace, "grace");
    if (grace.isNegative()) {
      throw new IllegalArgumentException("grace must be >= 0, was " + grace);
    }
    List<String> lines = new ArrayList<>(TempFile.sweep(ops, layout.root(), grace, dryRun));
    lines.addAll(claimFiles.sweepEmpty(grace, dryRun));
    lines.sort(null);
    return lines;
  }

  @Override
  public void close() {} // nothing to release: the store holds no open files between calls

  // ---------------------------------------------------------------------------------------------- Helpers

  /** {@code cause} with {@code context} (which names the path) in front, on one line. */
  static IOException failure(String context, IOException cause) {
    String detail = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    return new IOException(context + ": " + detail.replace('\n', ' '), cause);
  }

  /**
   * How a store behaves. Immutable; start from {@link #defaults()} and derive with the {@code with…}
   * methods. (The filesystem seam, {@link FsOps}, is set only by tests in this package: it is not API.)
   */
  public static final class Options {
    private final Duration lockTimeout;
    private final boolean keepDivergentBytes;
    private final int existsCacheSize;
    private final FsOps ops;
    private final Deadline deadline;

    private Options(Duration lockTimeout, boolean keepDivergentBytes, int existsCacheSize, FsOps ops,
        Deadline deadline) {
      Objects.requireNonNull(lockTimeout, "lockTimeout");
      if (lockTimeout.isNegative()) {
        throw new IllegalArgumentException("lock timeout must be >= 0, was " + lockTimeout);
      }
      if (existsCacheSize < 0) {
        throw new IllegalArgumentException("exists cache size must be >= 0, was " + existsCacheSize);
      }
      this.lockTimeout = lockTimeout;
      this.keepDivergentBytes = keepDivergentBytes;
      this.existsCacheSize = existsCacheSize;
      this.ops = Objects.requireNonNull(ops, "ops");
      this.deadline = deadline;
    }

    /** A 10 s lock timeout, divergent bytes kept, 4096 keys remembered, no deadline. */
    public static Options defaults() {
      return new Options(Duration.ofSeconds(10), true, 4096, FsOps.real(), null);
    }

    /**
     * How long a pointer compare-and-swap waits for the pipeline's lock before returning BUSY, and a
     * publish for another publisher of its key before copying itself (default 10 s; zero tries once).
     */
    public Duration lockTimeout() {
      return lockTimeout;
    }

    /**
     * Whether a DIVERGENT publish keeps its bytes under {@code _idem/evidence/} (default true; its
     * record is kept either way).
     */
    public boolean keepDivergentBytes() {
      return keepDivergentBytes;
    }

    /** How many keys {@link FsObjectStore#exists} remembers (default 4096; 0 disables). */
    public int existsCacheSize() {
      return existsCacheSize;
    }

    /**
     * A caller's overall deadline (B2) that every lock wait also ends by, or {@code null} (default): a
     * wait that it cuts short is reported as the lock timeout's would be (BUSY, a publish that copies
     * itself, a retirement raise that fails naming the deadline).
     */
    public Deadline deadline() {
      return deadline;
    }

    /** The filesystem seam (default {@link FsOps#real()}; tests inject faults here). */
    FsOps ops() {
      return ops;
    }

    public Options withLockTimeout(Duration timeout) {
      return new Options(timeout, keepDivergentBytes, existsCacheSize, ops, deadline);
    }

    public Options withKeepDivergentBytes(boolean keep) {
      return new Options(lockTimeout, keep, existsCacheSize, ops, deadline);
    }

    public Options withExistsCacheSize(int size) {
      return new Options(lockTimeout, keepDivergentBytes, size, ops, deadline);
    }

    /** These options with every filesystem call made through {@code fsOps}: how tests inject faults. */
    Options withOps(FsOps fsOps) {
      return new Options(lockTimeout, keepDivergentBytes, existsCacheSize, fsOps, deadline);
    }

    /** These options with every lock wait also ending by {@code overall}. */
    public Options withDeadline(Deadline overall) {
      return new Options(lockTimeout, keepDivergentBytes, existsCacheSize, ops, Objects.requireNonNull(overall, "overall"));
    }
  }
}
