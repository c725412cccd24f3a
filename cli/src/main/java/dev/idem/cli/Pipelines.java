package dev.idem.cli;

import dev.idem.core.store.ObjectStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;

/**
 * "Did you mean …?" for a pipeline that a store does not hold: the one hint that turns "no pointer for
 * pipeline border-stat" into the typo it is. Asked only on the failure path, so a command that finds
 * its pipeline pays nothing for it.
 */
final class Pipelines {
  /** How many of a store's pipelines a hint names when none is close to the one asked for. */
  private static final int LISTED = 5;

  private Pipelines() {}

  /**
   * A clause to append to a not-found message about {@code pipelineOrKey} (a pipeline, or a key whose
   * first segment is one): the closest pipelines the store holds, else the first few it holds, else that
   * it holds none. Empty when the store holds that pipeline, or its pipelines cannot be listed (the
   * hint never replaces the failure it explains).
   */
  static String didYouMean(ObjectStore st, String pipelineOrKey) {
    int slash = pipelineOrKey.indexOf('/');
    String pipeline = slash < 0 ? pipelineOrKey : pipelineOrKey.substring(0, slash);
    SortedSet<String> held;
    try {
      held = st.pipelines();
    } catch (IOException | RuntimeException e) {
      return "";
    }
    if (held.contains(pipeline)) {
      return "";
    }
    List<String> close = Suggestions.closest(pipeline, held);
    if (!close.isEmpty()) {
      return "; did you mean " + String.join(" or ", close) + "?";
    }
    if (held.isEmpty()) {
      return "; the store holds no pipeline";
    }
    List<String> first = new ArrayList<>(held).subList(0, Math.min(LISTED, held.size()));
    return "; its pipelines: " + String.join(", ", first) + (held.size() > LISTED ? ", ... ('idem pipelines' lists "
        + held.size() + ")" : "");
  }
}
