package dev.idem.store.fs;

import dev.idem.core.Sha256;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.HistoryQuery;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.PublishHistory.HistoryVisitor;
import dev.idem.core.store.PutStatus;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The history {@link FsObjectStore#history} streams: {@link KeyWalker} merges the object tree with the
 * record and evidence trees in key order, and this turns each key's records into entries. Two more
 * sources make sure nothing the store holds is missed:
 *
 * <ul>
 *   <li>an object no CREATED record vouches for ({@link StoredObjects#vouching}) and whose hash no
 *       CREATED record holds adds a VERSION with its hashed SHA-256 (a legacy writer, or a lost record);
 *   <li>evidence bytes whose hash no DIVERGENT record holds add a DIVERGENT_ATTEMPT (written by an
 *       earlier version, which kept the bytes before the record): evidence
 *       on disk always makes its key divergent (S3).
 * </ul>
 *
 * A DIVERGENT record is a divergent attempt whether or not its bytes were kept (P8: the record comes
 * first), and it names the object the attempt met ({@link HistoryEntry#metSha256()}).
 *
 * Entries are sorted by time, oldest first; a key with none is not visited.
 */
final class RecordHistory {
  private RecordHistory() {}

  /**
   * Visits the history of each key {@code query} accepts, entering only the directories that can hold
   * one; {@code false} when the visitor or the query's deadline (checked for every key listed) stopped it.
   */
  static boolean walk(Layout layout, ContainedFs fs, HistoryQuery query, HistoryVisitor visitor)
      throws IOException {
    return KeyWalker.walk(fs, layout, query.prefix(), query::mayHoldKeysUnder, (key, found) -> {
      if (query.expired()) {
        return false;
      }
      if (!query.accepts(key)) {
        return true; // outside the query: no record read, nothing hashed
      }
      List<RecordLine> lines = Records.read(fs, found.records);
      List<HistoryEntry> entries = new ArrayList<>(lines.size() + 1);
      for (RecordLine l : lines) {
        entries.add(new HistoryEntry(key, kindOf(l.status()), null, l.time(), l.size(), l.sha256(), null, l.writer(),
            l.schema(), l.metSha256()));
      }
      if (found.object != null && StoredObjects.vouching(lines, found.object) == null) {
        StoredObjects.Hashed h = StoredObjects.hash(fs, layout.root().resolve(key));
        if (h != null && lines.stream()
            .noneMatch(l -> l.status() == PutStatus.CREATED && l.sha256().equals(h.sha256()))) {
          entries.add(new HistoryEntry(key, HistoryEntry.Kind.VERSION, null,
              found.object.lastModifiedTime().toInstant(), h.size(), h.sha256(), null, null, null));
        }
      }
      if (found.evidence) {
        addUnrecordedEvidence(fs, layout.evidenceDir(key), key, lines, entries);
      }
      if (entries.isEmpty()) {
        return true;
      }
      entries.sort(Comparator.comparing(HistoryEntry::time, Comparator.nullsLast(Comparator.naturalOrder())));
      return visitor.visit(new KeyHistory(key, entries));
    });
  }

  private static void addUnrecordedEvidence(ContainedFs fs, Path dir, String key, List<RecordLine> lines,
      List<HistoryEntry> entries) throws IOException {
    Set<String> recorded = new HashSet<>();
    for (RecordLine l : lines) {
      if (l.status() == PutStatus.DIVERGENT) {
        recorded.add(l.sha256());
      }
    }
    DirectoryStream<Path> listing = fs.list(dir);
    if (listing == null) {
      return;
    }
    try (DirectoryStream<Path> files = listing) {
      for (Path f : files) {
        String sha = f.getFileName().toString();
        BasicFileAttributes a = Sha256.isHex(sha) && !recorded.contains(sha) ? fs.entry(f) : null;
        if (a != null && a.isRegularFile()) {
          entries.add(new HistoryEntry(key, HistoryEntry.Kind.DIVERGENT_ATTEMPT, null,
              a.lastModifiedTime().toInstant(), a.size(), sha, null, null, null));
        }
      }
    }
  }

  private static HistoryEntry.Kind kindOf(PutStatus status) {
    return switch (status) {
      case CREATED -> HistoryEntry.Kind.VERSION;
      case IDENTICAL -> HistoryEntry.Kind.IDENTICAL_ATTEMPT;
      case DIVERGENT -> HistoryEntry.Kind.DIVERGENT_ATTEMPT;
    };
  }
}
