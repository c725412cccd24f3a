package dev.idem.store.s3;

import dev.idem.core.Names;
import dev.idem.core.store.Claim;
import dev.idem.core.store.Claims;
import dev.idem.store.s3.internal.client.ObjectSummary;
import dev.idem.store.s3.internal.client.ObjectsPage;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.internal.client.S3Client.ObjectBytes;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The advisory claims of an {@link S3ObjectStore} ({@link Claims}): one object per claim entry, {@code
 * _idem/claims/KEY/claim.ID} ({@code ID} 16 random hex digits, {@link KeyLayout#claimEntry}), holding
 * its {@link Claim} document. Claims are advice (see {@link Claims}): whatever happens to these objects
 * costs at most duplicated work.
 *
 * <h2>Write (a claim, or a renewal)</h2>
 *
 * Each entry is created once, as a new object ({@link NewObjects}: {@code If-None-Match: *}, a name drawn
 * twice drawn again), and never replaced: a renewal creates a new entry, then DELETEs the one it renews.
 * So an entry's {@code LastModified} is when it was written, stamped by the server. A PUT is atomic: a
 * reader sees a whole document or none. A failure leaves no new entry or a whole one; a renewal that
 * fails after its PUT leaves the old entry too (the freshest is read). On a versioned bucket every
 * renewal and release leaves a noncurrent version and a delete marker of a few hundred bytes, which a
 * lifecycle rule for noncurrent versions under {@code _idem/claims/} may expire.
 *
 * <h2>Age, by the server's clock</h2>
 *
 * An entry's age is the listing reply's {@code Date} minus the entry's {@code LastModified}, both the
 * server's clock, less {@value #RESOLUTION_SECONDS} s, and never below zero. One ListObjectsV2 request so
 * tells every listed entry's age, and no replica's clock takes part: a writer or reader whose clock is
 * far off judges ages as every other does. {@code Date} has whole seconds, and {@code LastModified} has
 * whole seconds on S3 (milliseconds on some servers); the allowance keeps that rounding from ever making
 * a live claim look older than it is, so a ttl should exceed the renewal interval by more than it. A
 * reply without a parseable {@code Date} (HTTP asks every server with a clock to send one) is judged by
 * the store's clock ({@link S3StoreOptions#clock()}) instead: a skew then costs what A1 says.
 *
 * <h2>Claim, step by step</h2>
 *
 * <ol>
 *   <li>List the key's entries. A fresh one (younger than the ttl) that reads as a claim: TAKEN, nothing
 *       written. Else the freshest stale one that reads as a claim is the one this claim takes over
 *       from, if any ({@link Claims.Claimed#stale()}).
 *   <li>Create this writer's entry.
 *   <li>List again. The oldest fresh readable entry (by {@code LastModified}, ties by name, so every
 *       writer listing the same entries picks the same one) holds: when it is another's, this writer
 *       yields (DELETEs its own) and answers TAKEN with it. Entries stamped within the same second are
 *       ordered by name, not by when they were written, and a writer that listed before a rival's entry
 *       appeared holds too: both may hold (duplicated work).
 * </ol>
 *
 * <h2>Read</h2>
 *
 * List the key's entries, then GET the freshest ({@value Claim#MAX_DOCUMENT_BYTES} bytes and one more at
 * most); an entry that is gone since listed (404), cannot be read, is larger than a document, is not
 * named as this class names entries, or is not a document idem wrote for its key is absent, never a
 * claim and never an error (an unreadable claim must not stop a run), and the next freshest is read.
 * Only a failure to list is thrown. Entries are immutable, so a document read is remembered by its
 * entry's name and {@code ETag} (at most {@value #REMEMBERED} of them): a waiter polling a claim GETs its
 * document once per renewal, not once per poll.
 *
 * <h2>Requests per operation</h2>
 *
 * <ul>
 *   <li>{@link #claim}: HELD, 2 LIST and 1 PUT, and 1 GET more when it takes over a stale claim; TAKEN
 *       at the first look, 1 LIST and 1 GET; yielding, 2 LIST, 1 PUT, 1 GET and 1 DELETE;
 *   <li>{@link #renew}: 1 PUT and 1 DELETE;
 *   <li>{@link #release}: 1 HEAD, and 1 DELETE when the entry is there;
 *   <li>{@link #read}: 1 LIST and 1 GET;
 *   <li>{@link #list}: 1 LIST per page and 1 GET per entry.
 * </ul>
 *
 * plus one GET per unreadable entry read before a readable one; a remembered document costs no GET.
 * Thread-safe.
 */
final class ClaimObjects {
  /** The allowance for the whole seconds of {@code Date} and {@code LastModified}, taken off every age. */
  static final long RESOLUTION_SECONDS = 1;
  /** How many documents are remembered by entry name and ETag. */
  static final int REMEMBERED = 1024;
  private static final Duration RESOLUTION = Duration.ofSeconds(RESOLUTION_SECONDS);
  private static final String ID_PREFIX = "claim.";
  /** The id of a claim not yet written: {@link #write} names its entry. */
  private static final String UNWRITTEN = "unwritten";
  private static final Comparator<Entry> OLDEST_FIRST =
      Comparator.comparing(Entry::modified).thenComparing(Entry::id);
  private static final Comparator<Entry> FRESHEST_FIRST = OLDEST_FIRST.reversed();

  private final S3Client client;
  private final String bucket;
  private final KeyLayout layout;
  private final int pageSize;
  private final Clock clock;
  /** Documents read, by entry name and ETag; empty for an entry that is no claim. Guarded by itself. */
  private final Map<String, Optional<Claim>> remembered = new LinkedHashMap<>(16, 0.75f, true) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Optional<Claim>> eldest) {
      return size() > REMEMBERED;
    }
  };

  ClaimObjects(S3Client client, String bucket, KeyLayout layout, int pageSize, Clock clock) {
    this.client = client;
    this.bucket = bucket;
    this.layout = layout;
    this.pageSize = pageSize;
    this.clock = clock;
  }

  /**
   * A listed entry: its bucket key, claimed key and id, when it was written and its age by the
   * server's clock, its ETag and size.
   */
  private record Entry(String objectKey, String key, String id, Instant modified, Duration age, String etag,
      long size) {}

  /** See {@link Claims#claim} and the steps in the class comment. */
  Claims.Claimed claim(String key, String writer, Duration expected, Duration ttl) throws IOException {
    layout.requireClaimableKey(key);
    Names.requireWriterId(writer);
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("claim ttl must be > 0, was " + ttl);
    }
    List<Entry> before = entries(key);
    Optional<Claim> other = oldestFresh(before, ttl, null);
    if (other.isPresent()) {
      return new Claims.Claimed(Claims.Result.TAKEN, other.get());
    }
    Claim mine = write(new Claim(key, UNWRITTEN, writer, clock.instant(), expected, Duration.ZERO));
    // Writers that claimed together each list the others' entries now: the oldest fresh one holds.
    Optional<Claim> first = oldestFresh(entries(key), ttl, mine);
    if (first.isEmpty() || first.get().id().equals(mine.id())) {
      return new Claims.Claimed(Claims.Result.HELD, mine, freshestStale(before, ttl));
    }
    client.delete(bucket, layout.claimEntry(key, mine.id()));
    return new Claims.Claimed(Claims.Result.TAKEN, first.get());
  }

  /** See {@link Claims#renewClaim}: a new entry, then the old one deleted. */
  Claim renew(Claim held) throws IOException {
    String old = layout.claimEntry(held.key(), held.id());
    Claim renewed = write(held);
    client.delete(bucket, old);
    return renewed;
  }

  /** See {@link Claims#releaseClaim}. */
  boolean release(Claim claim) throws IOException {
    String entry = layout.claimEntry(claim.key(), claim.id());
    if (client.head(bucket, entry, null).isEmpty()) {
      return false;
    }
    client.delete(bucket, entry);
    return true;
  }

  /** See {@link Claims#readClaim}: the freshest readable entry (ties: the greater name). */
  Optional<Claim> read(String key) throws IOException {
    Names.requireSafeKey(key);
    List<Entry> entries = entries(key);
    entries.sort(FRESHEST_FIRST);
    for (Entry e : entries) {
      Optional<Claim> c = document(e);
      if (c.isPresent()) {
        return c;
      }
    }
    return Optional.empty();
  }

  /** See {@link Claims#listClaims}. */
  List<Claim> list(String prefix) throws IOException {
    Objects.requireNonNull(prefix, "prefix");
    List<Entry> entries = listed(layout.claimsPrefix(prefix), null);
    entries.sort(Comparator.comparing(Entry::key).thenComparing(FRESHEST_FIRST));
    List<Claim> out = new ArrayList<>();
    for (Entry e : entries) {
      document(e).ifPresent(out::add);
    }
    return out;
  }

  /** The entries on {@code key} itself (not on keys below it). */
  private List<Entry> entries(String key) throws IOException {
    return listed(layout.claimsPrefix(key + "/"), key);
  }

  /** Every claim entry under {@code listPrefix}, on {@code onlyKey} when it is not null, aged by each page's {@code Date}. */
  private List<Entry> listed(String listPrefix, String onlyKey) throws IOException {
    List<Entry> out = new ArrayList<>();
    String token = null;
    ListingGuard<String> guard = new ListingGuard<>("ListObjectsV2 of s3://" + bucket + "/" + listPrefix);
    do {
      ObjectsPage page = client.listObjects(bucket, listPrefix, null, token, pageSize);
      Instant now = page.serverTime() != null ? page.serverTime() : clock.instant();
      for (ObjectSummary o : page.objects()) {
        KeyLayout.ClaimEntry c = layout.parseClaimEntry(o.key());
        if (c != null && (onlyKey == null || c.key().equals(onlyKey))) {
          out.add(new Entry(o.key(), c.key(), c.id(), o.lastModified(), age(now, o.lastModified()), o.etag(),
              o.size()));
        }
      }
      token = guard.next(page.nextContinuationToken());
    } while (token != null);
    return out;
  }

  /** {@code now} minus {@code modified}, less the resolution allowance, never negative. */
  static Duration age(Instant now, Instant modified) {
    Duration age = Duration.between(modified, now).minus(RESOLUTION);
    return age.isNegative() ? Duration.ZERO : age;
  }

  /**
   * The oldest fresh entry that reads as a claim ({@code mine}, this writer's own, without a GET), or
   * empty.
   */
  private Optional<Claim> oldestFresh(List<Entry> entries, Duration ttl, Claim mine) throws IOException {
    List<Entry> fresh = entries.stream().filter(e -> e.age().compareTo(ttl) < 0).sorted(OLDEST_FIRST).toList();
    for (Entry e : fresh) {
      if (mine != null && e.id().equals(mine.id())) {
        return Optional.of(mine);
      }
      Optional<Claim> c = document(e);
      if (c.isPresent()) {
        return c;
      }
    }
    return Optional.empty();
  }

  /** The freshest stale entry that reads as a claim, or {@code null}: the claim a HELD one takes over from. */
  private Claim freshestStale(List<Entry> entries, Duration ttl) throws IOException {
    List<Entry> stale = entries.stream().filter(e -> e.age().compareTo(ttl) >= 0).sorted(FRESHEST_FIRST).toList();
    for (Entry e : stale) {
      Optional<Claim> c = document(e);
      if (c.isPresent()) {
        return c.get();
      }
    }
    return null;
  }

  /** The claim in entry {@code e}, aged as listed; empty when it is none (see Read in the class comment). */
  private Optional<Claim> document(Entry e) throws IOException {
    String name = e.etag() == null ? null : e.objectKey() + "\n" + e.etag();
    Optional<Claim> known;
    synchronized (remembered) {
      known = name == null ? null : remembered.get(name);
    }
    if (known == null) {
      known = fetch(e);
      if (known == null) {
        return Optional.empty();
      }
      if (name != null) {
        synchronized (remembered) {
          remembered.put(name, known);
        }
      }
    }
    return known.map(c -> new Claim(c.key(), c.id(), c.writer(), c.started(), c.expected(), e.age()));
  }

  /**
   * Reads entry {@code e}: its claim, empty when it is not one, or {@code null} when it could not be read
   * (gone since listed, or the GET failed), which is not remembered.
   */
  private Optional<Claim> fetch(Entry e) throws InterruptedIOException {
    if (e.size() > Claim.MAX_DOCUMENT_BYTES) {
      return Optional.empty();
    }
    Optional<ObjectBytes> got;
    try {
      got = client.getBytes(bucket, e.objectKey(), Claim.MAX_DOCUMENT_BYTES + 1);
    } catch (InterruptedIOException stopped) {
      throw stopped;
    } catch (IOException unreadable) {
      return null;
    }
    if (got.isEmpty()) {
      return null;
    }
    try {
      return Optional.of(Claim.parse(got.get().bytes(), "s3://" + bucket + "/" + e.objectKey(), e.key(), e.id(),
          Duration.ZERO));
    } catch (Claim.MalformedClaimException notAClaim) {
      return Optional.empty();
    }
  }

  /** Writes {@code claim}'s document as a new entry. */
  private Claim write(Claim claim) throws IOException {
    String hex = NewObjects.create(client, bucket, id -> layout.claimEntry(claim.key(), ID_PREFIX + id),
        claim.toBytes(), "a claim on " + claim.key());
    return claim.renewedAs(ID_PREFIX + hex);
  }
}
