package dev.idem.store.s3;

import dev.idem.core.OutputKey;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.HistoryQuery;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.ObjectStore.HistoryVisitor;
import dev.idem.core.store.ObjectStore.ListingVisitor;
import dev.idem.core.store.ListedObject;
import dev.idem.store.s3.client.KeyOrder;
import dev.idem.store.s3.client.ObjectHead;
import dev.idem.store.s3.client.ObjectSummary;
import dev.idem.store.s3.client.ObjectVersion;
import dev.idem.store.s3.client.ObjectsPage;
import dev.idem.store.s3.client.S3Client;
import dev.idem.store.s3.client.S3Exception;
import dev.idem.store.s3.client.VersionsPage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The history the divergence scan reads, streamed key by key from two listings merged in key order:
 * ListObjectVersions under the prefix (every version and delete marker), and ListObjectsV2 under {@code
 * _idem/evidence/} (the attempts that met different bytes: their divergence markers and kept bytes). A
 * key's versions and delete markers are handed on oldest first (the listing's order reversed), then its
 * divergent attempts: one per marker, whether or not its bytes were kept (P8), and one per kept bytes
 * that no marker of the same SHA-256 accounts for (written by an earlier version, before markers).
 *
 * <h2>How SHA-256s are found without a request per version</h2>
 *
 * A listing gives each version's ETag, size and time, not idem's SHA-256 (user metadata is only in HEAD
 * replies), and a HEAD per version would make a 100,000-version scan slower than the reference shell
 * scan. So a key's versions are HEADed only when it matters:
 *
 * <ul>
 *   <li>the key has divergence evidence: HEAD each of its distinct ETags, so the versions and the
 *       attempts are compared by SHA-256 (the evidence key carries the attempt's SHA-256);
 *   <li>the key is an idem key ({@link OutputKey#looksLikeKey}) with more than one distinct ETag: the
 *       ETags may differ for identical bytes (multipart versus single PUT, SSE-KMS), so HEAD one version
 *       per distinct ETag;
 *   <li>the key is an idem key that shares its window ({@code pipeline/window_start/}) with the key
 *       listed before or after it, and is one of the window's first two, or its third when the first two
 *       do not share a schema ({@link SchemaReads}): HEAD it for the schema version idem recorded ({@code
 *       idem-schema}), which the scan needs to tell a schema bump's overlap from keying drift; so a window
 *       of a thousand partitions costs two HEADs and a window of one key (the steady state) none;
 *   <li>otherwise (one version, or all versions with one ETag, or a legacy key): no request; the
 *       entries carry ETags only, which the scan compares the way the reference scan does, and no
 *       schema.
 * </ul>
 *
 * HEADs for one key run in parallel (bounded); the next listing page is fetched while the current one is
 * processed ({@link PageCursor}).
 *
 * <h2>Listing at S3 latency</h2>
 *
 * A query's listing is cut into key ranges ({@link KeyRanges}: the pipelines and directories a delimiter
 * listing finds, each listed by its prefix when they hold every key, a pipeline's windows split by start
 * time) and up to {@link
 * HistoryQuery#listParallelism()} ranges are listed at once, read in key order ({@link RangeCursor}); the
 * evidence listing is cut at the same keys when it spans more than one page. Keys outside any layout
 * are listed like the others, in whichever range holds them. Memory holds at most two pages per open
 * range (so {@code 2 × listParallelism} pages per listing) plus one key's history.
 *
 * <p>Keys under {@code _idem/} are skipped without a key-marker of idem's own making ({@link
 * #afterOwnArea}), since servers differ on markers that are no keys. Servers that cannot list versions
 * (501 NotImplemented) are read with ListObjectsV2, one version per key. S3Proxy and AWS answer
 * ListObjectVersions on unversioned buckets too (every version id is {@code null}).
 */
final class HistoryWalk {
  private final S3Client client;
  private final String bucket;
  private final KeyLayout layout;
  private final int pageSize;
  private final int parallelism;
  private final ExecutorService executor;

  /**
   * Where a page starts, as the server knows it: {@code key} is the key-marker (versions) or start-after
   * (objects), {@code versionId} the version-id-marker, {@code token} a ListObjectsV2 continuation token.
   * Nothing else, so the listing guard sees a position the server hands out twice as equal.
   */
  private record Marker(String key, String versionId, String token) {
    static final Marker START = new Marker(null, null, null);
  }

  /** One evidence object as listed: a divergence marker, or an attempt's kept bytes. */
  private record Evidence(String objectKey, String key, String sha256, boolean marker, ObjectSummary listed) {}

  HistoryWalk(S3Client client, String bucket, KeyLayout layout, int pageSize, int parallelism,
      ExecutorService executor) {
    this.client = client;
    this.bucket = bucket;
    this.layout = layout;
    this.pageSize = pageSize;
    this.parallelism = parallelism;
    this.executor = executor;
  }

  /**
   * Streams the history of the keys {@code query} accepts. A window query lists from its first window
   * in range ({@link HistoryQuery#listFrom()}); a key outside the query costs no request beyond its
   * share of a listing page; the deadline is checked for every listed entry, so the walk ends at most
   * one page request after it passes.
   */
  boolean history(HistoryQuery query, HistoryVisitor visitor) throws IOException {
    String from = query.listFrom();
    String listPrefix = layout.object(query.prefix());
    String start = from == null ? null : layout.object(from);
    // The first page is fetched once: it tells whether the listing is worth cutting (a one-page listing
    // is not), how dense a pipeline's windows are, and it is the first range's first page.
    Marker startMarker = new Marker(start, null, null);
    VersionsPage first = firstPage(listPrefix, start);
    boolean cut = first != null && first.truncated() && !first.versions().isEmpty();
    String evidencePrefix = layout.evidencePrefix() + query.prefix();
    String evidenceStart = start == null ? null : layout.evidenceMarker(start);
    // Evidence is rare (only divergent attempts): cut its listing too only when it spans pages, since
    // every range costs a request even when it is empty. Whether it does is asked while the listing is
    // planned, not after: one round trip less before the ranges start.
    Future<Boolean> evidenceSpansPages = cut ? executor.submit(() -> {
      try {
        return client.listObjects(bucket, evidencePrefix, evidenceStart, null, pageSize).truncated();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }) : null;
    KeyRanges.Plan plan;
    try {
      plan = cut ? plan(listPrefix, start, first, query) : KeyRanges.Plan.SEQUENTIAL;
    } catch (IOException | RuntimeException e) {
      evidenceSpansPages.cancel(true);
      throw e;
    }
    List<String> markers = plan.markers();
    if (markers.isEmpty() && evidenceSpansPages != null) {
      evidenceSpansPages.cancel(true);
    }
    // The store's own area is skipped anyway: a directory that is all of it is not listed at all.
    List<RangeCursor.Range> ranges = plan.ranges(start).stream()
        .filter(r -> r.prefix() == null || !layout.isInternal(r.prefix())).toList();
    // The first page is the first range's first page when the range starts where it does (a listing
    // that is cut has a first page with versions).
    RangeCursor.Range firstRange = ranges.isEmpty() ? null : ranges.get(0);
    AtomicBoolean firstUnused = new AtomicBoolean(first != null && firstRange != null
        && Objects.equals(firstRange.after(), start)
        && (firstRange.prefix() == null || first.versions().get(0).key().startsWith(firstRange.prefix())));
    // (A directory that holds the start is a marker below it: evidence is cut only above the start.)
    List<RangeCursor.Range> evidenceRanges = RangeCursor.Range.between(evidenceStart,
        markers.isEmpty() || !Futures.join(evidenceSpansPages) ? List.of() : markers.stream()
            .filter(m -> start == null || KeyOrder.compare(m, start) > 0).map(layout::evidenceMarker).toList());
    int parallel = query.listParallelism();
    RangeCursor.Opener<ObjectVersion> opener = range -> range == firstRange && firstUnused.getAndSet(false)
        ? versions(listPrefix, first, range) : versions(listPrefix, range);
    try (RangeCursor<ObjectVersion> versions = new RangeCursor<>(opener, ObjectVersion::key, ranges, executor,
            parallel, "ListObjectVersions of " + source(listPrefix));
        RangeCursor<ObjectSummary> evidence = new RangeCursor<>(range -> objects(evidencePrefix,
            new Marker(range.after(), null, null), range), ObjectSummary::key, evidenceRanges, executor, parallel,
            "ListObjectsV2 of " + source(evidencePrefix))) {
      String previousWindow = null;
      SchemaReads schemas = new SchemaReads();
      String[] windowMemo = new String[2]; // each key's window is asked for twice: as the next key, then as itself
      while (true) {
        if (query.expired()) {
          return false;
        }
        ObjectVersion v = skipInternal(versions, listPrefix);
        String key = v == null ? null : layout.logical(v.key());
        for (Evidence e = peekEvidence(evidence); e != null && (key == null || KeyOrder.compare(e.key, key) < 0);
            e = peekEvidence(evidence)) {
          List<Evidence> group = takeEvidence(evidence, e.key);
          if (query.expired()) {
            return false;
          }
          previousWindow = windowOf(e.key, windowMemo);
          // Evidence is HEADed anyway, and carries the schema.
          if (query.accepts(e.key) && !visit(visitor, schemas.next(previousWindow, true, true), e.key, List.of(),
              group)) {
            return false;
          }
        }
        if (key == null) {
          return true;
        }
        List<ObjectVersion> group = new ArrayList<>();
        String objectKey = v.key(); // the listing's own string: a key's versions share it, so equals is ==
        while (v != null && v.key().equals(objectKey)) {
          if (query.expired()) {
            return false; // a key with many versions spans pages: the deadline holds inside it too
          }
          group.add(versions.next());
          v = versions.peek();
        }
        List<Evidence> attempts = takeEvidence(evidence, key);
        Evidence nextEvidence = peekEvidence(evidence);
        String window = windowOf(key, windowMemo);
        boolean sharesWindow = window != null && (window.equals(previousWindow)
            || (v != null && window.equals(windowOf(layout.logical(v.key()), windowMemo)))
            || (nextEvidence != null && window.equals(windowOf(nextEvidence.key, windowMemo))));
        if (query.accepts(key) && !visit(visitor, schemas.next(window, sharesWindow,
            !attempts.isEmpty() || !deletedOnly(group)), key, group, attempts)) {
          return false;
        }
        previousWindow = window;
      }
    }
  }

  boolean list(String prefix, ListingVisitor visitor) throws IOException {
    try (PageCursor<Marker, ObjectSummary> objects = objects(layout.object(prefix), Marker.START,
        RangeCursor.Range.ALL)) {
      for (ObjectSummary o = objects.peek(); o != null; o = objects.peek()) {
        if (layout.isInternal(o.key())) {
          objects.restart(new Marker(layout.afterInternal(), null, null));
          continue;
        }
        objects.next();
        if (!visitor.visit(new ListedObject(layout.logical(o.key()), o.size(), o.lastModified()))) {
          return false;
        }
      }
      return true;
    }
  }

  // ---------------------------------------------------------------- listings

  /**
   * Where to cut the listing of {@code listPrefix} for the query's parallelism ({@link KeyRanges}); no
   * cut for a server that cannot list versions (it is then read with ListObjectsV2, one range).
   */
  private KeyRanges.Plan plan(String listPrefix, String start, VersionsPage first, HistoryQuery query)
      throws IOException {
    List<ObjectVersion> v = first.versions();
    String[] span = {v.get(0).key(), v.get(v.size() - 1).key()};
    try {
      return KeyRanges.plan(listPrefix, start, span, layout.prefix(), query.clock().instant().getEpochSecond(),
          query.listParallelism(), new KeyRanges.Discovery() {
            @Override
            public KeyRanges.Directories directories(String prefix, String startAfter, int pages)
                throws IOException {
              List<String> out = new ArrayList<>();
              boolean ownKeys = false;
              String key = startAfter;
              String versionId = null;
              for (int i = 0; i < pages; i++) {
                VersionsPage p = client.listVersions(bucket, prefix, "/", key, versionId, pageSize);
                out.addAll(p.commonPrefixes());
                ownKeys |= !p.versions().isEmpty();
                if (!p.truncated()) {
                  return new KeyRanges.Directories(out, true, ownKeys);
                }
                key = p.nextKeyMarker();
                versionId = p.nextVersionIdMarker();
              }
              return new KeyRanges.Directories(out, false, ownKeys);
            }

            @Override
            public String[] firstPageSpan(String prefix, String startAfter) throws IOException {
              VersionsPage first = client.listVersions(bucket, prefix, startAfter, null, pageSize);
              List<ObjectVersion> v = first.versions();
              return !first.truncated() || v.isEmpty() ? null
                  : new String[] {v.get(0).key(), v.get(v.size() - 1).key()};
            }
          });
    } catch (S3Exception e) {
      if (versionsUnsupported(e)) {
        return KeyRanges.Plan.SEQUENTIAL;
      }
      throw e;
    }
  }

  private static boolean versionsUnsupported(S3Exception e) {
    return e.status() == 501 || e.status() == 405 || "NotImplemented".equals(e.code());
  }

  /** The listing's first page, or {@code null} when the server cannot list versions. */
  private VersionsPage firstPage(String listPrefix, String start) throws IOException {
    try {
      return client.listVersions(bucket, listPrefix, start, null, pageSize);
    } catch (S3Exception e) {
      if (versionsUnsupported(e)) {
        return null;
      }
      throw e;
    }
  }

  /**
   * The pages of one range's version listing, listed with the range's prefix when it has one. A range
   * bounded by a marker asks for its second page with max-keys 1: such ranges are cut at directories and
   * windows, so a range's first page often ends where the range's keys do, and a full second page would
   * then be the next range's first, listed, parsed and dropped (99 of a 100-directory scan's 205
   * requests, each 1,000 versions, before directories were listed by prefix). One version tells whether
   * the range goes on; when it does, the pages after it are full again. Only the page size changes,
   * never where a page starts, so every version is listed once either way.
   */
  private PageCursor.Fetch<Marker, ObjectVersion> versionsFetch(String listPrefix, RangeCursor.Range range) {
    String prefix = range.prefix() != null ? range.prefix() : listPrefix;
    return (m, page) -> page(client.listVersions(bucket, prefix, m.key, m.versionId, pageSizeAt(page, range.upTo())),
        range);
  }

  /** Max-keys of a range's {@code page}-th page: 1 for a bounded range's second, else the page size. */
  int pageSizeAt(int page, String upTo) {
    return upTo != null && page == 1 ? 1 : pageSize;
  }

  private static PageCursor.Page<Marker, ObjectVersion> page(VersionsPage p, RangeCursor.Range range) {
    return RangeCursor.cut(new PageCursor.Page<>(p.versions(),
        p.truncated() ? new Marker(p.nextKeyMarker(), p.nextVersionIdMarker(), null) : null), range,
        ObjectVersion::key);
  }

  /**
   * A range's cursor starting with {@code first}, the listing's first page, already fetched: its
   * position is one of the key order, so the range's own listing continues from it.
   */
  private PageCursor<Marker, ObjectVersion> versions(String listPrefix, VersionsPage first, RangeCursor.Range range)
      throws IOException {
    return new PageCursor<>(versionsFetch(listPrefix, range), page(first, range), executor,
        "ListObjectVersions of " + source(range.prefix() != null ? range.prefix() : listPrefix));
  }

  private PageCursor<Marker, ObjectVersion> versions(String listPrefix, RangeCursor.Range range) throws IOException {
    String prefix = range.prefix() != null ? range.prefix() : listPrefix;
    Marker start = new Marker(range.after(), null, null);
    PageCursor.Fetch<Marker, ObjectVersion> fetch = versionsFetch(listPrefix, range);
    PageCursor.Page<Marker, ObjectVersion> first;
    try {
      first = fetch.fetch(start, 0);
    } catch (S3Exception e) {
      if (versionsUnsupported(e)) {
        return currentOnly(prefix, start, range);
      }
      throw e;
    }
    return new PageCursor<>(fetch, first, executor, "ListObjectVersions of " + source(prefix));
  }

  /** For servers without versions: each current object as the key's only version. */
  private PageCursor<Marker, ObjectVersion> currentOnly(String listPrefix, Marker start, RangeCursor.Range range)
      throws IOException {
    PageCursor.Fetch<Marker, ObjectVersion> fetch = (m, page) -> {
      ObjectsPage p = client.listObjects(bucket, listPrefix, m.key, m.token, pageSize);
      List<ObjectVersion> out = new ArrayList<>(p.objects().size());
      for (ObjectSummary o : p.objects()) {
        out.add(new ObjectVersion(o.key(), null, true, false, o.lastModified(), o.etag(), o.size()));
      }
      return RangeCursor.cut(new PageCursor.Page<>(out, p.truncated() ? new Marker(null, null, p.nextContinuationToken()) : null),
          range, ObjectVersion::key);
    };
    return PageCursor.open(fetch, start, executor, "ListObjectsV2 of " + source(listPrefix));
  }

  private PageCursor<Marker, ObjectSummary> objects(String listPrefix, Marker start, RangeCursor.Range range)
      throws IOException {
    PageCursor.Fetch<Marker, ObjectSummary> fetch = (m, page) -> {
      ObjectsPage p = client.listObjects(bucket, listPrefix, m.key, m.token, pageSize);
      return RangeCursor.cut(new PageCursor.Page<>(p.objects(),
          p.truncated() ? new Marker(null, null, p.nextContinuationToken()) : null), range, ObjectSummary::key);
    };
    return PageCursor.open(fetch, start, executor, "ListObjectsV2 of " + source(listPrefix));
  }

  private String source(String listPrefix) {
    return "s3://" + bucket + "/" + listPrefix;
  }

  /**
   * The next version outside {@code _idem/}. The own area is passed through the entries the range's
   * cursor holds; when it runs on past them, the rest of the range is listed by {@link #afterOwnArea}.
   */
  private ObjectVersion skipInternal(RangeCursor<ObjectVersion> versions, String listPrefix) throws IOException {
    ObjectVersion v = versions.peek();
    while (v != null && layout.isInternal(v.key())) {
      versions.skipWhile(layout::isInternal, range -> afterOwnArea(listPrefix, range));
      v = versions.peek();
    }
    return v;
  }

  /**
   * Where the listing after the own area stands: {@code items} from {@code index} on are what is left to
   * give of the delimiter pages read so far, {@code outer} is where the delimiter listing's next page
   * starts ({@code null}: there is none), {@code directories} the directories it named that are not yet
   * given (a server may name them before it reaches them), {@code lastDirectory} the last one given;
   * {@code directory}, when set, is being listed by its prefix, its next page starting at {@code inner}.
   */
  private record Beyond(List<Item> items, int index, Marker outer, List<String> directories, String lastDirectory,
      String directory, Marker inner) {}

  /** A key of the delimiter listing's own, with one of its versions, or a directory ({@code version} null). */
  private record Item(String key, ObjectVersion version) {}

  /**
   * The versions of {@code range} after the store's own area, listed with a prefix and a delimiter only:
   * a delimiter ({@code /}) listing of the range's prefix from its first key names the keys of its own
   * (their versions come with it) and its directories, of which the own area is one; the keys and
   * directories after the own area are taken in key order, each directory listed by its prefix. Every
   * key-marker sent is a position the server handed out. S3 would take any string as a key-marker, but
   * moto drops the first version after one that is not a key, and LocalS3 refuses it with 404, so a
   * marker of idem's own making (the own area's prefix followed by the highest code point) is not used.
   *
   * <p>Servers differ in where a delimiter page names directories: AWS and moto name each once, in key
   * order, counted in the page; S3Proxy and S3Mock name every directory on every page, whatever its
   * position. So a directory is given only once the listing's position has passed it (every key of the
   * listing's own below it has been given) or the listing has ended, and only once: memory holds the
   * directories named and not yet given, besides one delimiter page and one directory page.
   *
   * <p>It ends on every server: its positions are the server's own, so a server that ignores the one it
   * is asked to start at hands the same one back and the cursor's guard stops it ({@link ListingGuard});
   * it gives no key of the own area, so a server that lists the own area again (ignoring a directory's
   * prefix) has the range restarted a second time, which {@link RangeCursor#skipWhile} refuses.
   */
  private PageCursor<?, ObjectVersion> afterOwnArea(String listPrefix, RangeCursor.Range range)
      throws IOException {
    String prefix = range.prefix() != null ? range.prefix() : listPrefix;
    PageCursor.Fetch<Beyond, ObjectVersion> fetch = new PageCursor.Fetch<>() {
      @Override
      public PageCursor.Page<Beyond, ObjectVersion> fetch(Beyond at, int page) throws IOException {
        if (at.directory() != null) {
          VersionsPage p = client.listVersions(bucket, at.directory(), at.inner().key(), at.inner().versionId(),
              pageSize);
          Beyond next = new Beyond(at.items(), at.index(), at.outer(), at.directories(), at.lastDirectory(),
              p.truncated() ? at.directory() : null,
              p.truncated() ? new Marker(p.nextKeyMarker(), p.nextVersionIdMarker(), null) : null);
          return RangeCursor.cut(new PageCursor.Page<>(p.versions(), more(next) ? next : null), range,
              ObjectVersion::key);
        }
        List<Item> items = at.items();
        int i = at.index();
        if (i < items.size() && items.get(i).version() == null) { // a directory: list it by its prefix
          return fetch(new Beyond(items, i + 1, at.outer(), at.directories(), at.lastDirectory(), items.get(i).key(),
              Marker.START), page);
        }
        if (i < items.size()) { // the versions of the keys of its own up to the next directory
          List<ObjectVersion> own = new ArrayList<>();
          for (; i < items.size() && items.get(i).version() != null; i++) {
            own.add(items.get(i).version());
          }
          Beyond next = new Beyond(items, i, at.outer(), at.directories(), at.lastDirectory(), null, null);
          return new PageCursor.Page<>(own, more(next) ? next : null);
        }
        return delimiterPage(at);
      }

      /** The next delimiter page, as items in key order: own keys' versions, and the directories passed. */
      private PageCursor.Page<Beyond, ObjectVersion> delimiterPage(Beyond at) throws IOException {
        VersionsPage p = client.listVersions(bucket, prefix, "/", at.outer().key(), at.outer().versionId(), pageSize);
        TreeSet<String> named = new TreeSet<>(KeyOrder::compare);
        named.addAll(at.directories());
        for (String d : p.commonPrefixes()) {
          if (at.lastDirectory() == null || KeyOrder.compare(d, at.lastDirectory()) > 0) {
            named.add(d);
          }
        }
        List<Item> ordered = new ArrayList<>();
        for (ObjectVersion v : p.versions()) {
          while (!named.isEmpty() && KeyOrder.compare(named.first(), v.key()) < 0) {
            ordered.add(new Item(named.pollFirst(), null));
          }
          ordered.add(new Item(v.key(), v));
        }
        String position = p.truncated() ? p.nextKeyMarker() : null;
        while (!named.isEmpty() && (position == null || KeyOrder.compare(named.first(), position) <= 0)) {
          ordered.add(new Item(named.pollFirst(), null));
        }
        String lastDirectory = at.lastDirectory();
        List<Item> page = new ArrayList<>();
        boolean ended = !p.truncated();
        for (Item item : ordered) {
          if (range.upTo() != null && KeyOrder.compare(item.key(), range.upTo()) > 0) {
            ended = true; // everything from here on lies above the range
            break;
          }
          if (item.version() == null) {
            lastDirectory = item.key();
          }
          if (!layout.isInternal(item.key()) && KeyOrder.compare(item.key(), layout.internalPrefix()) > 0) {
            page.add(item);
          }
        }
        Beyond next = new Beyond(page, 0,
            ended ? null : new Marker(p.nextKeyMarker(), p.nextVersionIdMarker(), null),
            ended ? List.of() : List.copyOf(named), lastDirectory, null, null);
        return new PageCursor.Page<>(List.of(), more(next) ? next : null);
      }
    };
    Beyond start = new Beyond(List.of(), 0, Marker.START, List.of(), null, null, null);
    try {
      return new PageCursor<>(fetch, fetch.fetch(start, 0), executor, "ListObjectVersions of " + source(prefix)
          + " after " + layout.internalPrefix());
    } catch (S3Exception e) {
      if (versionsUnsupported(e)) {
        // ListObjectsV2 takes any string as start-after where ListObjectVersions' key-marker may not.
        return currentOnly(prefix, new Marker(layout.afterInternal(), null, null), range);
      }
      throw e;
    }
  }

  /** Whether the listing after the own area has more to give from {@code at}. */
  private static boolean more(Beyond at) {
    return at.directory() != null || at.index() < at.items().size() || at.outer() != null;
  }

  private Evidence peekEvidence(RangeCursor<ObjectSummary> evidence) throws IOException {
    for (ObjectSummary o = evidence.peek(); o != null; o = evidence.peek()) {
      KeyLayout.Evidence parsed = layout.parseEvidence(o.key());
      if (parsed != null) {
        return new Evidence(o.key(), parsed.key(), parsed.sha256(), parsed.marker(), o);
      }
      evidence.next();
    }
    return null;
  }

  private List<Evidence> takeEvidence(RangeCursor<ObjectSummary> evidence, String key)
      throws IOException {
    List<Evidence> out = new ArrayList<>();
    for (Evidence e = peekEvidence(evidence); e != null && e.key.equals(key); e = peekEvidence(evidence)) {
      out.add(e);
      evidence.next();
    }
    return out;
  }

  // ---------------------------------------------------------------- SHA-256 resolution

  /**
   * The {@code pipeline/window_start} of an idem key, else {@code null}; {@code memo} holds the last key
   * asked about and its answer, to spare the second look.
   */
  private static String windowOf(String key, String[] memo) {
    if (key.equals(memo[0])) {
      return memo[1];
    }
    memo[0] = key;
    return memo[1] = OutputKey.looksLikeKey(key) ? key.substring(0, key.lastIndexOf('/')) : null;
  }

  /** Resolves the key's history, reading its schema as {@code read} says, and hands it on. */
  private boolean visit(HistoryVisitor visitor, SchemaReads.Read read, String key, List<ObjectVersion> versions,
      List<Evidence> evidence) throws IOException {
    KeyHistory history = new KeyHistory(key, resolve(key, versions, evidence, read.wanted()));
    if (read != SchemaReads.Read.NO) {
      read.resolvedBy(CompletableFuture.completedFuture(history));
    }
    return visitor.visit(history);
  }

  /** Whether the listing shows the key only as delete markers: no content, so not in its window for the scan. */
  private static boolean deletedOnly(List<ObjectVersion> versions) {
    for (ObjectVersion v : versions) {
      if (!v.deleteMarker()) {
        return false;
      }
    }
    return true;
  }

  /**
   * The key's entries, HEADing versions when evidence or several ETags ask for SHA-256s, or when
   * {@code needSchema} asks for the recorded schema ({@link SchemaReads}).
   */
  private List<HistoryEntry> resolve(String key, List<ObjectVersion> versions, List<Evidence> listedEvidence,
      boolean needSchema) throws IOException {
    List<Evidence> evidence = attempts(listedEvidence);
    if (evidence.isEmpty() && !needSchema && !(distinctEtags(versions) && OutputKey.looksLikeKey(key))) {
      return listedOnly(key, versions); // nothing to HEAD: most keys, so no maps for them
    }
    Map<String, ObjectVersion> byEtag = new LinkedHashMap<>();
    for (ObjectVersion v : versions) {
      if (!v.deleteMarker() && v.etag() != null) {
        byEtag.putIfAbsent(v.etag(), v);
      }
    }
    boolean headVersions = !evidence.isEmpty() || needSchema || (byEtag.size() > 1 && OutputKey.looksLikeKey(key));
    List<Callable<Optional<ObjectHead>>> heads = new ArrayList<>();
    List<String> etags = new ArrayList<>();
    if (headVersions) {
      for (ObjectVersion v : byEtag.values()) {
        String versionId = v.versionId() == null || v.versionId().equals("null") ? null : v.versionId();
        etags.add(v.etag());
        heads.add(() -> client.head(bucket, v.key(), versionId));
      }
    }
    for (Evidence e : evidence) {
      heads.add(() -> client.head(bucket, e.objectKey, null));
    }
    List<Optional<ObjectHead>> results = all(heads);

    Map<String, ObjectHead> headByEtag = new LinkedHashMap<>();
    for (int i = 0; i < etags.size(); i++) {
      if (results.get(i).isPresent()) {
        headByEtag.put(etags.get(i), results.get(i).get());
      }
    }
    List<HistoryEntry> out = new ArrayList<>(versions.size() + evidence.size());
    for (ObjectVersion v : versions) {
      if (v.deleteMarker()) {
        out.add(new HistoryEntry(key, HistoryEntry.Kind.DELETE_MARKER, v.versionId(), v.lastModified(), -1, null,
            null, null, null));
        continue;
      }
      ObjectHead h = v.etag() == null ? null : headByEtag.get(v.etag());
      boolean headed = h != null && byEtag.get(v.etag()) == v;
      out.add(new HistoryEntry(key, HistoryEntry.Kind.VERSION, v.versionId(), v.lastModified(), v.size(),
          h == null ? null : IdemMetadata.sha256(h), v.etag(), headed ? IdemMetadata.writer(h) : null,
          h == null ? null : IdemMetadata.schema(h)));
    }
    // ListObjectVersions lists a key's versions newest first; history is oldest first, so a delete
    // marker sits between the versions before a delete and those published again after it.
    java.util.Collections.reverse(out);
    for (int i = 0; i < evidence.size(); i++) {
      Evidence e = evidence.get(i);
      Optional<ObjectHead> h = results.get(etags.size() + i);
      out.add(new HistoryEntry(key, HistoryEntry.Kind.DIVERGENT_ATTEMPT, null,
          h.map(IdemMetadata::published).orElse(e.listed.lastModified()),
          h.map(IdemMetadata::size).orElse(e.marker ? -1 : e.listed.size()), e.sha256, null,
          h.map(IdemMetadata::writer).orElse(null), h.map(IdemMetadata::schema).orElse(null),
          h.map(IdemMetadata::storedSha256).orElse(null)));
    }
    return out;
  }

  /**
   * The evidence objects that stand for one divergent attempt each: every marker, and the kept bytes of
   * a SHA-256 no marker names (evidence of an earlier version). Bytes a marker accounts for are the same
   * attempt (or an attempt with the same bytes, whose own marker counts it), and are not HEADed.
   */
  private static List<Evidence> attempts(List<Evidence> evidence) {
    if (evidence.size() < 2) {
      return evidence;
    }
    Set<String> marked = new HashSet<>();
    for (Evidence e : evidence) {
      if (e.marker) {
        marked.add(e.sha256);
      }
    }
    return marked.isEmpty() ? evidence : evidence.stream().filter(e -> e.marker || !marked.contains(e.sha256)).toList();
  }

  /** Whether the versions (delete markers aside) carry more than one ETag. */
  private static boolean distinctEtags(List<ObjectVersion> versions) {
    String first = null;
    for (ObjectVersion v : versions) {
      if (!v.deleteMarker() && v.etag() != null) {
        if (first == null) {
          first = v.etag();
        } else if (!first.equals(v.etag())) {
          return true;
        }
      }
    }
    return false;
  }

  /** {@link #resolve}'s entries when nothing is HEADed: the listing's fields, oldest first. */
  private static List<HistoryEntry> listedOnly(String key, List<ObjectVersion> versions) {
    HistoryEntry[] out = new HistoryEntry[versions.size()];
    for (int i = 0; i < out.length; i++) {
      ObjectVersion v = versions.get(i);
      out[out.length - 1 - i] = v.deleteMarker()
          ? new HistoryEntry(key, HistoryEntry.Kind.DELETE_MARKER, v.versionId(), v.lastModified(), -1, null, null,
              null, null)
          : new HistoryEntry(key, HistoryEntry.Kind.VERSION, v.versionId(), v.lastModified(), v.size(), null, v.etag(),
              null, null);
    }
    return List.of(out); // KeyHistory keeps it as it is (List.copyOf of an immutable list)
  }

  /** Runs the HEADs, at most {@code parallelism} at a time, keeping their order. */
  private List<Optional<ObjectHead>> all(List<Callable<Optional<ObjectHead>>> tasks) throws IOException {
    List<Optional<ObjectHead>> out = new ArrayList<>(tasks.size());
    if (tasks.size() == 1) {
      try {
        out.add(tasks.get(0).call());
        return out;
      } catch (IOException | RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IOException(e);
      }
    }
    for (int from = 0; from < tasks.size(); from += parallelism) {
      List<Future<Optional<ObjectHead>>> batch = new ArrayList<>();
      for (Callable<Optional<ObjectHead>> t : tasks.subList(from, Math.min(tasks.size(), from + parallelism))) {
        batch.add(executor.submit(() -> {
          try {
            return t.call();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }));
      }
      for (Future<Optional<ObjectHead>> f : batch) {
        out.add(Futures.join(f));
      }
    }
    return out;
  }
}
