package dev.idem.core.store;

import dev.idem.core.Names;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The storage operations every store must have, and typed access to the ones a store may have. Implementations:
 * {@code FsObjectStore} (idem-store-fs), with every capability, and {@code S3ObjectStore}
 * (idem-store-s3-http), with every one but {@link Claims}.
 *
 * <h2>Required and optional</h2>
 *
 * This interface is what publishing, reading and retention cannot do without: create-only objects, a
 * pointer with compare-and-set, listing and deleting. What a store may lack is a capability interface
 * it implements, reached through a typed accessor that is empty when the store does not have it:
 *
 * <ul>
 *   <li>{@link PublishHistory} ({@link #publishHistory}): each key's versions and attempts, schemas and
 *       operators' acknowledgements; what the divergence scan judges.
 *   <li>{@link RetirementMarks} ({@link #retirementMarks}): how far retention has deleted, so a window
 *       published again is told apart from a new or divergent one.
 *   <li>{@link LeftoverSweep} ({@link #leftoverSweep}): removal of what killed writers leave behind.
 *   <li>{@link Claims} ({@link #claims}): advisory claims, so a replica can wait for another's object
 *       instead of doing the same work; never needed for correctness.
 * </ul>
 *
 * Each caller states what it does without one: the scan refuses ({@link MissingCapabilityException}),
 * gc skips what needs it and says so, the publisher reports a re-publish as CREATED, every replica runs
 * when there are no claims. The accessors'
 * defaults answer whether this object implements the interface; a decorator overrides them to answer
 * for the store it wraps.
 *
 * <h2>What every implementation guarantees</h2>
 *
 * <ul>
 *   <li><b>P1</b> A reader never sees a partial object or pointer: {@link #open}, {@link #stat} and
 *       {@link #readPointer} see either nothing or the whole, durable content.
 *   <li><b>P2</b> {@link #putIfAbsent} never replaces an existing object; only {@link #delete}
 *       (retention) removes one.
 *   <li><b>P3</b> Of N concurrent {@code putIfAbsent} calls on one key, at most one returns CREATED
 *       and the key ends up holding one caller's bytes; when none of the calls failed, exactly one
 *       returns CREATED and the key holds that caller's bytes. (A call that created the object and then
 *       failed before returning throws; its retry reports IDENTICAL.)
 *   <li><b>P4</b> A call that meets different bytes returns DIVERGENT; a store with {@link PublishHistory}
 *       records the attempt (writer, SHA-256, size, time, and by default the bytes) so its history
 *       reports it later.
 *   <li><b>P8</b> The fact before the bytes (a store with {@link PublishHistory}): a DIVERGENT attempt is
 *       recorded by a small create-only marker (writer, time, the stored object's and the attempt's
 *       SHA-256, size, schema), made durable, before its bytes are written, and the history reports a
 *       marker without bytes as a divergent attempt. A call that cannot write the bytes, or not even the
 *       marker, still returns DIVERGENT, saying so ({@link PutOutcome#record()}, {@link
 *       PutOutcome#recordFailure()}), rather than throw.
 *   <li><b>G1</b> An object is durable when {@code putIfAbsent} returns; a pointer naming it may
 *       then be written.
 *   <li><b>G3</b> {@link #compareAndSetPointer} is linearizable: of concurrent calls with the same
 *       expected token at most one returns SWAPPED.
 *   <li><b>G4/C1</b> A writer killed at any instant leaves no lock that blocks others and no partial
 *       object or pointer; leftovers are invisible to readers, and a store whose writers can leave any
 *       removes them by its {@link LeftoverSweep}.
 * </ul>
 *
 * Keys passed in are validated ({@link dev.idem.core.Names#requireSafeKey}); a store resolves every
 * key strictly under its own root. Outcomes are values; {@link IOException} means the store could not
 * be read or written, and each method says what state such a failure leaves.
 */
public interface ObjectStore extends Closeable {

  /** A short description for logs and errors, e.g. {@code file:/data/idem} or {@code s3://bucket/prefix}. */
  String describe();

  /**
   * Whether an object is at {@code key}. The cheap pre-check of the skip path (P5); stores may answer
   * from a cache of keys known to exist, since published objects do not go away except by retention.
   */
  boolean exists(String key) throws IOException;

  /** Metadata of the object at {@code key}, or empty when there is none. */
  Optional<ObjectInfo> stat(String key) throws IOException;

  /** The object's content, or empty when there is none. The caller closes the stream. */
  Optional<InputStream> open(String key) throws IOException;

  /**
   * Create-only publish of {@code payload} at {@code key} (P2–P4). The payload's {@link Payload#schema()},
   * when it has one, is recorded create-only with the object and with a recorded attempt, and the
   * store's {@link PublishHistory} reports it ({@link HistoryEntry#schema()}); a store that records none
   * leaves the scan judging the key's window whole (schema unknown).
   *
   * <p>Once the call knows the key holds other bytes, a failure to record that is not thrown: the
   * outcome is DIVERGENT with {@link DivergenceRecord#BYTES_NOT_KEPT} (the marker was written) or {@link
   * DivergenceRecord#NOT_RECORDED} (not even the marker), and the failure in {@link
   * PutOutcome#recordFailure()} (P8).
   *
   * @throws IOException when the store failed before the outcome was known; the key then holds either
   *     nothing or a complete object (never a partial one), and a retry is safe: it returns CREATED, or
   *     IDENTICAL if the failed call had in fact completed
   */
  PutOutcome putIfAbsent(String key, Payload payload, String writerId) throws IOException;

  /**
   * Checks that a publish could be written here now, so a caller learns it before doing the work whose
   * result it would then fail to store ({@code idem run} asks before it starts CMD). Each store answers
   * with the cheapest evidence it has: the filesystem store creates its root and {@code _idem/} if they
   * are missing and creates and deletes a temporary file there; the S3 store checks that the bucket
   * exists (S3 decides each PUT by policy, so only a PUT proves one is allowed).
   *
   * @throws IOException naming what cannot be written; nothing is left behind but the store's own
   *     directories
   */
  void checkWritable() throws IOException;

  /**
   * How many bytes could still be written here, where the store can know: a filesystem store's free space
   * usable by this process; empty where it cannot ({@code S3}, where space is not the limit). A caller
   * compares it with what it is about to write (the publisher: a reserve before the task runs, then the
   * result's size) to refuse before writing, not half-way. Reads only.
   */
  default OptionalLong usableSpace() throws IOException {
    return OptionalLong.empty();
  }

  /** The pipeline's pointer with its version token, or empty when the pipeline has none yet. */
  Optional<PointerState> readPointer(String pipeline) throws IOException;

  /**
   * The pipeline's pointer as the store can read it most cheaply, without its token: what the publisher's
   * skip check needs to learn that the pointer already names its key, in which case the key is published
   * (G1) and its advance has nothing to do. It may lag {@link #readPointer} (a store that keeps a copy for
   * readers outside idem updates the copy after the pointer), but it only ever names a generation the
   * pointer named. The default reads {@link #readPointer}; the S3 store reads its {@code latest} object
   * in one GET, which needs no store marker to say which pointer mode the store uses.
   */
  default Optional<Pointer> peekPointer(String pipeline) throws IOException {
    return readPointer(pipeline).map(PointerState::pointer);
  }

  /**
   * Replaces the pipeline's pointer with {@code next} if it still holds {@code expectedToken} ({@code
   * null}: if there is no pointer yet). Ordering rules are the caller's (core's {@code
   * PointerAdvancer}); the store only guarantees atomicity (P1, G3, G4).
   *
   * @throws IOException when the store failed; the pointer then holds either the old or the new
   *     document, whole
   */
  CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) throws IOException;

  /**
   * As {@link #compareAndSetPointer(String, String, Pointer)}, waiting at most {@code maxWait} for
   * whatever the store waits on (a lock, a conflicting request) before returning BUSY with nothing
   * written; {@link Duration#ZERO} tries once. Stores without such waits need not override this; a
   * store that waits must, or a caller's deadline cannot bound it (B1).
   *
   * @throws IOException as the three-argument form
   */
  default CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next, Duration maxWait)
      throws IOException {
    return compareAndSetPointer(pipeline, expectedToken, next);
  }

  /** Streams the current objects under {@code prefix} in ascending key order. */
  boolean list(String prefix, ListingVisitor visitor) throws IOException;

  /**
   * Deletes the object at {@code key} (retention only). Deleting nothing is not an error.
   *
   * @return whether an object was there
   */
  boolean delete(String key) throws IOException;

  /**
   * The pipelines this store holds something of, ascending: every pipeline with a pointer, and every
   * top-level name that is a valid pipeline name ({@link dev.idem.core.Names#isValidName}) and holds
   * objects (a legacy directory of that form counts too). This default walks every object and sees no
   * pointer (correct for stores without pointers of their own, not cheap); stores override it with a
   * listing of names.
   */
  default SortedSet<String> pipelines() throws IOException {
    SortedSet<String> names = new TreeSet<>();
    list("", o -> {
      int slash = o.key().indexOf('/');
      if (slash > 0 && Names.isValidName(o.key().substring(0, slash))) {
        names.add(o.key().substring(0, slash));
      }
      return true;
    });
    return names;
  }

  /**
   * This store's record of publishes ({@link PublishHistory}), or empty when it keeps none. This default
   * answers whether this object implements the interface; a decorator answers for the store it wraps.
   */
  default Optional<PublishHistory> publishHistory() {
    return this instanceof PublishHistory h ? Optional.of(h) : Optional.empty();
  }

  /**
   * This store's retirement marks ({@link RetirementMarks}), or empty when it keeps none. This default
   * answers whether this object implements the interface; a decorator answers for the store it wraps.
   */
  default Optional<RetirementMarks> retirementMarks() {
    return this instanceof RetirementMarks m ? Optional.of(m) : Optional.empty();
  }

  /**
   * This store's sweep of writers' leftovers ({@link LeftoverSweep}), or empty when it has none. This
   * default answers whether this object implements the interface; a decorator answers for the store it
   * wraps.
   */
  default Optional<LeftoverSweep> leftoverSweep() {
    return this instanceof LeftoverSweep s ? Optional.of(s) : Optional.empty();
  }

  /**
   * This store's advisory claims ({@link Claims}), or empty when it keeps none. This default answers
   * whether this object implements the interface; a decorator answers for the store it wraps.
   */
  default Optional<Claims> claims() {
    return this instanceof Claims c ? Optional.of(c) : Optional.empty();
  }

  /** Receives one listed object; returns {@code false} to stop the listing. */
  @FunctionalInterface
  interface ListingVisitor {
    boolean visit(ListedObject object) throws IOException;
  }
}
