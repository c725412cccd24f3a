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
