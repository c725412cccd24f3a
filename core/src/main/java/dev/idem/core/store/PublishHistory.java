package dev.idem.core.store;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * A store's record of publishes: every key's versions, delete markers and recorded attempts (identical
 * and divergent), the schema each publish declared, and operators' acknowledgements of divergent keys.
 * It exists because a divergence only shows in history: the object at a key is one caller's bytes, and
 * the other bytes met there are recorded beside it (P4, P8). The divergence scan, {@code idem history}
 * and {@code idem ack} read it; retention removes a deleted key's records with it.
 *
 * <p>A store reaches it through {@link ObjectStore#publishHistory()}. A store without it has nothing a
 * scan could judge, so the scan refuses it ({@link MissingCapabilityException}) rather than pass on
 * what it cannot see.
 *
 * <p>Guarantees: a publish's record is durable when {@link ObjectStore#putIfAbsent} returns (a
 * DIVERGENT one's marker before its bytes, P8); records are created, never changed, and removed only by
 * {@link #deleteRecords}; acknowledgements are create-only and outlive nothing but their key's records.
 */
public interface PublishHistory {

  /**
   * Streams the history of every key under {@code prefix} to {@code visitor}, one key at a time in
   * ascending key order (S3 orders by UTF-8 bytes, the filesystem store by {@link String#compareTo};
   * the two agree for every key without characters above U+FFFF), never holding more than one key's
   * history in memory. Includes versions, delete markers and recorded publish attempts; excludes the
   * store's internal files. A key's versions and delete markers come in the order they were written,
   * oldest first, so a delete marker separates the versions before a delete from those published again
   * after it (the scan judges each such "life" of a key on its own).
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
   * Records an operator's acknowledgement of a divergent key ({@link Acknowledgement}) create-only: it
   * never replaces, changes or is merged with another, and is durable and visible to {@link
   * #acknowledgements} when this returns. Nothing else in the store changes: the key's object, records
   * and evidence stay.
   *
   * @throws IOException when the store failed; the acknowledgement is then recorded whole or not at all,
   *     and recording it again is safe (a second record of the same review)
   */
  void acknowledge(Acknowledgement ack) throws IOException;

  /**
   * The acknowledgements recorded for keys under {@code prefix}, by key ascending, each key's oldest
   * first. Acknowledgements are operators' acts, few enough to hold in memory.
   *
   * @throws Acknowledgement.MalformedAcknowledgementException when a stored document is not one idem
   *     wrote
   */
  List<Acknowledgement> acknowledgements(String prefix) throws IOException;

  /**
   * The history of {@code store}, for a caller that cannot do without it.
   *
   * @param neededFor what the caller does with it, for the error, e.g. "the scan judges keys by it"
   * @throws MissingCapabilityException when the store keeps no publish history
   */
  static PublishHistory of(ObjectStore store, String neededFor) throws MissingCapabilityException {
    return store.publishHistory().orElseThrow(() -> new MissingCapabilityException(store, "publish history", neededFor));
  }

  /** Receives one key's history; returns {@code false} to stop the listing. */
  @FunctionalInterface
  interface HistoryVisitor {
    boolean visit(KeyHistory history) throws IOException;
  }
}
