package dev.idem.core.scan;

import dev.idem.core.OutputKey;
import dev.idem.core.store.Acknowledgement;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.Retirement;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The scan's judgement of one key.
 *
 * <p>A key's history is cut into <em>lives</em>: a delete marker ends one (retention deleted the
 * object, and what follows was published again); so does the retirement mark of the key's pipeline
 * ({@link Retirement}) for entries without a store version id (the filesystem store, an unversioned
 * bucket), where gc leaves no marker: in a window the mark covers, content written at or before
 * {@link Retirement#retiredAt()} and a stored version written after it are two lives (a publish attempt
 * after the mark met the old object, and stays in its life). Contents are compared
 * within one life only: a window published again with other bytes after gc removed it is
 * {@link #republished()}, not divergent. A real divergence inside one life still is.
 *
 * @param key the key
 * @param writes content entries seen: stored versions plus recorded publish attempts (delete markers
 *     are not content and do not count), plus the stored object a recorded divergent attempt met when the
 *     history no longer holds a version of it (retention deleted it; see {@link #of(KeyHistory, Retirement)})
 * @param payloads distinct contents among them, over all lives (such a met object included)
 * @param basis what contents were compared by
 * @param divergentAttempts publish attempts idem recorded as DIVERGENT for this key
 * @param entries the history the verdict was made from
 * @param lives lives holding content (see the class comment)
 * @param divergentLives lives holding more than one distinct content
 * @param reborn the key lies in its pipeline's retired range and all of its content was written after
 *     that retirement: gc removed the window and this is it published again (on the filesystem store gc
 *     removes the old records, so the history shows only the new life)
 */
public record KeyVerdict(String key, int writes, int payloads, Basis basis, int divergentAttempts,
    List<HistoryEntry> entries, int lives, int divergentLives, boolean reborn) {

  /** The verdict without lives (one life, not reborn): how verdicts were made before lives existed. */
  public KeyVerdict(String key, int writes, int payloads, Basis basis, int divergentAttempts, List<HistoryEntry> entries) {
    this(key, writes, payloads, basis, divergentAttempts, entries, writes > 0 ? 1 : 0, payloads > 1 ? 1 : 0, false);
  }

  /**
   * A key is divergent when one of its lives holds more than one distinct content, or when it has any
   * recorded DIVERGENT attempt: such an attempt met different bytes when it was made, so it stays
   * evidence after the object it met is gone (retention, an unversioned bucket) and the history shows
   * only the attempt.
   */
  public boolean divergent() {
    return divergentLives > 0 || divergentAttempts > 0;
  }

  /**
   * Published again after retention removed it, and not divergent: more than one life holds content,
   * or the only life began after the pipeline's retirement covered the window. Reported, counted, not a
   * failure: each life holds one complete generation.
   */
  public boolean republished() {
    return !divergent() && (lives > 1 || reborn);
  }

  /**
   * Written more than once, all with one content and no divergent attempt, and not republished: benign,
   * counted but not flagged.
   */
  public boolean benignDuplicate() {
    return writes > 1 && payloads == 1 && divergentAttempts == 0 && !republished();
  }

  /** Judges one key's history, with no retirement mark (lives split at delete markers only). */
  public static KeyVerdict of(KeyHistory history) {
    return of(history, null);
  }

  /**
   * Judges one key's history; {@code retired} is the retirement mark of the key's pipeline, or {@code
   * null} when there is none (or the key is not an idem key).
   */
  public static KeyVerdict of(KeyHistory history, Retirement retired) {
    // Judged for every listed key of a scan: nothing here is done per entry that can be done per key.
    Retirement mark = retired != null && OutputKey.looksLikeKey(history.key())
        && retired.covers(OutputKey.parse(history.key()).windowStartEpochSecond())
        && history.key().startsWith(retired.pipeline() + "/") ? retired : null;
    Set<Content> contents = new HashSet<>();
    Set<Content> life = new HashSet<>();
    int lives = 0;
    int divergentLives = 0;
    int writes = 0;
    int divergentAttempts = 0;
    boolean sawSha = false;
    boolean sawEtagOnly = false;
    boolean lifeBeforeMark = false; // the current life holds content written at or before the mark
    boolean allAfterMark = mark != null;
    for (HistoryEntry e : history.entries()) {
      if (!e.isContent()) {
        lives += life.isEmpty() ? 0 : 1;
        divergentLives += life.size() > 1 ? 1 : 0;
        life.clear();
        lifeBeforeMark = false;
        continue;
      }
      if (mark != null && unversioned(e) && e.time() != null) {
        if (!e.time().isAfter(mark.retiredAt())) {
          lifeBeforeMark = true;
        } else if (lifeBeforeMark && e.kind() == HistoryEntry.Kind.VERSION) {
          // A new object after the mark: the old one was deleted. (An attempt after the mark met the old one.)
          lives += life.isEmpty() ? 0 : 1;
          divergentLives += life.size() > 1 ? 1 : 0;
          life.clear();
          lifeBeforeMark = false;
        }
      }
      if (mark != null && (e.time() == null || !e.time().isAfter(mark.retiredAt()))) {
        allAfterMark = false;
      }
      writes++;
      if (e.kind() == HistoryEntry.Kind.DIVERGENT_ATTEMPT) {
        divergentAttempts++;
      }
      Content content = Content.of(e);
      sawSha |= content.kind == Content.SHA256;
      sawEtagOnly |= content.kind != Content.SHA256;
      contents.add(content);
      life.add(content);
    }
    lives += life.isEmpty() ? 0 : 1;
    divergentLives += life.size() > 1 ? 1 : 0;
    if (divergentAttempts > 0) {
      writes += addMetObjects(history.entries(), contents); // by SHA-256, as the attempts themselves are
    }
    Basis basis = sawSha && sawEtagOnly ? Basis.MIXED : sawSha ? Basis.SHA256 : Basis.ETAG;
    return new KeyVerdict(history.key(), writes, contents.size(), basis, divergentAttempts, history.entries(),
        lives, divergentLives, allAfterMark && writes > 0);
  }

  /**
   * Adds to {@code contents} the stored objects that recorded divergent attempts met and the history no
   * longer holds a version of, and returns how many: each was written once, with other bytes than the
   * attempt, so a key known only from its divergence markers and evidence reads {@code writes=2
   * payloads=2}, not {@code writes=1 payloads=1}. A marker names the object it met ({@link
   * HistoryEntry#metSha256()}); one that does not (evidence without a marker) counts one unknown object,
   * and only when the history holds no version at all. A met object is never added when a version of
   * unknown hash could be it.
   */
  private static int addMetObjects(List<HistoryEntry> entries, Set<Content> contents) {
    Set<String> versions = new HashSet<>();
    boolean anyVersion = false;
    boolean unhashedVersion = false;
    for (HistoryEntry e : entries) {
      if (e.kind() == HistoryEntry.Kind.VERSION) {
        anyVersion = true;
        if (e.sha256() != null) {
          versions.add(e.sha256());
        } else {
          unhashedVersion = true;
        }
      }
    }
    Set<String> met = new HashSet<>();
    boolean metUnnamed = false;
    for (HistoryEntry e : entries) {
      if (e.kind() != HistoryEntry.Kind.DIVERGENT_ATTEMPT) {
        continue;
      }
      if (e.metSha256() == null) {
        metUnnamed |= !anyVersion;
      } else if (!unhashedVersion && !versions.contains(e.metSha256())) {
        met.add(e.metSha256());
      }
    }
    for (String m : met) {
      contents.add(new Content(Content.SHA256, m, -1));
    }
    if (met.isEmpty() && metUnnamed) {
      contents.add(new Content(Content.MET_UNNAMED, null, -1));
      return 1;
    }
    return met.size();
  }

  /**
   * The distinct contents of the key's history, over all lives, as an {@link Acknowledgement} names
   * them: {@code sha256:<hex>} where idem recorded one, else {@code etag:<etag>}, else {@code
   * version:<id>:<size>}, and the stored objects recorded divergent attempts met that the history no
   * longer holds (as {@link #payloads()} counts them; {@code met-object} for one no marker names).
   */
  public SortedSet<String> contentIds() {
    Set<Content> contents = new HashSet<>();
    for (HistoryEntry e : entries) {
      if (e.isContent()) {
        contents.add(Content.of(e));
      }
    }
    addMetObjects(entries, contents);
    SortedSet<String> ids = new TreeSet<>();
    for (Content c : contents) {
      ids.add(c.id());
    }
    return ids;
  }

  /**
   * Whether {@code ack} still covers this key: every content its history holds now was known to the
   * acknowledgement, and no divergent attempt was recorded since ({@link Acknowledgement#covers}).
   */
  public boolean acknowledgedBy(Acknowledgement ack) {
    return ack.key().equals(key) && ack.covers(contentIds(), divergentAttempts);
  }

  /**
   * What one entry's content is known by: its SHA-256, else its ETag, else (neither known) its version
   * id and size. Contents of different kinds never compare equal, whatever their strings. A class with
   * its own equals and hashCode, not a record: a record's go through method handles, which the
   * distribution's C1-only JIT leaves slow (they showed in a scan's profile).
   */
  private static final class Content {
    static final int SHA256 = 0;
    static final int ETAG = 1;
    static final int UNKNOWN = 2;
    /** The object divergent attempts met, named by no marker: unlike every other content. */
    static final int MET_UNNAMED = 3;

    private final int kind;
    private final String id;
    private final long size;

    Content(int kind, String id, long size) {
      this.kind = kind;
      this.id = id;
      this.size = size;
    }

    /** The content of a content entry: by its SHA-256, else its ETag, else its version id and size. */
    static Content of(HistoryEntry e) {
      if (e.sha256() != null) {
        return new Content(SHA256, e.sha256(), -1);
      }
      if (e.etag() != null) {
        return new Content(ETAG, e.etag(), -1);
      }
      return new Content(UNKNOWN, e.versionId(), e.size());
    }

    /** The name an {@link Acknowledgement} records this content by. */
    String id() {
      return switch (kind) {
        case SHA256 -> "sha256:" + id;
        case ETAG -> "etag:" + id;
        case UNKNOWN -> "version:" + id + ":" + size;
        default -> "met-object";
      };
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Content c && c.kind == kind && c.size == size && Objects.equals(c.id, id);
    }

    @Override
    public int hashCode() {
      // The id alone: two contents of one key that share it (a version id of two sizes, an ETag equal to
      // a SHA-256) are too rare to be worth hashing the rest.
      return Objects.hashCode(id);
    }
  }

  /** An entry without a store version id: gc's delete leaves no marker in such a history. */
  private static boolean unversioned(HistoryEntry e) {
    return e.versionId() == null || e.versionId().equals("null");
  }

  /** The reference script's line, kept byte for byte so existing deploy gates keep working. */
  public String referenceLine() {
    return "DIVERGENT " + key + " writes=" + writes + " payloads=" + payloads;
  }

  /** The line the scan prints for a republished key. */
  public String republishedLine() {
    return "REPUBLISHED " + key + " lives=" + lives + " payloads=" + payloads;
  }
}
