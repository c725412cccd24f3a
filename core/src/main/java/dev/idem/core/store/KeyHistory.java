package dev.idem.core.store;

import java.util.List;
import java.util.Objects;

/** Everything a store's history holds for one key, as handed to the divergence scan. */
public record KeyHistory(String key, List<HistoryEntry> entries) {
  public KeyHistory {
    Objects.requireNonNull(key, "key");
    entries = List.copyOf(entries);
  }
}
