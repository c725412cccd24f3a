/**
 * The whole scheduled-run cycle as one call, for code running in a JVM: {@link dev.idem.core.run.Runner}
 * skips a published key, claims it, runs a task that writes its result to a stream or a file, publishes
 * the result create-only, advances the pipeline's pointer and reports the outcome, as {@code idem run}
 * does for a command; and it stops as a service shuts down, letting a task in progress finish and
 * publish within a drain, then interrupting it.
 *
 * <p>Invariants: a runner adds no outcome of its own to a publish ({@link
 * dev.idem.core.publish.Publisher} decides every one); a task's spooled result is deleted once its
 * publish ends, unless the publish failed after the task succeeded, when it is kept and named ({@link
 * dev.idem.core.run.ResultKeptException}); after a stop, no task starts.
 */
package dev.idem.core.run;
