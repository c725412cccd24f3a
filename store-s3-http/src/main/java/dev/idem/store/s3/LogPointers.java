package dev.idem.store.s3;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.store.s3.client.ObjectSummary;
import dev.idem.store.s3.client.ObjectsPage;
import dev.idem.store.s3.client.RequestBody;
import dev.idem.store.s3.client.S3Client;
import dev.idem.store.s3.client.S3Client.Condition;
import dev.idem.store.s3.client.S3Client.ObjectBytes;
import dev.idem.store.s3.client.S3Exception;
import dev.idem.store.s3.client.WriteResult;
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
 *       {@code If-None-Match: *}. Created: SWAPPED, then copy the document to {@code latest} with a plain
 *       PUT (best effort, for readers that are not idem). 412: CONFLICT. 409 after retries: BUSY.
 * </ul>
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
 * <h2>Failure states</h2>
 *
 * Entries are written whole by one PutObject (P1); a writer killed after creating an entry but before
 * copying {@code latest} leaves the log correct and {@code latest} one step behind until the next
 * advance. {@code latest} may briefly lag or even step back when two advances copy it out of order;
 * idem readers never read it in this mode. {@code sweep} deletes entries older than its grace period
 * except the newest few per pipeline; the protocol assumes no writer holds a token across that grace
 * period (a writer whose token is older than every kept entry could otherwise re-create a swept entry,
 * which readers would never see but which that writer would count as SWAPPED).
 */
final class LogPointers implements PointerProtocol {
  private static final System.Logger LOG = System.getLogger(LogPointers.class.getName());

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
    return Optional.of(new PointerState(Pointer.parse(copy.get().bytes(), source(latest)), "0"));
  }

  @Override
  public CasResult compareAndSet(String pipeline, String expectedToken, Pointer next) throws IOException {
    long expected = expectedToken == null ? 0 : parseToken(expectedToken);
    long seq = expected + 1;
    String entry = layout.logEntry(pipeline, seq);
    byte[] doc = next.toBytes();
    WriteResult w;
    try {
      w = client.put(bucket, entry, RequestBody.ofBytes(doc), Condition.ifNoneMatch(), Map.of());
    } catch (S3Exception e) {
      if (e.status() == 409) {
        return CasResult.BUSY;
      }
      throw e;
    }
    boolean mine = w.status() == WriteResult.Status.WRITTEN;
    if (!mine && w.attempts() > 1) {
      Optional<ObjectBytes> now = client.getBytes(bucket, entry, MAX_DOCUMENT);
      mine = now.isPresent() && Arrays.equals(now.get().bytes(), doc);
    }
    if (!mine) {
      return CasResult.CONFLICT;
    }
    heads.put(pipeline, new Head(seq, next));
    copyToLatest(pipeline, doc);
    return CasResult.SWAPPED;
  }

  private void copyToLatest(String pipeline, byte[] doc) {
    String latest = layout.latest(pipeline);
    try {
      client.put(bucket, latest, RequestBody.ofBytes(doc), null, Map.of());
    } catch (IOException e) {
      // The log is the truth; the copy only serves plain readers and catches up on the next advance.
      LOG.log(System.Logger.Level.WARNING, "pointer advanced but the copy at " + source(latest)
          + " could not be updated: " + e.getMessage());
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
      do {
        page = client.listObjects(bucket, logPrefix, token == null ? startAfter : null, token, pageSize);
        for (ObjectSummary o : page.objects()) {
          last = Math.max(last, KeyLayout.parseSeq(o.key(), logPrefix));
        }
        token = page.nextContinuationToken();
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
        Head head = new Head(last, Pointer.parse(got.get().bytes(), source(layout.logEntry(pipeline, last))));
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

  /** From an entry known to exist, finds the highest existing one above it (entries are dense). */
  private long gallop(String pipeline, long exists) throws IOException {
    long lo = exists;
    long step = 1;
    while (client.head(bucket, layout.logEntry(pipeline, lo + step), null).isPresent()) {
      lo += step;
      step = Math.min(step * 2, 1L << 40);
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
