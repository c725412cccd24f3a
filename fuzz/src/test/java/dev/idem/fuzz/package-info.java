/**
 * The fuzz suite: generated overlapping deployments ({@link dev.idem.fuzz.Scenarios}) run for real by
 * {@link dev.idem.fuzz.ScenarioRunner} against a {@link dev.idem.fuzz.Backend} (in-memory, filesystem,
 * S3 on S3Proxy) with deaths and faults injected through each backend's seam, then checked by
 * {@link dev.idem.fuzz.InvariantChecker}; plus a linearizability check of the pointer CAS
 * ({@link dev.idem.fuzz.LinearizabilityChecker}).
 *
 * <p>Invariants of the suite itself: a scenario prints as its story and shrinks toward the plain case;
 * every run gets its own store (a directory, or an S3 prefix), so runs never see each other; the
 * checks read through a freshly opened store, never a replica's instance; a violation names the
 * contract it breaks.
 */
package dev.idem.fuzz;
