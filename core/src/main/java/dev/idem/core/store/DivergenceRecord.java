package dev.idem.core.store;

/**
 * How much of a DIVERGENT attempt a store kept (P8: the fact first, then the bytes). A divergence is
 * recorded by a small create-only marker (writer, time, the stored object's and the attempt's SHA-256,
 * size, schema) before the attempt's bytes are written, so a publisher killed or refused while writing
 * the bytes still leaves the fact for the scan. Carried by {@link PutOutcome#record()}; the publish is
 * DIVERGENT whichever it is.
 */
public enum DivergenceRecord {
  /** The marker was written, and the attempt's bytes too where the store keeps them: the scan sees the key divergent. */
  RECORDED,
  /**
   * The marker was written but the bytes could not be: the scan sees the key divergent; the attempt's
   * bytes are lost ({@link PutOutcome#recordFailure()} says why).
   */
  BYTES_NOT_KEPT,
  /**
   * Not even the marker could be written: the scan will not see this attempt, and the DIVERGENT outcome
   * is the only report of it ({@link PutOutcome#recordFailure()} says why).
   */
  NOT_RECORDED
}
