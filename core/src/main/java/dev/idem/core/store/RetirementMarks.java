package dev.idem.core.store;

import java.io.IOException;
import java.util.Optional;

/**
 * A store's retirement marks ({@link Retirement}): per pipeline, how far retention has deleted, when
 * and by what. It exists so that a window published again after gc deleted its generation is reported
 * REPUBLISHED by the publisher and judged life by life by the scan, not taken for a new or divergent
 * key; and so that the S3 store may create again at a key the mark proves retired (P7).
 *
 * <p>A store reaches it through {@link ObjectStore#retirementMarks()}. Without it the publisher reports
 * such a re-publish as CREATED, the scan judges the key without a mark, and gc still deletes (the mark
 * is a record for readers, not a lock) and says in its report that it raised none.
 *
 * <p>Guarantees: one mark per pipeline, which only moves forward, whatever the interleaving of
 * concurrent raises; a reader sees the old or the new mark, whole.
 */
public interface RetirementMarks {

  /**
   * The pipeline's retirement mark: how far retention has deleted, when and by what; empty when no gc
   * run has deleted a generation of it.
   *
   * @throws Retirement.MalformedRetirementException when the stored document is not a valid mark of
   *     this pipeline
   */
  Optional<Retirement> readRetirement(String pipeline) throws IOException;

  /**
   * Moves the pipeline's retirement mark forward to {@code proposed} (retention only), never back: when
   * the stored mark already covers a window start at least as high, it is kept and nothing is written.
   * Concurrent calls are safe: the mark ends at the highest proposed, whatever the interleaving.
   *
   * @return the mark now stored (the proposed one, or the higher one found)
   * @throws IOException when the store failed; the stored mark is then the old or the proposed one,
   *     whole, and calling again finishes the job
   */
  Retirement raiseRetirement(Retirement proposed) throws IOException;

  /**
   * The retirement marks of {@code store}, for a caller that cannot do without them.
   *
   * @param neededFor what the caller does with them, for the error
   * @throws MissingCapabilityException when the store keeps no retirement marks
   */
  static RetirementMarks of(ObjectStore store, String neededFor) throws MissingCapabilityException {
    return store.retirementMarks().orElseThrow(() -> new MissingCapabilityException(store, "retirement marks", neededFor));
  }
}
