/**
 * The store SPI: the few operations idem needs from a storage backend, and the values they return.
 *
 * <p>Both the filesystem store and the S3 store implement {@link dev.idem.core.store.ObjectStore};
 * core never knows which one it talks to. The SPI is deliberately narrow: a create-only put that
 * reports {@code CREATED / IDENTICAL / DIVERGENT}, existence and metadata, reads, a pointer read and a
 * token-based compare-and-swap, listing and the deletes retention needs. What a store may lack is a
 * capability interface it implements ({@link dev.idem.core.store.PublishHistory}: a history listing
 * grouped by key for the divergence scan; {@link dev.idem.core.store.RetirementMarks}; {@link
 * dev.idem.core.store.LeftoverSweep}; {@link dev.idem.core.store.Claims}, advisory claims that are
 * never needed for correctness), reached through a typed accessor of {@code ObjectStore} that is empty
 * when it does not have it. Ordering rules (which pointer may replace which, how long a replica waits
 * for another's claim: {@link dev.idem.core.store.ClaimWait}) live in core, not in the stores.
 */
package dev.idem.core.store;
