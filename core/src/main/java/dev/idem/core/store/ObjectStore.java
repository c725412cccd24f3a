package dev.idem.core.store;

import dev.idem.core.Names;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The storage operations idem needs. Implementations: {@code FsObjectStore} (idem-store-fs) and
 * {@code S3ObjectStore} (idem-store-s3-http).
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
 *   <li><b>P4</b> A call that meets different bytes returns DIVERGENT and records the attempt
 *       (writer, SHA-256, size, time, and by default the bytes) so {@link #history} reports it later.
 *   <li><b>P8</b> The fact before the bytes: a DIVERGENT attempt is recorded by a small create-only
 *       marker (writer, time, the stored object's and the attempt's SHA-256, size, schema), made durable,
 *       before its bytes are written, and {@link #history} reports a marker without bytes as a divergent
 *       attempt. A call that cannot write the bytes, or not even the marker, still returns DIVERGENT,
 *       saying so ({@link PutOutcome#record()}, {@link PutOutcome#recordFailure()}), rather than throw.
 *   <li><b>G1</b> An object is durable when {@code putIfAbsent} returns; a pointer naming it may
 *       then be written.
 *   <li><b>G3</b> {@link #compareAndSetPointer} is linearizable: of concurrent calls with the same
 *       expected token at most one returns SWAPPED.
 *   <li><b>G4/C1</b> A writer killed at any instant leaves no lock that blocks others and no partial
 *       object or pointer; leftovers are invisible to readers and removed by {@link #sweep}.
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

  /**
   * The schema version idem recorded with the object at {@code key} ({@link Payload#schema()}), or empty
   * when there is no object or none was recorded. This default reads the key's history ({@link
   * KeyHistory#schema()}); a store whose history does not always carry the schema overrides it.
   */
  default Optional<Integer> schemaOf(String key) throws IOException {
    Integer[] schema = {null};
    history(key, h -> {
      if (h.key().equals(key)) {
        schema[0] = h.holdsObject() ? h.schema() : null;
        return false;
      }
      return true;
    });
    return Optional.ofNullable(schema[0]);
  }

  /** The object's content, or empty when there is none. The caller closes the stream. */
  Optional<InputStream> open(String key) throws IOException;

  /**
   * Create-only publish of {@code payload} at {@code key} (P2–P4). The payload's {@link Payload#schema()},
   * when it has one, is recorded create-only with the object and with a recorded attempt, and {@link
   * #history} reports it ({@link HistoryEntry#schema()}); a store that records none leaves the scan
   * judging the key's window whole (schema unknown).
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

  /**
   * Streams the history of every key under {@code prefix} to {@code visitor}, one key at a time in
   * ascending key order (S3 orders by UTF-8 bytes, the filesystem store by {@link String#compareTo};
   * the two agree for every key without characters above U+FFFF), never holding more than one key's history in memory. Includes versions,
   * delete markers and recorded publish attempts; excludes the store's internal files. A key's versions
   * and delete markers come in the order they were written, oldest first, so a delete marker separates
   * the versions before a delete from those published again after it (the scan judges each such "life"
   * of a key on its own).
   *
   * @return whether the listing ran to the end ({@code false} when the visitor stopped it)
   */
  boolean history(String prefix, HistoryVisitor visitor) throws IOException;

  /**
   * As {@link #history(String, HistoryVisitor)} for the keys {@code query} accepts ({@link
   * HistoryQuery#accepts}), stopping (returning {@code false}) once its deadline has passed. Stores
   * override this to push the query into their listing: no work for a key outside it, the deadline
   * checked for every listed key and before every page, only the ranges that can hold keys in range
   * listed, and up to {@link HistoryQuery#listParallelism()} listing requests at once. This default
   * filters a full walk: correct, but it builds the history of keys it then drops.
   *
   * @return whether the walk ran to the end ({@code false} when the visitor or the deadline stopped it)
   */
  default boolean history(HistoryQuery query, HistoryVisitor visitor) throws IOException {
    return history(query.prefix(), h -> !query.expired() && (!query.accepts(h.key()) || visitor.visit(h)));
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
   * Removes what the store recorded about publishes to {@code key}: its publish records and the kept
   * bytes of its divergent attempts (retention only, after the key's object was deleted: {@code history}
   * then no longer shows the key). Removing nothing is not an error.
   *
   * @return how many records and evidence files or objects were removed
   * @throws IOException when the store failed; some records may then be gone and others left, and
   *     running again removes the rest
   */
  int deleteRecords(String key) throws IOException;

  /**
   * The pipeline's retirement mark ({@link Retirement}): how far retention has deleted, when and by
   * what; empty when no gc run has deleted a generation of it (or the store keeps no such mark).
   *
   * @throws Retirement.MalformedRetirementException when the stored document is not a valid mark of
   *     this pipeline
   */
  default Optional<Retirement> readRetirement(String pipeline) throws IOException {
    return Optional.empty();
  }

  /**
   * Moves the pipeline's retirement mark forward to {@code proposed} (retention only), never back: when
   * the stored mark already covers a window start at least as high, it is kept and nothing is written.
   * Concurrent calls are safe: the mark ends at the highest proposed, whatever the interleaving.
   *
   * @return the mark now stored (the proposed one, or the higher one found); empty only from a store
   *     that keeps no retirement mark (this default), which then reports every re-publish as CREATED
   * @throws IOException when the store failed; the stored mark is then the old or the proposed one,
   *     whole, and calling again finishes the job
   */
  default Optional<Retirement> raiseRetirement(Retirement proposed) throws IOException {
    return Optional.empty();
  }

  /**
   * Records an operator's acknowledgement of a divergent key ({@link Acknowledgement}) create-only: it
   * never replaces, changes or is merged with another, and is durable and visible to {@link
   * #acknowledgements} when this returns. Nothing else in the store changes: the key's object, records
   * and evidence stay.
   *
   * @throws UnsupportedOperationException from a store that keeps no acknowledgements (this default)
   * @throws IOException when the store failed; the acknowledgement is then recorded whole or not at all,
   *     and recording it again is safe (a second record of the same review)
   */
  default void acknowledge(Acknowledgement ack) throws IOException {
    throw new UnsupportedOperationException(describe() + " keeps no acknowledgements");
  }

  /**
   * The acknowledgements recorded for keys under {@code prefix}, by key ascending, each key's oldest
   * first; empty from a store that keeps none (this default). Acknowledgements are operators' acts, few
   * enough to hold in memory.
   *
   * @throws Acknowledgement.MalformedAcknowledgementException when a stored document is not one idem
   *     wrote
   */
  default List<Acknowledgement> acknowledgements(String prefix) throws IOException {
    return List.of();
  }

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
   * Removes leftovers that writers killed mid-operation may leave (temporaries, incomplete uploads,
   * superseded pointer-log entries) older than {@code grace}, so that nothing a live writer still
   * uses is touched.
   *
   * @return what was (or, with {@code dryRun}, would be) removed, one line each
   */
  List<String> sweep(Duration grace, boolean dryRun) throws IOException;

  /** Receives one key's history; returns {@code false} to stop the listing. */
  @FunctionalInterface
  interface HistoryVisitor {
    boolean visit(KeyHistory history) throws IOException;
  }

  /** Receives one listed object; returns {@code false} to stop the listing. */
  @FunctionalInterface
  interface ListingVisitor {
    boolean visit(ListedObject object) throws IOException;
  }
}
