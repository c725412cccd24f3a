package dev.idem.store.s3;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.store.s3.internal.client.ObjectSummary;
import dev.idem.store.s3.internal.client.ObjectsPage;
import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.internal.client.S3Client.Condition;
import dev.idem.store.s3.internal.client.S3Client.ObjectBytes;
import dev.idem.store.s3.internal.client.WriteResult;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;

/**
 * The pointer as an append-only log of create-only entries ({@link PointerMode#LOG}), for servers whose
 * {@code If-Match} is not atomic but whose {@code If-None-Match: *} is.
 *
 * <h2>Protocol</h2>
 *
 * <ul>
 *   <li>Entries are {@code _idem/pointers/PIPELINE/log/SEQ} (SEQ zero-padded to 20 digits, so the
 *       listing order is the numeric order), each holding one whole pointer document, never
 *       overwritten.
 *   <li>Read: the entry with the highest SEQ; the token is SEQ. Finding it: one ListObjectsV2 that
 *       starts just before the last SEQ this process saw (or at the start of the log), which returns the
 *       known entry and anything newer; if the page is full, a galloping then binary search with HEAD
 *       over the dense range above it; then a GET of the newest entry. An empty log with a {@code latest}
 *       object (a pipeline that ran in CAS mode before) reads as that object with token {@code 0}.
 *   <li>Compare-and-swap from token {@code n} ({@code null} means 0): create entry {@code n+1} with
 *       {@code If-None-Match: *}. 412: CONFLICT. 409 after retries (or at the caller's deadline): BUSY.
 *       Under a deadline ({@link S3Client#within}) every request of the swap below, the copy included,
 *       ends by it; a deadline that runs out on anything else throws {@link
 *       dev.idem.core.store.DeadlineExceededException} (an entry may then have been created; the
 *       log stays a chain, see the failure states). Created: list the log from
 *       {@code n+1}; if the entry above it was written before it, CONFLICT (see below) and nothing more
 *       is written. Else
 *       SWAPPED, then copy the document to {@code latest} in log order: the copy carries the number of
 *       the entry it was copied from ({@value #COPIED_FROM} metadata); read it, leave it when it came
 *       from this entry or a later one, else replace it conditionally ({@code If-Match} on the ETag
 *       read, {@code If-None-Match: *} when there is none; best effort, for readers that are not idem).
 * </ul>
 *
 * <h2>The copy follows rewinds</h2>
 *
 * The log's order is the pointer's history, an operator's rewind ({@code idem pointer rewind}, a
 * recorded compare-and-swap like any other) included, so a copy ordered by entry number follows a
 * rewind back to an earlier generation, and a forward writer whose entry came before the rewind but
 * whose copy lands after it leaves the rewind's copy in place: its entry number is lower. (Ordered by
 * position, as pointer documents are, the copy would never move back, and plain readers would keep the
 * generation the operator rewound away from.) A copy without an entry number (written in {@code cas}
 * mode or by an earlier release) is replaced by a later position, or by the entry that writes a rewind
 * it does not carry yet.
 *
 * <h2>Why no update is lost (G3) with create-only writes</h2>
 *
 * Entry {@code n+1} can be created once only, and only by a writer whose token was {@code n}, that is,
 * who read entry {@code n} as the newest. So the entries form a single chain in which every entry was
 * decided on the value of its predecessor: two writers racing from the same {@code n} cannot both
 * succeed (the server's atomic create-only check lets exactly one through), and a writer holding a
 * stale {@code n} meets an existing {@code n+1} and gets CONFLICT, re-reads and decides again. With
 * {@link dev.idem.core.publish.PointerAdvancer}'s ordering check on the value read, the chain is also
 * monotonic (G2). A stale or racing read can only cause a CONFLICT, never a lost update, since safety
 * rests on the create, not on the read.
 *
 * <h2>A writer that stalls past the sweep's grace</h2>
 *
 * {@code sweep} deletes entries older than its grace period except the newest few per pipeline, so a
 * writer that read entry {@code n} and then stalled (a paused VM, a long GC) may find {@code n+1} swept
 * and create it again, below newer entries. Readers never see such an entry (they read the highest), and
 * the check after the create catches it: the newest entry is never swept, so such a create always has
 * an entry above it that the server stamped earlier. The call then returns CONFLICT without touching
 * {@code latest} (nothing visible was written), and the caller re-reads and decides on the real head
 * (for {@link dev.idem.core.publish.PointerAdvancer}: NEWER_PRESENT, or a new attempt). The stray entry
 * is removed by a later sweep like any superseded one. An entry above that was stamped at the same time
 * or later was written by someone who read this one, which was then the head: SWAPPED. (Only a refill
 * within the server's timestamp resolution of the newer entries is taken for SWAPPED; the forward-only
 * copy still keeps {@code latest} from moving back.)
 *
 * <h2>Failure states</h2>
 *
 * Entries are written whole by one PutObject (P1); a writer killed after creating an entry but before
 * copying {@code latest} leaves the log correct and {@code latest} one step behind until the next
 * advance. The copy only moves forward in log order; on a server whose {@code If-Match} is not atomic
 * (the reason for this mode) two copies racing within one request time can still land out of order,
 * leaving {@code latest} one step behind until the next advance. idem's readers never read it in this
 * mode.
 */
final class LogPointers implements PointerProtocol {
  private static final System.Logger LOG = System.getLogger(LogPointers.class.getName());
  /** The user metadata on the plain copy that names the log entry it was copied from. */
  static final String COPIED_FROM = "idem-log-seq";

  /** The newest entry of a pipeline as this process last saw it; entries never change, so this stays true of that entry. */
  private record Head(long seq, Pointer pointer) {}

  private final S3Client client;
  private final String bucket;
  private final KeyLayout layout;
  private final int pageSize;
  private final Cache<String, Head> heads = Caffeine.newBuilder().maximumSize(1024).executor(Runnable::run).build();

  LogPointers(S3Client client, String bucket, KeyLayout layout, int pageSize) {
    this.client = client;
    this.bucket = bucket;
    this.layout = layout;
    this.pageSize = pageSize;
  }

  @Override
  public Optional<PointerState> read(String pipeline) throws IOException {
    Head head = newest(pipeline);
    if (head != null) {
      return Optional.of(new PointerState(head.pointer, Long.toString(head.seq)));
    }
    String latest = layout.latest(pipeline);
    Optional<ObjectBytes> copy = client.getBytes(bucket, latest, MAX_DOCUMENT);
    if (copy.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new PointerState(Pointer.parse(copy.get().bytes(), source(latest), pipeline), "0"));
  }

  @Override
  public CasResult compareAndSet(S3Client via, String pipeline, String expectedToken, Pointer next) throws IOException {
    long expected = expectedToken == null ? 0 : parseToken(expectedToken);
    long seq = expected + 1;
    String entry = layout.logEntry(pipeline, seq);
    byte[] doc = next.toBytes();
    WriteResult w;
    try {
      w = via.put(bucket, entry, RequestBody.ofBytes(doc), Condition.ifNoneMatch(), Map.of());
    } catch (IOException e) {
      if (PointerProtocol.conditionalConflict(e)) {
        return CasResult.BUSY;
      }
      throw e;
    }
    boolean mine = w.status() == WriteResult.Status.WRITTEN;
    if (!mine && w.attempts() > 1) {
      Optional<ObjectBytes> now = via.getBytes(bucket, entry, MAX_DOCUMENT);
      mine = now.isPresent() && Arrays.equals(now.get().bytes(), doc);
    }
    if (!mine) {
      return CasResult.CONFLICT;
    }
    if (createdBelowOlderEntry(via, pipeline, seq)) {
      heads.invalidate(pipeline);
      return CasResult.CONFLICT;
    }
    heads.put(pipeline, new Head(seq, next));
    copyForward(via, pipeline, seq, next, doc);
    return CasResult.SWAPPED;
  }

  /**
   * Whether entry {@code seq}, just created, lies below an entry the server wrote before it: a swept
   * entry refilled by a stalled writer, never the head. (An entry above written after it was written by
   * someone who read it as the head.)
   */
  private boolean createdBelowOlderEntry(S3Client via, String pipeline, long seq) throws IOException {
    String logPrefix = layout.logPrefix(pipeline);
    String from = seq == 1 ? null : layout.logEntry(pipeline, seq - 1);
    ObjectsPage page = via.listObjects(bucket, logPrefix, from, null, 2);
    ObjectSummary mine = null;
    ObjectSummary above = null;
    for (ObjectSummary o : page.objects()) {
      long s = KeyLayout.parseSeq(o.key(), logPrefix);
      if (s == seq) {
        mine = o;
      } else if (s > seq && above == null) {
        above = o;
      }
    }
    return mine != null && above != null && above.lastModified().isBefore(mine.lastModified());
  }

  /**
   * Replaces the plain {@code latest} copy with {@code next}, the document of entry {@code seq}, only if
   * the copy was made from an earlier entry; best effort.
   */
  private void copyForward(S3Client via, String pipeline, long seq, Pointer next, byte[] doc) {
    String latest = layout.latest(pipeline);
    try {
      Optional<ObjectBytes> current = via.getBytes(bucket, latest, MAX_DOCUMENT);
      Condition condition = Condition.ifNoneMatch();
      if (current.isPresent()) {
        String etag = current.get().head().etag();
        if (etag == null || !copiedBefore(current.get(), latest, seq, next)) {
          return;
        }
        condition = Condition.ifMatch(etag);
      }
      WriteResult w = via.put(bucket, latest, RequestBody.ofBytes(doc), condition,
          Map.of(COPIED_FROM, Long.toString(seq)));
      if (w.status() != WriteResult.Status.WRITTEN) {
        // Another advance replaced the copy since it was read; the log is the truth and the next advance
        // brings the copy forward if that one was behind.
        LOG.log(System.Logger.Level.DEBUG, "copy at " + source(latest) + " changed while being brought forward");
      }
    } catch (IOException e) {
      // The log is the truth; the copy only serves plain readers and catches up on the next advance.
      LOG.log(System.Logger.Level.WARNING, "pointer advanced but the copy at " + source(latest)
          + " could not be updated: " + e.getMessage());
    }
  }

  /**
   * Whether {@code copy} comes from an entry before {@code seq}, whose document is {@code next}. A copy
   * that does not say which entry it came from (written in {@code cas} mode, by an earlier release, or
   * by hand) is judged by its document: malformed, behind {@code next}'s position, or not yet carrying
   * the rewind that {@code next} records (a rewind is written once, in its own entry; later entries only
   * carry it on) is replaced.
   */
  private boolean copiedBefore(ObjectBytes copy, String latest, long seq, Pointer next) {
    long from = parseSeq(copy.head().meta(COPIED_FROM));
    if (from >= 0) {
      return from < seq;
    }
    try {
      Pointer p = Pointer.parse(copy.bytes(), source(latest), next.pipeline());
      boolean rewind = next.rewind() != null && next.rewind().to().equals(next.key());
      return p.position().compareTo(next.position()) < 0 || (rewind && !next.rewind().equals(p.rewind()));
    } catch (Pointer.MalformedPointerException e) {
      return true;
    }
  }

  /** A sequence number as written in {@link #COPIED_FROM}, or -1 for anything else. */
  private static long parseSeq(String s) {
    if (s == null || s.isEmpty() || s.length() > 19 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return -1;
    }
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The newest entry, or {@code null} when the log is empty. */
  private Head newest(String pipeline) throws IOException {
    for (int tries = 1; ; tries++) {
      Head known = heads.getIfPresent(pipeline);
      String logPrefix = layout.logPrefix(pipeline);
      String startAfter = known == null || known.seq <= 1 ? null : layout.logEntry(pipeline, known.seq - 1);
      long last = -1;
      ObjectsPage page;
      String token = null;
      ListingGuard<String> guard = new ListingGuard<>("ListObjectsV2 of " + source(logPrefix));
      do {
        page = client.listObjects(bucket, logPrefix, token == null ? startAfter : null, token, pageSize);
        for (ObjectSummary o : page.objects()) {
          last = Math.max(last, KeyLayout.parseSeq(o.key(), logPrefix));
        }
        token = guard.next(page.nextContinuationToken());
      } while (last < 0 && page.truncated());
      if (last < 0) {
        heads.invalidate(pipeline);
        return null;
      }
      if (page.truncated()) {
        last = gallop(pipeline, last);
      }
      if (known != null && known.seq == last) {
        return known;
      }
      Optional<ObjectBytes> got = client.getBytes(bucket, layout.logEntry(pipeline, last), MAX_DOCUMENT);
      if (got.isPresent()) {
        Head head = new Head(last, Pointer.parse(got.get().bytes(), source(layout.logEntry(pipeline, last)), pipeline));
        heads.put(pipeline, head);
        return head;
      }
      // The entry was swept between the listing and the GET: it was not the newest after all.
      heads.invalidate(pipeline);
      if (tries == 3) {
        throw new IOException("pointer log " + source(logPrefix) + " keeps changing under the reader");
      }
    }
  }

  /**
   * From an entry known to exist, finds the highest existing one above it (entries are dense). Doubling
   * steps reach any sequence number in at most 63 HEADs, so a server that says every entry exists ends
   * in an error, not a loop.
   */
  private long gallop(String pipeline, long exists) throws IOException {
    long lo = exists;
    long step = 1;
    while (client.head(bucket, layout.logEntry(pipeline, lo + step), null).isPresent()) {
      lo += step;
      if (step > (Long.MAX_VALUE - 1 - lo) / 2) {
        throw new IOException("pointer log " + source(layout.logPrefix(pipeline))
            + " claims an entry at every sequence number up to " + lo + "; the server's HEAD replies are not believable");
      }
      step *= 2;
    }
    long hi = lo + step;
    while (hi - lo > 1) {
      long mid = lo + (hi - lo) / 2;
      if (client.head(bucket, layout.logEntry(pipeline, mid), null).isPresent()) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static long parseToken(String token) {
    try {
      long n = Long.parseLong(token);
      if (n >= 0 && n < Long.MAX_VALUE) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("a log-mode pointer token is a sequence number, was \"" + token
        + "\" (a token read in CAS mode cannot be used in LOG mode)");
  }

  private String source(String key) {
    return "s3://" + bucket + "/" + key;
  }
}
