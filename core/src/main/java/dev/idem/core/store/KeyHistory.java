package dev.idem.core.store;

import java.util.List;
import java.util.Objects;

/** Everything a store's history holds for one key, as handed to the divergence scan. */
public record KeyHistory(String key, List<HistoryEntry> entries) {
  public KeyHistory {
    Objects.requireNonNull(key, "key");
    entries = List.copyOf(entries);
  }

  /**
   * Whether the key's last life holds a stored version: the history has a {@link HistoryEntry.Kind#VERSION}
   * after its last delete marker. False for a key retention deleted (a delete marker last; or, where
   * deletes leave no marker, only the recorded attempts it kept as evidence).
   */
  public boolean holdsObject() {
    for (int i = entries.size() - 1; i >= 0; i--) {
      HistoryEntry.Kind k = entries.get(i).kind();
      if (k == HistoryEntry.Kind.VERSION) {
        return true;
      }
      if (k == HistoryEntry.Kind.DELETE_MARKER) {
        return false;
      }
    }
    return false;
  }

  /**
   * The schema version the key's entries record, or {@code null} when none records one, or when they
   * disagree. A key is derived from its schema (K2), so every idem publish of one key records the same
   * schema; entries that disagree were not all written by idem, and none of them is believed.
   */
  public Integer schema() {
    Integer found = null;
    for (HistoryEntry e : entries) {
      if (e.schema() != null) {
        if (found != null && !found.equals(e.schema())) {
          return null;
        }
        found = e.schema();
      }
    }
    return found;
  }
}
