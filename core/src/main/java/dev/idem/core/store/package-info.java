/**
 * The store SPI: the few operations idem needs from a storage backend, and the values they return.
 *
 * <p>Both the filesystem store and the S3 store implement {@link dev.idem.core.store.ObjectStore};
 * core never knows which one it talks to. The SPI is deliberately narrow: a create-only put that
 * reports {@code CREATED / IDENTICAL / DIVERGENT}, existence and metadata, reads, a pointer read and a
 * token-based compare-and-swap, a history listing grouped by key for the divergence scan, and the
 * deletes retention needs. Ordering rules (which pointer may replace which) live in core, not in the
 * stores.
 */
package dev.idem.core.store;
