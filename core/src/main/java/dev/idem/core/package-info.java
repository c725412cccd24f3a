/**
 * Keying: what makes two replicas of one scheduled task target one object.
 *
 * <p>{@link dev.idem.core.RunSpec} holds the inputs that define a unit of work; {@link
 * dev.idem.core.OutputKey} is derived from it and nothing else (no clock, no host, no process id),
 * so equal specs give equal keys in every process and on every machine (contract K1). Names that
 * reach a key or a store path are validated by {@link dev.idem.core.Names} (K4).
 */
package dev.idem.core;
