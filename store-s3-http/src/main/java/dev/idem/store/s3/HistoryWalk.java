package dev.idem.store.s3;

import dev.idem.core.OutputKey;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.HistoryQuery;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.ListedObject;
import dev.idem.core.store.PublishHistory.HistoryVisitor;
import dev.idem.core.store.ObjectStore.ListingVisitor;
import dev.idem.store.s3.internal.client.KeyOrder;
import dev.idem.store.s3.internal.client.ObjectHead;
import dev.idem.store.s3.internal.client.ObjectSummary;
import dev.idem.store.s3.internal.client.ObjectVersion;
import dev.idem.store.s3.internal.client.ObjectsPage;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.internal.client.S3Exception;
import dev.idem.store.s3.internal.client.VersionsPage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

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
 *       of a thousand partitions costs two HEADs and a window of one key (the steady state) none; a
 *       query that does not read schemas ({@link HistoryQuery#readsSchemas()}) costs none here;
 *   <li>otherwise (one version, or all versions with one ETag, or a legacy key): no request; the
 *       entries carry ETags only, which the scan compares the way the reference scan does, and no
 *       schema.
 * </ul>
 *
 * HEADs for one key run in parallel (bounded); the next listing page is fetched while the current one is
 * processed ({@link PageCursor}).
 *
 * <h2>Listing at S3 latency, at a stated cost</h2>
 *
 * The versions are listed by a {@link SplitListing}: prefix ranges, each split by what its first page
 * shows (a pipeline's window digits, numbered names), up to {@link HistoryQuery#listParallelism()}
 * requests at once, read in key order, each starting only at a position every server honours (a prefix's
 * start, just after a version listed, or a common prefix in a delimiter listing), so every version is
 * read once. The first page is listed alone: a listing of one page costs one request. A window query
 * whose first page lies below its first window lists the prefixes that hold the windows from it on
 * ({@link #windowsFrom}). Evidence (rare: divergent attempts only) is one ListObjectsV2 listing from the
 * first window. Memory holds at most {@code 2 × listParallelism + 1} version pages, one evidence page ahead
 * and one key's history. What a walk may cost is written out in the design document (C2) and checked
 * over generated bucket shapes by {@code ScanCostProperties}.
 *
 * <p>Keys under {@code _idem/} are passed by a delimiter listing from the own area's directory, never a
 * key-marker of idem's own making, since servers differ on markers that are no keys. Servers that cannot
 * list versions (501 NotImplemented) are read with ListObjectsV2, one version per key. S3Proxy and AWS
 * answer ListObjectVersions on unversioned buckets too (every version id is {@code null}).
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
    String listPrefix = layout.object(query.prefix());
    String from = query.listFrom();
    String evidencePrefix = layout.evidencePrefix() + query.prefix();
    // ListObjectsV2 takes any string as start-after: the evidence listing may start at the window.
    String evidenceStart = from == null ? null : layout.evidenceMarker(layout.object(from));
    VersionsPage first = firstPage(listPrefix);
    try (VersionSource versions = first == null ? withoutVersions(listPrefix)
            : split(listPrefix, first, from == null ? null : layout.object(from), query.listParallelism());
        PageCursor<Marker, ObjectSummary> evidence = objects(evidencePrefix, new Marker(evidenceStart, null, null));
        InOrder inOrder = new InOrder(visitor, query)) {
      String previousWindow = null;
      // A walk not asked for schemas reads none: every key's read is Read.NO.
      SchemaReads schemas = query.readsSchemas() ? new SchemaReads() : null;
      String[] windowMemo = new String[2]; // each key's window is asked for twice: as the next key, then as itself
      while (true) {
        if (query.expired()) {
          return false;
        }
        ObjectVersion v = versions.peek();
        String key = v == null ? null : layout.logical(v.key());
        for (Evidence e = peekEvidence(evidence); e != null && (key == null || KeyOrder.compare(e.key, key) < 0);
            e = peekEvidence(evidence)) {
          List<Evidence> group = takeEvidence(evidence, e.key);
          if (query.expired()) {
            return false;
          }
          previousWindow = windowOf(e.key, windowMemo);
          // Evidence is HEADed anyway, and carries the schema.
          if (query.accepts(e.key)
              && !inOrder.visit(e.key, List.of(), group,
                  schemas == null ? SchemaReads.Read.NO : schemas.next(previousWindow, true, true))) {
            return false;
          }
        }
        if (key == null) {
          return inOrder.finish();
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
        SchemaReads.Read read = schemas == null ? SchemaReads.Read.NO
            : schemas.next(window, sharesWindow, !attempts.isEmpty() || !deletedOnly(group));
        if (query.accepts(key) && !inOrder.visit(key, group, attempts, read)) {
          return false;
        }
        previousWindow = window;
      }
    }
  }

  /**
   * Hands keys to the visitor in key order while the HEADs some of them need run in the background, so
   * a key that needs a request costs the walk no round trip of its own: at most {@code keys} keys are
   * being resolved at once, and at most {@link #WAITING_PER_KEY}{@code  × keys} histories wait to be
   * visited (enough for the keys listed while a HEAD is out, when one key in a hundred needs one).
   * Closing it cancels what is still running.
   */
  private final class InOrder implements AutoCloseable {
    private static final int WAITING_PER_KEY = 64;
    private final HistoryVisitor visitor;
    private final int keys;
    /** A queued history, and whether it is resolved in the background. */
    private record Pending(Future<KeyHistory> history, boolean background) {}

    private final java.util.ArrayDeque<Pending> pending = new java.util.ArrayDeque<>();
    private int resolving;

    private final HistoryQuery query;

    InOrder(HistoryVisitor visitor, HistoryQuery query) {
      this.visitor = visitor;
      this.query = query;
      this.keys = query.listParallelism();
    }

    /**
     * Queues the key's history, its schema read as {@code read} says; visits every history ready before
     * it; false when the visitor stopped.
     */
    boolean visit(String key, List<ObjectVersion> versions, List<Evidence> evidence, SchemaReads.Read read)
        throws IOException {
      Pending queued;
      if (!needsHeads(key, versions, evidence, read.maybe())) {
        queued = new Pending(CompletableFuture.completedFuture(new KeyHistory(key, listedOnly(key, versions))), false);
      } else {
        while (resolving >= keys || pending.size() >= WAITING_PER_KEY * keys) {
          if (!visitHead()) {
            return false;
          }
        }
        resolving++;
        // A key whose schema read waits for its window's first two keys waits here, in the background:
        // they were queued before it, so they are resolving or resolved.
        queued = new Pending(executor.submit(() -> {
          try {
            return new KeyHistory(key, resolve(key, versions, evidence, read.wanted()));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }), true);
      }
      read.resolvedBy(queued.history());
      pending.add(queued);
      while (!pending.isEmpty() && pending.peek().history().isDone()) {
        if (!visitHead()) {
          return false;
        }
      }
      return true;
    }

    /** Visits every queued history; false when the visitor stopped. */
    boolean finish() throws IOException {
      while (!pending.isEmpty()) {
        if (!visitHead()) {
          return false;
        }
      }
      return true;
    }

    /** Visits the oldest queued history; false when the visitor stopped or the deadline has passed. */
    private boolean visitHead() throws IOException {
      if (query.expired()) {
        return false; // the deadline holds for keys resolved in the background too
      }
      Pending head = pending.poll();
      KeyHistory h = Futures.join(head.history());
      if (head.background()) {
        resolving--;
      }
      return visitor.visit(h);
    }

    @Override
    public void close() {
      for (Pending p : pending) {
        p.history().cancel(true);
      }
      pending.clear();
    }
  }

  boolean list(String prefix, ListingVisitor visitor) throws IOException {
    try (PageCursor<Marker, ObjectSummary> objects = objects(layout.object(prefix), Marker.START)) {
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

  /** The versions of one walk, in key order, the store's own area left out. */
  interface VersionSource extends AutoCloseable {
    ObjectVersion peek() throws IOException;

    ObjectVersion next() throws IOException;

    @Override
    void close();
  }

  /**
   * The versions under {@code listPrefix} as a {@link SplitListing} starting with {@code first}, the
   * prefix's first page. A window query ({@code start}, the first window's {@code P/<start>}) whose first
   * page lies wholly below its first window lists instead the prefixes that hold every window from it on
   * ({@link #windowsFrom}), so a pipeline's history before {@code --since} costs one page.
   */
  private VersionSource split(String listPrefix, VersionsPage first, String start, int parallelism) {
    String listing = "ListObjectVersions of " + source(listPrefix);
    SplitListing.Lister lister = (prefix, delimiter, keyMarker, versionIdMarker, maxKeys) ->
        client.listVersions(bucket, prefix, delimiter, keyMarker, versionIdMarker, maxKeys);
    List<ObjectVersion> v = first.versions();
    String min = start == null ? null : start.substring(listPrefix.length());
    if (min != null && first.truncated() && !v.isEmpty()) {
      String last = v.get(v.size() - 1).key().substring(listPrefix.length());
      int slash = last.indexOf('/');
      String window = slash < 0 ? last : last.substring(0, slash);
      if (window.length() == min.length() && window.chars().allMatch(Character::isDigit)
          && window.compareTo(min) < 0) {
        return source(SplitListing.ofPrefixes(lister, executor, pageSize, parallelism, windowsFrom(listPrefix, min),
            layout.internalPrefix(), listing));
      }
    }
    return source(new SplitListing(lister, executor, pageSize, parallelism, listPrefix, null, first,
        layout.internalPrefix(), listing));
  }

  /**
   * The ascending prefixes under {@code pipelinePrefix} that hold every decimal of {@code min}'s length
   * from {@code min} on: {@code min} itself, then for each digit from the last, the same leading digits
   * with a greater one there (at most {@code 1 + 9 × length}).
   */
  static List<String> windowsFrom(String pipelinePrefix, String min) {
    List<String> out = new ArrayList<>();
    out.add(pipelinePrefix + min);
    for (int i = min.length() - 1; i >= 0; i--) {
      for (char d = (char) (min.charAt(i) + 1); d <= '9'; d++) {
        out.add(pipelinePrefix + min.substring(0, i) + d);
      }
    }
    return out;
  }

  private static VersionSource source(SplitListing listing) {
    return new VersionSource() {
      @Override
      public ObjectVersion peek() throws IOException {
        return listing.peek();
      }

      @Override
      public ObjectVersion next() throws IOException {
        return listing.next();
      }

      @Override
      public void close() {
        listing.close();
      }
    };
  }

  private static boolean versionsUnsupported(S3Exception e) {
    return e.status() == 501 || e.status() == 405 || "NotImplemented".equals(e.code());
  }

  /** The listing's first page, or {@code null} when the server cannot list versions. */
  private VersionsPage firstPage(String listPrefix) throws IOException {
    try {
      return client.listVersions(bucket, listPrefix, null, null, pageSize);
    } catch (S3Exception e) {
      if (versionsUnsupported(e)) {
        return null;
      }
      throw e;
    }
  }

  /**
   * For servers without versions: each current object under {@code listPrefix} as the key's only version,
   * one ListObjectsV2 page after the other, the own area passed by a start-after (which ListObjectsV2 takes
   * for any string).
   */
  private VersionSource withoutVersions(String listPrefix) throws IOException {
    PageCursor.Fetch<Marker, ObjectVersion> fetch = (m, page) -> {
      ObjectsPage p = client.listObjects(bucket, listPrefix, m.key, m.token, pageSize);
      List<ObjectVersion> out = new ArrayList<>(p.objects().size());
      for (ObjectSummary o : p.objects()) {
        out.add(new ObjectVersion(o.key(), null, true, false, o.lastModified(), o.etag(), o.size()));
      }
      return new PageCursor.Page<>(out, p.truncated() ? new Marker(null, null, p.nextContinuationToken()) : null);
    };
    PageCursor<Marker, ObjectVersion> cursor = PageCursor.open(fetch, Marker.START, executor,
        "ListObjectsV2 of " + source(listPrefix));
    return new VersionSource() {
      @Override
      public ObjectVersion peek() throws IOException {
        ObjectVersion v = cursor.peek();
        while (v != null && layout.isInternal(v.key())) {
          cursor.restart(new Marker(layout.afterInternal(), null, null));
          v = cursor.peek();
        }
        return v;
      }

      @Override
      public ObjectVersion next() throws IOException {
        ObjectVersion v = peek();
        return v == null ? null : cursor.next();
      }

      @Override
      public void close() {
        cursor.close();
      }
    };
  }

  private PageCursor<Marker, ObjectSummary> objects(String listPrefix, Marker start) throws IOException {
    PageCursor.Fetch<Marker, ObjectSummary> fetch = (m, page) -> {
      ObjectsPage p = client.listObjects(bucket, listPrefix, m.key, m.token, pageSize);
      return new PageCursor.Page<>(p.objects(), p.truncated() ? new Marker(null, null, p.nextContinuationToken()) : null);
    };
    return PageCursor.open(fetch, start, executor, "ListObjectsV2 of " + source(listPrefix));
  }

  private String source(String listPrefix) {
    return "s3://" + bucket + "/" + listPrefix;
  }

  private Evidence peekEvidence(PageCursor<Marker, ObjectSummary> evidence) throws IOException {
    for (ObjectSummary o = evidence.peek(); o != null; o = evidence.peek()) {
      KeyLayout.Evidence parsed = layout.parseEvidence(o.key());
      if (parsed != null) {
        return new Evidence(o.key(), parsed.key(), parsed.sha256(), parsed.marker(), o);
      }
      evidence.next();
    }
    return null;
  }

  private List<Evidence> takeEvidence(PageCursor<Marker, ObjectSummary> evidence, String key)
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
    if (!needsHeads(key, versions, evidence, needSchema)) {
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

  /** Whether {@link #resolve} HEADs anything for this key. */
  private static boolean needsHeads(String key, List<ObjectVersion> versions, List<Evidence> evidence,
      boolean needSchema) {
    return !evidence.isEmpty() || needSchema || (distinctEtags(versions) && OutputKey.looksLikeKey(key));
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
