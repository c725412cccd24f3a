package dev.idem.store.fs;

import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.ObjectStore.HistoryVisitor;
import dev.idem.core.store.PutStatus;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The history {@link FsObjectStore#history} streams: {@link KeyWalker} merges the object tree with the
 * ledger tree in key order, and this turns each key's ledger lines into entries, adding a VERSION for an
 * object no ledger line vouches for ({@link StoredObjects#vouching}) and whose hash no CREATED line
 * records. Entries are sorted by time, oldest first; a key with none is not visited.
 */
final class LedgerHistory {
  private LedgerHistory() {}

  /** Visits the history of each key under {@code prefix}; {@code false} when the visitor stopped. */
  static boolean walk(Layout layout, StorePaths paths, String prefix, HistoryVisitor visitor) throws IOException {
    return KeyWalker.walk(paths, layout.ledgerRoot(), prefix, (key, object, hasLedger) -> {
      List<Ledger.Line> lines = hasLedger ? Ledger.read(paths, layout.ledgerFile(key)) : List.of();
      List<HistoryEntry> entries = new ArrayList<>(lines.size() + 1);
      for (Ledger.Line l : lines) {
        entries.add(new HistoryEntry(key, kindOf(l.status()), null, l.time(), l.size(), l.sha256(), null, l.writer()));
      }
      if (object != null && StoredObjects.vouching(lines, object) == null) {
        StoredObjects.Hashed h = StoredObjects.hash(paths, layout.root().resolve(key));
        if (h != null && lines.stream()
            .noneMatch(l -> l.status() == PutStatus.CREATED && l.sha256().equals(h.sha256()))) {
          entries.add(new HistoryEntry(key, HistoryEntry.Kind.VERSION, null,
              object.lastModifiedTime().toInstant(), h.size(), h.sha256(), null, null));
        }
      }
      if (entries.isEmpty()) {
        return true;
      }
      entries.sort(Comparator.comparing(HistoryEntry::time, Comparator.nullsLast(Comparator.naturalOrder())));
      return visitor.visit(new KeyHistory(key, entries));
    });
  }

  private static HistoryEntry.Kind kindOf(PutStatus status) {
    return switch (status) {
      case CREATED -> HistoryEntry.Kind.VERSION;
      case IDENTICAL -> HistoryEntry.Kind.IDENTICAL_ATTEMPT;
      case DIVERGENT -> HistoryEntry.Kind.DIVERGENT_ATTEMPT;
    };
  }
}
