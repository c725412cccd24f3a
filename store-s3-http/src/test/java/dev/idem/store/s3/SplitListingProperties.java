package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.store.s3.internal.client.KeyOrder;
import dev.idem.store.s3.internal.client.ObjectVersion;
import dev.idem.store.s3.internal.client.VersionsPage;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.statistics.Statistics;

/**
 * A {@link SplitListing} yields exactly the entries of one sequential listing, in the same order,
 * whatever the layout: idem keys of several pipelines, legacy keys beside and inside them, objects named
 * like a directory ({@code a/}), keys between directories ({@code a0}, {@code exports/job-3.csv}), delete
 * markers, several versions per key, the store's own area, page boundaries anywhere, a window query's
 * prefixes; it asks the server only for positions every server honours (the fake refuses any other:
 * a key-marker that is no key, or a versioned key's without its version id, outside a delimiter
 * listing), reads every entry once, and holds at most {@code 2 × parallelism + 1} pages ahead of the reader.
 */
class SplitListingProperties {
  private static final String STORE = "t/";
  private static final long NOW = 1_726_000_000L;
  private static final ExecutorService EXECUTOR = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "split-listing-test");
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
            "_idem/pointers/a/log/00000000000000000001", "_idem/store", "_idem0", "_idem/", "_i",
            "p1/17/x", "p1/999999999/state-x", "exports/", "exports/job-3/", "exports/job-3", "exports/job-3.csv",
            "exports/job-30/x", "p1/", "p1/1726000000/", "p1/1726000000:x", "p1/1726000000/9"));
    Arbitrary<String> keys = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(3, idem), net.jqwik.api.Tuple.of(2, legacy));
    Arbitrary<Key> key = Combinators.combine(keys, Arbitraries.integers().between(1, 4),
        Arbitraries.integers().between(-1, 3)).as(Key::new);
    return key.list().ofMinSize(20).ofMaxSize(120);
  }

  @Property(tries = 300)
  void splitListing_sameEntriesInOrderAsSequentialEachReadOnce(@ForAll("buckets") List<Key> keys,
      @ForAll @IntRange(min = 1, max = 9) int pageSize, @ForAll @IntRange(min = 1, max = 12) int parallelism,
      @ForAll @IntRange(min = 0, max = 2) int scope) throws IOException {
    FakeVersions bucket = new FakeVersions(STORE, keys);
    // The whole store, one pipeline, or a window query's prefixes from a start.
    String listPrefix = scope == 0 ? STORE : STORE + "p1/";
    List<String> prefixes = scope == 2 ? HistoryWalk.windowsFrom(listPrefix, Long.toString(NOW - 200_000)) : null;
    List<String> expected = bucket.expected(listPrefix, prefixes);
    int[] maxAhead = {0};
    List<String> got = read(bucket, listPrefix, prefixes, parallelism, pageSize, maxAhead);
    assertEquals(expected, got, "entries in key order, own area left out");
    assertTrue(maxAhead[0] <= 2 * parallelism + 1, maxAhead[0] + " pages ahead for parallelism " + parallelism);
    long own = bucket.entriesReadIn(STORE + "_idem/");
    assertEquals(expected.size(), bucket.entriesRead - own,
        "every version outside the own area read once");
    Statistics.label("requests per page of entries").collect(
        bucket.requests <= Math.max(1, expected.size() / pageSize) + 1 ? "at most one more" : "more");
  }

  @Property(tries = 100)
  void split_digitsAfterTheLastKey_partitionWhatFollowsIt(@ForAll @IntRange(min = 1_700_000_000, max = 1_799_999_999)
      int lo, @ForAll @IntRange(min = 1, max = 2_000_000) int span) {
    String g = "t/p/";
    String first = g + lo + "/state-a";
    String last = g + (lo + span) + "/state-b";
    List<String> parts = SplitListing.describe(SplitListing.split(g, first, last,
        new SplitListing.Position(last, "v", false)));
    assertTrue(parts != null && !parts.isEmpty());
    for (int i = 1; i < parts.size(); i++) {
      String a = parts.get(i - 1).replace("...", "");
      String b = parts.get(i).replace("...", "");
      assertTrue(!parts.get(i).endsWith("...") ? KeyOrder.compare(a, b) < 0 || b.startsWith(a) || a.startsWith(b)
          : b.length() <= a.length(), parts.toString());
    }
    assertEquals(g + "...", parts.get(parts.size() - 1), "the last part is what follows under the prefix");
  }

  /**
   * Every entry as {@code key#versionId}, read through a {@link SplitListing}; {@code maxAhead} receives
   * the most pages it held ahead of the reader.
   */
  private static List<String> read(FakeVersions bucket, String listPrefix, List<String> prefixes, int parallelism,
      int pageSize, int[] maxAhead) throws IOException {
    List<String> out = new ArrayList<>();
    SplitListing.Lister lister = (prefix, delimiter, marker, versionId, max) ->
        bucket.list(prefix, delimiter, marker, versionId, max).toPage();
    try (SplitListing listing = prefixes != null
        ? SplitListing.ofPrefixes(lister, EXECUTOR, pageSize, parallelism, prefixes, STORE + "_idem/", "fake")
        : new SplitListing(lister, EXECUTOR, pageSize, parallelism, listPrefix, null, null, STORE + "_idem/", "fake")) {
      for (ObjectVersion v = listing.next(); v != null; v = listing.next()) {
        out.add(v.key() + "#" + v.versionId());
        maxAhead[0] = Math.max(maxAhead[0], listing.pagesAhead());
      }
    }
    return out;
  }

  /**
   * A versioned bucket's ListObjectVersions, S3's semantics, in memory, refusing every start position
   * some server does not honour, and counting what it hands out.
   */
  static final class FakeVersions {
    private final List<ObjectVersion> entries = new ArrayList<>();
    private final String own;
    volatile long requests;
    volatile long entriesRead;
    volatile long prefixesRead;
    private final java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.AtomicLong> readIn =
        new java.util.concurrent.ConcurrentHashMap<>();

    record Page(List<ObjectVersion> versions, boolean truncated, String nextKey, String nextVersion,
        List<String> commonPrefixes) {
      VersionsPage toPage() {
        return new VersionsPage(versions, truncated, nextKey, nextVersion, commonPrefixes);
      }
    }

    FakeVersions(String storePrefix, List<Key> keys) {
      own = storePrefix + "_idem/";
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

    /** Every entry under {@code prefix} (or under one of {@code prefixes}) outside the own area: the oracle. */
    List<String> expected(String prefix, List<String> prefixes) {
      return entries.stream().filter(v -> prefixes == null ? v.key().startsWith(prefix)
              : prefixes.stream().anyMatch(v.key()::startsWith))
          .filter(v -> !v.key().startsWith(own))
          .map(v -> v.key() + "#" + v.versionId()).toList();
    }

    long entriesReadIn(String prefix) {
      java.util.concurrent.atomic.AtomicLong n = readIn.get(prefix);
      return n == null ? 0 : n.get();
    }

    synchronized Page list(String prefix, String delimiter, String keyMarker, String versionMarker, int max) {
      requests++;
      int i = 0;
      if (keyMarker != null) {
        boolean isKey = entries.stream().anyMatch(e -> e.key().equals(keyMarker));
        boolean isPrefix = keyMarker.endsWith("/") && entries.stream().anyMatch(e -> e.key().startsWith(keyMarker));
        if (delimiter == null ? !isKey || versionMarker == null
            : !isKey && !isPrefix || versionMarker != null && !isKey) {
          throw new AssertionError("a start position some server does not honour: key-marker " + keyMarker
              + " version-id-marker " + versionMarker + (delimiter == null ? "" : " delimiter " + delimiter));
        }
        while (i < entries.size() && KeyOrder.compare(entries.get(i).key(), keyMarker) < 0) {
          i++;
        }
        if (versionMarker == null) {
          while (i < entries.size() && entries.get(i).key().equals(keyMarker)) {
            i++;
          }
        } else {
          boolean found = false;
          while (i < entries.size() && entries.get(i).key().equals(keyMarker) && !found) {
            found = entries.get(i).versionId().equals(versionMarker);
            i++;
          }
          if (!found) {
            throw new AssertionError("version-id-marker " + versionMarker + " is no version of " + keyMarker);
          }
        }
      }
      List<ObjectVersion> out = new ArrayList<>();
      List<String> prefixes = new ArrayList<>();
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
      entriesRead += out.size();
      prefixesRead += prefixes.size();
      readIn.computeIfAbsent(own, x -> new java.util.concurrent.atomic.AtomicLong())
          .addAndGet(out.stream().filter(v -> v.key().startsWith(own)).count());
      return new Page(out, truncated, truncated ? lastKey : null, truncated ? lastVersion : null, prefixes);
    }
  }
}
