package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.store.s3.client.KeyOrder;
import dev.idem.store.s3.client.ObjectVersion;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.constraints.IntRange;

/**
 * A listing cut into ranges ({@link KeyRanges}) and read through {@link RangeCursor} yields exactly the
 * entries of one sequential listing, in the same order, whatever the layout: idem keys of several
 * pipelines, legacy keys beside and inside them, objects named like a directory ({@code a/}), keys
 * between directories ({@code a0}, {@code exports/job-3.csv}), delete markers, several versions per
 * key, the store's own area, page boundaries anywhere, and a window query's start marker; both when
 * the plan cuts at markers and when it lists every directory by its prefix (a bucket whose keys all
 * lie in directories). And it never holds more than two pages per open range.
 */
class RangeListingProperties {
  private static final String STORE = "t/";
  private static final long NOW = 1_726_000_000L;
  private static final ExecutorService EXECUTOR = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "range-listing-test");
    t.setDaemon(true);
    return t;
  });

  @AfterContainer
  static void stop() {
    EXECUTOR.shutdownNow();
  }

  /** One listed key with its versions (newest first), some of them delete markers. */
  record Key(String key, int versions, int deleteMarkerAt) {}

  @Provide
  Arbitrary<List<Key>> buckets() {
    Arbitrary<String> idem = Combinators.combine(Arbitraries.of("a", "b-c", "p1", "zz"),
        Arbitraries.longs().between(NOW - 400_000, NOW), Arbitraries.integers().between(1, 3))
        .as((p, start, schema) -> RunSpec.of(p, new Window(start - start % 60, 60), schema).outputKey().toString());
    Arbitrary<String> legacy = Arbitraries.oneOf(
        Arbitraries.strings().withChars("abz019._-/ !~").ofMinLength(1).ofMaxLength(10),
        Arbitraries.integers().between(0, 300).map(i -> "exports/job-" + (i % 7) + "/window-" + i + ".csv"),
        Arbitraries.integers().between(0, 200).map(i -> "d" + (i % 20) + "/k" + i),
        Arbitraries.of("a/1726000000/legacy.csv", "a/", "a", "a0", "_idem/pointers/a/latest", "_idem/evidence/x!y",
            "p1/17/x", "p1/999999999/state-x", "exports/", "exports/job-3/", "exports/job-3", "exports/job-3.csv",
            "exports/job-30/x", "p1/", "p1/1726000000/"));
    Arbitrary<String> keys = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(3, idem), net.jqwik.api.Tuple.of(2, legacy));
    Arbitrary<Key> key = Combinators.combine(keys, Arbitraries.integers().between(1, 4),
        Arbitraries.integers().between(-1, 3)).as(Key::new);
    return key.list().ofMinSize(20).ofMaxSize(120);
  }

  @Property(tries = 300)
  void rangedListing_sameEntriesInOrderAsSequential(@ForAll("buckets") List<Key> keys,
      @ForAll @IntRange(min = 1, max = 9) int pageSize, @ForAll @IntRange(min = 1, max = 12) int parallelism,
      @ForAll @IntRange(min = 0, max = 2) int startAt, @ForAll boolean inDirectoriesOnly) throws IOException {
    // Keys only in directories (none of the listing's own) let the plan list each directory by prefix.
    List<Key> listed = inDirectoriesOnly ? inDirectories(keys) : keys;
    FakeVersions bucket = new FakeVersions(STORE, listed);
    // From the first key, from a window query's start, or from a key of the bucket (inside a directory).
    boolean fromAWindow = startAt == 1;
    String listPrefix = fromAWindow ? STORE + "p1/" : STORE;
    String start = fromAWindow ? STORE + "p1/" + (NOW - 200_000)
        : startAt == 2 && !listed.isEmpty() ? STORE + listed.get(listed.size() / 2).key : null;
    List<String> expected = bucket.expected(listPrefix, start);
    assertEquals(expected, read(bucket, listPrefix, KeyRanges.Plan.SEQUENTIAL.ranges(start), 1, pageSize, null),
        "one sequential listing");
    KeyRanges.Discovery discovery = bucket.discovery(pageSize);
    KeyRanges.Plan plan = KeyRanges.plan(listPrefix, start, discovery.firstPageSpan(listPrefix, start), STORE, NOW,
        parallelism, discovery);
    List<String> markers = plan.markers();
    for (int i = 1; i < markers.size(); i++) {
      assertTrue(KeyOrder.compare(markers.get(i - 1), markers.get(i)) < 0, "ascending: " + markers);
    }
    Statistics.label("split markers").collect(markers.isEmpty() ? "none" : markers.size() < 8 ? "1-7" : "8+");
    Statistics.label("ranges").collect(plan.byDirectory() ? "by directory" : "between markers");
    Statistics.label("start in a listed directory").collect(plan.byDirectory() && start != null
        && plan.markers().stream().anyMatch(start::startsWith));
    int[] maxHeld = {0};
    List<String> ranged = read(bucket, listPrefix, plan.ranges(start), parallelism, pageSize, maxHeld);
    assertEquals(expected, ranged, plan.toString());
    assertTrue(maxHeld[0] <= 2 * parallelism, maxHeld[0] + " pages held at once for parallelism " + parallelism);
  }

  /**
   * The plan lists directories by prefix only when the delimiter listing proved that they hold every
   * key: a key of the listing's own, a listing cut short, or directories grouped keep the markers.
   */
  @Property(tries = 200)
  void byDirectory_onlyWhenTheDirectoriesHoldEveryKey(@ForAll("buckets") List<Key> keys,
      @ForAll @IntRange(min = 1, max = 9) int pageSize, @ForAll @IntRange(min = 2, max = 12) int parallelism,
      @ForAll boolean inDirectoriesOnly) throws IOException {
    FakeVersions bucket = new FakeVersions(STORE, inDirectoriesOnly ? inDirectories(keys) : keys);
    KeyRanges.Discovery discovery = bucket.discovery(pageSize);
    KeyRanges.Plan plan = KeyRanges.plan(STORE, null, discovery.firstPageSpan(STORE, null), STORE, NOW, parallelism,
        discovery);
    if (plan.byDirectory()) {
      for (String key : bucket.expected(STORE, null)) {
        String k = key.substring(0, key.indexOf('#'));
        assertTrue(plan.markers().stream().anyMatch(k::startsWith), k + " lies in no directory of " + plan);
      }
    }
    Statistics.label("ranges").collect(plan.byDirectory() ? "by directory" : "between markers");
  }

  /** The keys that lie in a directory of the store's root. */
  private static List<Key> inDirectories(List<Key> keys) {
    return keys.stream().filter(k -> k.key.indexOf('/') >= 0).toList();
  }

  /**
   * Every entry as {@code key#versionId}, read through a {@link RangeCursor}; {@code maxHeld} receives
   * the most pages fetched and not yet passed by the reader.
   */
  private static List<String> read(FakeVersions bucket, String listPrefix, List<RangeCursor.Range> ranges,
      int parallelism, int pageSize, int[] maxHeld) throws IOException {
    List<String> out = new ArrayList<>();
    AtomicInteger position = new AtomicInteger();
    Set<int[]> held = java.util.concurrent.ConcurrentHashMap.newKeySet();
    RangeCursor.Opener<ObjectVersion> opener = range -> {
      PageCursor.Fetch<List<String>, ObjectVersion> fetch = (m, page) -> {
        FakeVersions.Page p = bucket.list(range.prefix() != null ? range.prefix() : listPrefix, null, m.get(0),
            m.get(1), pageSize);
        // A page is held from its fetch until the reader passes its last entry in this range.
        int last = p.lastIndexIn(range);
        if (last >= 0) {
          held.add(new int[] {last});
        }
        return RangeCursor.cut(new PageCursor.Page<>(p.versions(),
            p.truncated() ? Arrays.asList(p.nextKey(), p.nextVersion()) : null), range, ObjectVersion::key);
      };
      return PageCursor.open(fetch, Arrays.asList(range.after(), null), EXECUTOR, "fake");
    };
    try (RangeCursor<ObjectVersion> cursor = new RangeCursor<>(opener, ObjectVersion::key, ranges, EXECUTOR,
        parallelism, "fake")) {
      for (ObjectVersion v = cursor.next(); v != null; v = cursor.next()) {
        out.add(v.key() + "#" + v.versionId());
        int at = bucket.indexOf(v);
        position.set(at + 1);
        held.removeIf(p -> p[0] < position.get());
        if (maxHeld != null) {
          maxHeld[0] = Math.max(maxHeld[0], held.size());
        }
        assertTrue(cursor.openRanges() <= parallelism);
      }
    }
    return out;
  }

  /** A versioned bucket's ListObjectVersions, S3's semantics, in memory. */
  static final class FakeVersions {
    private final List<ObjectVersion> entries = new ArrayList<>();

    record Page(List<ObjectVersion> versions, boolean truncated, String nextKey, String nextVersion,
        List<String> commonPrefixes, List<Integer> indexes) {
      /** The index of the last entry {@code range} holds, or -1. */
      int lastIndexIn(RangeCursor.Range range) {
        int last = -1;
        for (int i = 0; i < versions.size(); i++) {
          if (range.holds(versions.get(i).key())) {
            last = indexes.get(i);
          }
        }
        return last;
      }
    }

    FakeVersions(String storePrefix, List<Key> keys) {
      Set<String> unique = new LinkedHashSet<>();
      for (Key k : keys) {
        unique.add(k.key);
      }
      List<String> sorted = new ArrayList<>(unique);
      sorted.sort(KeyOrder::compare);
      for (String key : sorted) {
        Key k = keys.stream().filter(x -> x.key.equals(key)).findFirst().orElseThrow();
        for (int v = 0; v < k.versions; v++) {
          boolean marker = v == k.deleteMarkerAt;
          entries.add(new ObjectVersion(storePrefix + key, key.hashCode() + "-" + v, v == 0, marker,
              Instant.ofEpochSecond(NOW - v), marker ? null : "etag" + (key.length() + v) % 3, marker ? 0 : 1));
        }
      }
    }

    /** Every entry under {@code prefix} after {@code start}, as {@code key#versionId}: the oracle. */
    List<String> expected(String prefix, String start) {
      return entries.stream().filter(v -> v.key().startsWith(prefix))
          .filter(v -> start == null || KeyOrder.compare(v.key(), start) > 0)
          .map(v -> v.key() + "#" + v.versionId()).toList();
    }

    int indexOf(ObjectVersion v) {
      for (int i = 0; i < entries.size(); i++) {
        if (entries.get(i).key().equals(v.key()) && entries.get(i).versionId().equals(v.versionId())) {
          return i;
        }
      }
      throw new AssertionError("not listed: " + v);
    }

    Page list(String prefix, String delimiter, String keyMarker, String versionMarker, int max) {
      List<ObjectVersion> out = new ArrayList<>();
      List<Integer> indexes = new ArrayList<>();
      List<String> prefixes = new ArrayList<>();
      int i = 0;
      if (keyMarker != null) {
        while (i < entries.size() && KeyOrder.compare(entries.get(i).key(), keyMarker) < 0) {
          i++;
        }
        if (versionMarker == null) {
          while (i < entries.size() && entries.get(i).key().equals(keyMarker)) {
            i++;
          }
        } else {
          while (i < entries.size() && entries.get(i).key().equals(keyMarker)) {
            boolean found = entries.get(i).versionId().equals(versionMarker);
            i++;
            if (found) {
              break;
            }
          }
        }
      }
      String lastKey = null;
      String lastVersion = null;
      for (; i < entries.size(); i++) {
        ObjectVersion v = entries.get(i);
        if (!v.key().startsWith(prefix)) {
          continue;
        }
        if (delimiter != null) {
          int d = v.key().indexOf(delimiter, prefix.length());
          if (d >= 0) {
            String cp = v.key().substring(0, d + delimiter.length());
            if (cp.equals(lastKey) || keyMarker != null && cp.equals(keyMarker)) {
              continue;
            }
            if (out.size() + prefixes.size() == max) {
              break;
            }
            prefixes.add(cp);
            lastKey = cp;
            lastVersion = null;
            continue;
          }
        }
        if (out.size() + prefixes.size() == max) {
          break;
        }
        out.add(v);
        indexes.add(i);
        lastKey = v.key();
        lastVersion = v.versionId();
      }
      boolean truncated = false;
      for (int j = i; j < entries.size(); j++) {
        String k = entries.get(j).key();
        if (k.startsWith(prefix) && !(delimiter != null && lastKey != null && lastVersion == null && k.startsWith(lastKey))) {
          truncated = true;
          break;
        }
      }
      return new Page(out, truncated, truncated ? lastKey : null, truncated ? lastVersion : null, prefixes, indexes);
    }

    KeyRanges.Discovery discovery(int pageSize) {
      return new KeyRanges.Discovery() {
        @Override
        public KeyRanges.Directories directories(String listPrefix, String startAfter, int pages) {
          List<String> out = new ArrayList<>();
          boolean ownKeys = false;
          String key = startAfter;
          String version = null;
          for (int p = 0; p < pages; p++) {
            Page page = list(listPrefix, "/", key, version, pageSize);
            out.addAll(page.commonPrefixes());
            ownKeys |= !page.versions().isEmpty();
            if (!page.truncated()) {
              return new KeyRanges.Directories(out, true, ownKeys);
            }
            key = page.nextKey();
            version = page.nextVersion();
          }
          return new KeyRanges.Directories(out, false, ownKeys);
        }

        @Override
        public String[] firstPageSpan(String listPrefix, String startAfter) {
          Page first = list(listPrefix, null, startAfter, null, pageSize);
          List<ObjectVersion> v = first.versions();
          return !first.truncated() || v.isEmpty() ? null : new String[] {v.get(0).key(), v.get(v.size() - 1).key()};
        }
      };
    }
  }
}
