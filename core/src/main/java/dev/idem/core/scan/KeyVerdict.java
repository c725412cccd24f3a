package dev.idem.core.scan;

import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.KeyHistory;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The scan's judgement of one key.
 *
 * @param key the key
 * @param writes content entries seen: stored versions plus recorded publish attempts (delete markers
 *     are not content and do not count)
 * @param payloads distinct contents among them
 * @param basis what contents were compared by
 * @param divergentAttempts publish attempts idem recorded as DIVERGENT for this key
 * @param entries the history the verdict was made from
 */
public record KeyVerdict(String key, int writes, int payloads, Basis basis, int divergentAttempts, List<HistoryEntry> entries) {

  /**
   * A key is divergent when its history holds more than one distinct content, or any recorded DIVERGENT
   * attempt: such an attempt met different bytes when it was made, so it stays evidence after the
   * object it met is gone (retention, an unversioned bucket) and the history shows only the attempt.
   */
  public boolean divergent() {
    return payloads > 1 || divergentAttempts > 0;
  }

  /** Written more than once, all with one content and no divergent attempt: benign, counted but not flagged. */
  public boolean benignDuplicate() {
    return writes > 1 && payloads == 1 && divergentAttempts == 0;
  }

  /** Judges one key's history. */
  public static KeyVerdict of(KeyHistory history) {
    Set<String> contents = new LinkedHashSet<>();
    int writes = 0;
    int divergentAttempts = 0;
    boolean sawSha = false;
    boolean sawEtagOnly = false;
    for (HistoryEntry e : history.entries()) {
      if (!e.isContent()) {
        continue;
      }
      writes++;
      if (e.kind() == HistoryEntry.Kind.DIVERGENT_ATTEMPT) {
        divergentAttempts++;
      }
      if (e.sha256() != null) {
        sawSha = true;
        contents.add("sha256:" + e.sha256());
      } else if (e.etag() != null) {
        sawEtagOnly = true;
        contents.add("etag:" + e.etag());
      } else {
        sawEtagOnly = true;
        contents.add("unknown:" + e.versionId() + ":" + e.size());
      }
    }
    Basis basis = sawSha && sawEtagOnly ? Basis.MIXED : sawSha ? Basis.SHA256 : Basis.ETAG;
    return new KeyVerdict(history.key(), writes, contents.size(), basis, divergentAttempts, history.entries());
  }

  /** The reference script's line, kept byte for byte so existing deploy gates keep working. */
  public String referenceLine() {
    return "DIVERGENT " + key + " writes=" + writes + " payloads=" + payloads;
  }
}
