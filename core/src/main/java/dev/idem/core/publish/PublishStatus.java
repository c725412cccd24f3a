package dev.idem.core.publish;

/** How a {@link Publisher#publish} call ended for the object. */
public enum PublishStatus {
  /** The key was already published: the task did not run (P5). */
  SKIPPED,
  /** This replica's bytes are the published object. */
  CREATED,
  /** Another replica published the same bytes first; this replica's write was a no-op. */
  IDENTICAL,
  /** Another replica published different bytes first; they stay, this attempt is kept as evidence. */
  DIVERGENT
}
