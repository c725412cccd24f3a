package dev.idem.store.s3;

import dev.idem.store.s3.internal.client.KeyOrder;
import dev.idem.store.s3.internal.client.ObjectVersion;
import dev.idem.store.s3.internal.client.VersionsPage;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;
import java.util.ListIterator;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.function.Predicate;

/**
 * One ListObjectVersions listing under a prefix, read in key order, listed as prefix ranges that split
 * themselves by what their first page shows, up to {@code parallelism} requests ahead of the reader.
 *
 * <h2>Why prefix ranges</h2>
 *
 * S3 answers a page in tens of milliseconds and hands out the next page's position only with the page,
 * so one listing of many pages is a chain of round trips. Parts of the listing can be asked for at
 * once only from positions the server honours, and servers differ on the rest: moto drops the first
 * version after a key-marker that names no version, LocalS3 refuses such a marker with 404, and a
 * key-marker naming a versioned key without its version id skips all of its versions on S3 but not on
 * moto. So every request here starts at one of three positions: the start of a prefix (no marker),
 * the position just after a version the listing has shown (its key and version id), or, in a delimiter
 * listing only, a common prefix such a listing handed out. And every request is bounded by its prefix,
 * so no page holds entries of another part: <b>every entry is read once</b>.
 *
 * <h2>How a part splits</h2>
 *
 * A part is a prefix {@code G}, listed from its start or from a position. When its first page is cut
 * short, the page's first and last keys tell how the names run: they agree up to some character and
 * differ there. Digits at or above that point are split on: for each such digit position {@code q}
 * of the last key {@code L} (deepest first, at most {@link #MAX_LEVELS}), the prefixes {@code
 * L[0..q) + d} for the digits {@code d} above {@code L[q]} hold the keys that follow {@code L} there.
 * What lies between them (names with a non-digit where the digits run, or longer than them) is a
 * <i>gap</i>: a prefix listed from just after the last version listed before it, which is known once
 * the parts before it have been listed. So a pipeline's windows ({@code P/1726059940/…}), numbered
 * files and job directories split into parts of about a page, and anything else still comes in order,
 * a page at a time. Nothing is guessed: a split is made from a page the server returned, never from the
 * clock, and a part that turns out empty costs one request that reads nothing.
 *
 * <h2>Cost</h2>
 *
 * Entries read: each version under the prefix once (the store's own area aside), plus the common
 * prefixes of the delimiter listing that passes the own area. Requests: a part costs one request per
 * page it holds, at least one; a split (made only from a full page) adds at most {@code 9 ×} {@link
 * #MAX_LEVELS} {@code + }{@link #MAX_LEVELS}{@code  + 1} parts. So requests ≤ pages × ({@code 1 + 9 ×
 * MAX_LEVELS + MAX_LEVELS + 1}), and in practice pages plus the empty digits near the top of a split.
 *
 * <h2>The store's own area</h2>
 *
 * A part whose page ends inside {@code _idem/} is continued by a delimiter listing of its prefix from
 * the own area's directory, which names the keys of its own (with their versions) and the directories
 * after it, each then a part. Servers differ in where a delimiter page names directories (AWS and moto
 * once, in key order; S3Proxy and S3Mock every directory on every page), so a directory is taken once
 * the listing's position has passed it, or the listing ended, and only once.
 *
 * <p>Memory: at most {@code parallelism} pages ahead of the reader (fetched or in flight), twice that
 * while a split's parts or a gap that had to wait come before pages already held, plus the one being read, and the parts not yet listed (a few dozen per split). Not thread-safe: one reader. A
 * request that fails surfaces its {@link IOException} when the reader reaches its part; {@link
 * #close()} cancels what is in flight. A position the server hands out twice ends the listing with an
 * {@link IOException} ({@link ListingGuard}).
 */
final class SplitListing implements AutoCloseable {
  /** The most digit positions one split enumerates. */
  static final int MAX_LEVELS = 3;

  /** One ListObjectVersions request. */
  @FunctionalInterface
  interface Lister {
    VersionsPage list(String prefix, String delimiter, String keyMarker, String versionIdMarker, int maxKeys)
        throws IOException;
  }

  /**
   * A position the server honours: just after {@code key}'s version {@code versionId} ({@code null}: after
   * the key, in an unversioned bucket), or, in a delimiter listing, after the common prefix {@code key}.
   */
  record Position(String key, String versionId, boolean delimited) {
    static Position after(ObjectVersion v) {
      String id = v.versionId();
      return new Position(v.key(), id == null || id.equals("null") ? null : id, false);
    }
  }

  private enum Kind {
    /** Entries already read: a page the reader has not reached yet. */
    LISTED,
    /** A prefix from its start or from a known position. */
    PREFIX,
    /** A prefix from just after the last version listed before it. */
    GAP,
    /** A delimiter listing of a prefix after the own area. */
    DIRECTORY
  }

  private static final class Part {
    final Kind kind;
    final String prefix;
    Position from;
    /** LISTED: the entries; DIRECTORY: the directories named and not yet taken. */
    final List<ObjectVersion> entries;
    final List<String> named;
    final String lastDirectory;
    /** LISTED: after the last version its page listed (own area included), or {@code null}. */
    final Position end;
    Future<VersionsPage> page;
    /** Why this part's page could not be used: thrown when the reader reaches it. */
    IOException failure;

    private Part(Kind kind, String prefix, Position from, List<ObjectVersion> entries, List<String> named,
        String lastDirectory, Position end) {
      this.kind = kind;
      this.prefix = prefix;
      this.from = from;
      this.entries = entries;
      this.named = named;
      this.lastDirectory = lastDirectory;
      this.end = end;
    }

    static Part listed(List<ObjectVersion> entries, Position end) {
      return new Part(Kind.LISTED, null, null, entries, List.of(), null, end);
    }

    static Part prefix(String prefix, Position from) {
      return new Part(Kind.PREFIX, prefix, from, List.of(), List.of(), null, null);
    }

    static Part gap(String prefix) {
      return new Part(Kind.GAP, prefix, null, List.of(), List.of(), null, null);
    }

    static Part directory(String prefix, Position from, List<String> named, String lastDirectory) {
      return new Part(Kind.DIRECTORY, prefix, from, List.of(), named, lastDirectory, null);
    }

    boolean holdsPage() {
      return page != null || (kind == Kind.LISTED && !entries.isEmpty());
    }

    @Override
    public String toString() {
      return kind + "(" + prefix + (from == null ? "" : " after " + from.key()) + ")";
    }
  }

  private final Lister lister;
  private final ExecutorService executor;
  private final int pageSize;
  private final int parallelism;
  private final boolean splitting;
  private final String ownArea;
  private final Predicate<String> internal;
  private final ListingGuard<Position> guard;
  private final String listing;
  private final LinkedList<Part> parts = new LinkedList<>();
  private final Semaphore arrivals = new Semaphore(0);
  private List<ObjectVersion> entries = List.of();
  private int index;
  /** After the last version of the pages the reader has taken, or {@code null} before the first. */
  private Position readerEnd;
  private boolean closed;

  /**
   * @param prefix what is listed
   * @param start where the listing starts, a position the server honours ({@code null}: the prefix's
   *     first key)
   * @param firstPage the page at {@code start}, already fetched, or {@code null}
   * @param ownArea the store's own area ({@code PREFIX_idem/}): never yielded, passed by a delimiter listing
   * @param parallelism requests in flight at most, besides the reader's own; 1 lists one page after the
   *     other and never splits
   * @param listing what to name in errors, e.g. {@code ListObjectVersions of s3://bucket/prefix}
   */
  SplitListing(Lister lister, ExecutorService executor, int pageSize, int parallelism, String prefix, Position start,
      VersionsPage firstPage, String ownArea, String listing) {
    this(lister, executor, pageSize, parallelism, List.of(Part.prefix(prefix, start)), firstPage, ownArea, listing);
  }

  /** A listing of the ascending, disjoint {@code prefixes}, each from its start, read in their order. */
  static SplitListing ofPrefixes(Lister lister, ExecutorService executor, int pageSize, int parallelism,
      List<String> prefixes, String ownArea, String listing) {
    return new SplitListing(lister, executor, pageSize, parallelism,
        prefixes.stream().map(p -> Part.prefix(p, null)).toList(), null, ownArea, listing);
  }

  private SplitListing(Lister lister, ExecutorService executor, int pageSize, int parallelism, List<Part> initial,
      VersionsPage firstPage, String ownArea, String listing) {
    this.lister = lister;
    this.executor = executor;
    this.pageSize = pageSize;
    this.parallelism = Math.max(1, parallelism);
    this.splitting = parallelism > 1;
    this.ownArea = ownArea;
    this.internal = k -> k.startsWith(ownArea);
    this.guard = new ListingGuard<>(listing);
    this.listing = listing;
    for (Part p : initial) {
      if (!internal.test(p.prefix)) {
        parts.add(p);
      }
    }
    if (firstPage != null && !parts.isEmpty()) {
      parts.getFirst().page = CompletableFuture.completedFuture(firstPage);
    }
    fill();
  }

  /** The next entry without consuming it, or {@code null} at the end. */
  ObjectVersion peek() throws IOException {
    while (index >= entries.size()) {
      Part p = parts.peekFirst();
      if (p == null) {
        return null;
      }
      if (p.kind == Kind.LISTED) {
        parts.removeFirst();
        entries = p.entries;
        index = 0;
        if (p.end != null) {
          readerEnd = p.end;
        }
        fill();
        continue;
      }
      if (p.page == null) {
        open(p, p.kind == Kind.GAP ? readerEnd : p.from);
      }
      while (!p.page.isDone()) {
        try {
          arrivals.acquire();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while listing");
        }
        arrivals.drainPermits();
        fill();
      }
      if (parts.peekFirst() == p) { // else fill() has replaced it while the reader waited
        ListIterator<Part> at = parts.listIterator();
        at.next();
        expand(at, p);
        fill();
      }
    }
    return entries.get(index);
  }

  /** Consumes the next entry; {@code null} at the end. */
  ObjectVersion next() throws IOException {
    ObjectVersion v = peek();
    if (v != null) {
      index++;
    }
    return v;
  }

  /** How many pages are held or in flight ahead of the reader: never more than twice the parallelism, plus one. */
  int pagesAhead() {
    int n = 0;
    for (Part p : parts) {
      n += p.holdsPage() ? 1 : 0;
    }
    return n;
  }

  @Override
  public void close() {
    closed = true;
    for (Part p : parts) {
      if (p.page != null) {
        p.page.cancel(true);
      }
    }
    parts.clear();
    entries = List.of();
  }

  /**
   * Opens parts ahead of the reader, in key order, while fewer than {@code parallelism} pages are held
   * or in flight, and replaces each part whose page has arrived by what the page shows. A gap opens once
   * every part before it has been listed (it starts after their last version).
   */
  private void fill() {
    if (closed) {
      return;
    }
    boolean expanded = true;
    while (expanded) {
      expanded = false;
      int held = 0;
      int lastHeld = -1;
      int i = 0;
      for (Part p : parts) {
        if (p.holdsPage()) {
          held++;
          lastHeld = i;
        }
        i++;
      }
      Position end = readerEnd;
      boolean endKnown = true; // the reader has taken every page before the first part
      int walked = 0;
      for (ListIterator<Part> it = parts.listIterator(); it.hasNext() && walked++ < 8 * parallelism + 64; ) {
        // A part before one already held (a split's, or a gap that had to wait) may open past the budget,
        // since the reader needs it first: at most twice the parallelism is held.
        boolean room = held < parallelism || (it.nextIndex() < lastHeld && held < 2 * parallelism);
        Part p = it.next();
        if (p.kind != Kind.LISTED && p.page != null && p.page.isDone() && p.failure == null) {
          try {
            expand(it, p);
          } catch (IOException e) {
            return; // the reader meets it at this part and throws
          }
          expanded = true; // walk again from the front: the page may have made a gap openable
          break;
        }
        switch (p.kind) {
          case LISTED -> end = p.end != null ? p.end : end;
          case GAP -> {
            if (p.page == null && endKnown && room) {
              open(p, end);
              held++;
            }
            endKnown = false;
          }
          default -> {
            if (p.page == null && room) {
              open(p, p.from);
              held++;
            }
            endKnown = false;
          }
        }
      }
    }
  }

  private void open(Part p, Position from) {
    p.from = from;
    String marker = from == null ? null : from.key();
    String versionId = from == null ? null : from.versionId();
    String delimiter = p.kind == Kind.DIRECTORY ? "/" : null;
    CompletableFuture<VersionsPage> page = CompletableFuture.supplyAsync(() -> {
      try {
        return lister.list(p.prefix, delimiter, marker, versionId, pageSize);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }, executor);
    p.page = page;
    page.whenComplete((r, e) -> arrivals.release()); // after the page is done, so the reader sees it done
  }

  /**
   * Replaces {@code p} (the element {@code at} returned last) by what its page shows: the page's entries,
   * then what follows it: nothing, a split, the part's next page, or the listing after the own area.
   */
  private void expand(ListIterator<Part> at, Part p) throws IOException {
    if (p.failure != null) {
      throw p.failure;
    }
    List<Part> out;
    try {
      VersionsPage page = Futures.join(p.page);
      out = p.kind == Kind.DIRECTORY ? afterOwnArea(p, page) : following(p, page);
    } catch (IOException e) {
      p.failure = e; // kept for the reader, who meets it at this part
      throw e;
    }
    at.remove();
    for (Part q : out) {
      if (q.kind == Kind.LISTED || !internal.test(q.prefix)) {
        at.add(q);
      }
    }
  }

  private List<Part> following(Part p, VersionsPage page) throws IOException {
    List<ObjectVersion> raw = page.versions();
    if (!raw.isEmpty() && (!raw.get(0).key().startsWith(p.prefix) || !raw.get(raw.size() - 1).key().startsWith(p.prefix)
        || (p.from != null && KeyOrder.compare(raw.get(0).key(), p.from.key()) < 0))) {
      // A server that ignores the prefix or the start would have the listing read its keys again, or forever.
      throw new IOException(listing + ": asked for the keys under '" + p.prefix + "'"
          + (p.from == null ? "" : " after '" + p.from.key() + "'") + ", the server listed '" + raw.get(0).key()
          + "'; stopping rather than listing the same keys twice over");
    }
    List<ObjectVersion> kept = raw;
    if (raw.stream().anyMatch(v -> internal.test(v.key()))) {
      kept = raw.stream().filter(v -> !internal.test(v.key())).toList();
    }
    List<Part> out = new ArrayList<>();
    Position end = raw.isEmpty() ? null : Position.after(raw.get(raw.size() - 1));
    out.add(Part.listed(kept, end));
    if (!page.truncated()) {
      return out;
    }
    Position next = guard.next(new Position(page.nextKeyMarker(), page.nextVersionIdMarker(), false));
    ObjectVersion last = raw.isEmpty() ? null : raw.get(raw.size() - 1);
    if ((last != null && internal.test(last.key())) || internal.test(next.key())) {
      // The rest of the part lies in and after the own area: listed past it by a delimiter listing.
      out.add(Part.directory(p.prefix, guard.restart(new Position(ownArea, null, true)), List.of(), null));
      return out;
    }
    List<Part> split = splitting && last != null ? split(p.prefix, raw.get(0).key(), last.key(), next) : null;
    if (split != null) {
      out.addAll(split);
    } else {
      out.add(Part.prefix(p.prefix, next));
    }
    return out;
  }

  /**
   * The parts that follow a full first page of prefix {@code g} whose first key is {@code firstKey} and
   * last {@code lastKey}, the page's next position being {@code next}; {@code null} when the names have
   * no digit to split on.
   */
  static List<Part> split(String g, String firstKey, String lastKey, Position next) {
    if (!firstKey.startsWith(g) || !lastKey.startsWith(g)) {
      return null;
    }
    String s0 = firstKey.substring(g.length());
    String s = lastKey.substring(g.length());
    int p = 0;
    while (p < s0.length() && p < s.length() && s0.charAt(p) == s.charAt(p)) {
      p++;
    }
    List<Integer> levels = new ArrayList<>();
    for (int i = Math.min(p, s.length() - 1); i >= 0 && levels.size() < MAX_LEVELS; i--) {
      if (isDigit(s.charAt(i))) {
        levels.add(i);
      }
    }
    if (levels.isEmpty()) {
      return null;
    }
    List<Part> out = new ArrayList<>();
    out.add(Part.prefix(g + s.substring(0, levels.get(0) + 1), next));
    for (int k = 0; k < levels.size(); k++) {
      int q = levels.get(k);
      for (char d = (char) (s.charAt(q) + 1); d <= '9'; d++) {
        out.add(Part.prefix(g + s.substring(0, q) + d, null));
      }
      String gap = k + 1 < levels.size() ? g + s.substring(0, levels.get(k + 1) + 1) : g;
      if (out.get(out.size() - 1).kind == Kind.GAP) {
        out.remove(out.size() - 1); // adjacent gaps: the wider one holds both
      }
      out.add(Part.gap(gap));
    }
    return out;
  }

  /** The prefixes splitting {@code split} proposes, as {@code prefix} or {@code prefix...} for gaps: for tests. */
  static List<String> describe(List<Part> split) {
    return split == null ? null : split.stream().map(x -> x.kind == Kind.GAP ? x.prefix + "..." : x.prefix).toList();
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /**
   * A delimiter page of a part's prefix after the own area: the keys of its own (their versions) and the
   * directories it passed, in key order, each directory a part; then the rest of the delimiter listing.
   */
  private List<Part> afterOwnArea(Part p, VersionsPage page) throws IOException {
    TreeSet<String> named = new TreeSet<>(KeyOrder::compare);
    named.addAll(p.named);
    for (String d : page.commonPrefixes()) {
      if (KeyOrder.compare(d, ownArea) > 0 && (p.lastDirectory == null || KeyOrder.compare(d, p.lastDirectory) > 0)) {
        named.add(d);
      }
    }
    List<Part> out = new ArrayList<>();
    List<ObjectVersion> own = new ArrayList<>();
    String lastDirectory = p.lastDirectory;
    for (ObjectVersion v : page.versions()) {
      if (internal.test(v.key()) || KeyOrder.compare(v.key(), ownArea) < 0) {
        continue;
      }
      while (!named.isEmpty() && KeyOrder.compare(named.first(), v.key()) < 0) {
        lastDirectory = takeDirectory(named, own, out);
      }
      own.add(v);
    }
    String position = page.truncated() ? page.nextKeyMarker() : null;
    while (!named.isEmpty() && (position == null || KeyOrder.compare(named.first(), position) <= 0)) {
      lastDirectory = takeDirectory(named, own, out);
    }
    if (!own.isEmpty()) {
      out.add(Part.listed(List.copyOf(own), Position.after(own.get(own.size() - 1))));
    }
    if (page.truncated()) {
      Position next = guard.next(new Position(page.nextKeyMarker(), page.nextVersionIdMarker(), true));
      out.add(Part.directory(p.prefix, next, List.copyOf(named), lastDirectory));
    }
    return out;
  }

  private static String takeDirectory(TreeSet<String> named, List<ObjectVersion> own, List<Part> out) {
    if (!own.isEmpty()) {
      out.add(Part.listed(List.copyOf(own), Position.after(own.get(own.size() - 1))));
      own.clear();
    }
    String d = named.pollFirst();
    out.add(Part.prefix(d, null));
    return d;
  }
}
