package dev.idem.core.publish;

/** How a {@link Publisher#publish} call ended for the object. */
public enum PublishStatus {
  /** The key was already published: the task did not run (P5). */
  SKIPPED,
  /** This replica's bytes are the published object. */
  CREATED,
  /**
   * This replica's bytes are the published object, in a window retention ({@code idem gc}) had
   * retired: the window's earlier generation was deleted and this one was created in its place ({@link
   * PublishReport#retired()} says when and by what). A complete publish, not an error; told apart from
   * CREATED so that a late or replayed job that recreates removed history is seen.
   */
  REPUBLISHED,
  /** Another replica published the same bytes first; this replica's write was a no-op. */
  IDENTICAL,
  /** Another replica published different bytes first; they stay, this attempt is kept as evidence. */
  DIVERGENT
}
