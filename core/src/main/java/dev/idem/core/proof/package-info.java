/**
 * A store proves its guarantees before idem writes to it.
 *
 * <p>Each store module implements {@link dev.idem.core.proof.StoreProver}: it probes what idem relies on
 * (a create-only write that must be refused the second time, a compare-and-swap precondition, hard
 * links, directory fsync) and reads and creates the store's marker. Core owns the marker document
 * ({@link dev.idem.core.proof.StoreMarker}) and the rule of when to probe and when to refuse ({@link
 * dev.idem.core.proof.ProvenStore}).
 */
package dev.idem.core.proof;
